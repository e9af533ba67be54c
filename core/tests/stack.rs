//! No input can overflow the stack: at the deepest nesting options may allow
//! ([`MAX_DEPTH_LIMIT`]), every function in core that recurses once per level runs on a
//! 256 KiB thread, and a larger `max_depth` is refused with `invalid_option`.
//!
//! The functions: parsing, the direct text path (objects sorted in place and by member list),
//! writing and fingerprinting a value, comparing, cloning, copying (`into_owned`) and dropping
//! values, and the permit check (its fingerprints, its comparison of the frozen and presented
//! actions, its argument validation and its drift diff); schema compilation and validation
//! are in an ignored test until they bound their own stack use (see that test).
//!
//! The 256 KiB figure, with a quarter of it taken by the caller's frames, holds for optimized
//! builds, which are what the CLI and the bindings ship and what the test command runs this
//! file as (`cargo test --release`). Unoptimized code uses about 32 times the stack per level,
//! so a debug build runs the same calls on a stack that much larger: it still checks that
//! nothing recurses without bound, but not the figure.

use actionseal_core::{
    canonicalize, canonicalize_json, check, fingerprint, fingerprint_json, parse, Code, Contract,
    Options, OwnedValue, Profile, Schema, MAX_DEPTH_LIMIT,
};

/// 256 KiB; unoptimized code takes about 32 times as much per level.
const STACK: usize = if cfg!(debug_assertions) {
    32 * 256 * 1024
} else {
    256 * 1024
};

/// Stack the caller is assumed to have used before calling into core (a host language's
/// interpreter frames, a binding's own): taken up before `f` runs.
const CALLER: usize = STACK / 4;

/// Runs `f` on a thread with [`STACK`] bytes of stack, [`CALLER`] of them already in use; a
/// stack overflow aborts the process, which fails the test.
fn on_small_stack<F: FnOnce() + Send + 'static>(f: F) {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(|| below_caller_frames(f))
        .expect("spawn")
        .join()
        .expect("the small-stack thread panicked");
}

#[inline(never)]
fn below_caller_frames<F: FnOnce()>(f: F) {
    let used = std::hint::black_box([0u8; CALLER]);
    f();
    std::hint::black_box(&used);
}

fn deepest() -> Options {
    Options {
        max_depth: MAX_DEPTH_LIMIT,
        ..Options::default()
    }
}

/// Documents nested exactly [`MAX_DEPTH_LIMIT`] deep, of every kind of level.
fn documents() -> Vec<(&'static str, String)> {
    let d = MAX_DEPTH_LIMIT;
    // Objects whose keys need sorting at every level, and the same padded past the size up to
    // which the direct path rewrites objects in place (so each gets a member list, followed
    // recursively by its second pass).
    let unsorted = format!("{}0{}", r#"{"b":0,"a":"#.repeat(d), "}".repeat(d));
    let pad = format!(r#","c":"{}"}}"#, "x".repeat(2100));
    let listed = format!("{}0{}", r#"{"b":0,"a":"#.repeat(d), pad.repeat(d));
    // Arrays of objects, alternating.
    let mixed = format!("{}0{}", r#"[{"z":1,"y":"#.repeat(d / 2), "}]".repeat(d / 2));
    vec![
        ("arrays", format!("{}{}", "[".repeat(d), "]".repeat(d))),
        ("objects", unsorted),
        ("listed objects", listed),
        ("arrays of objects", mixed),
    ]
}

#[test]
fn every_recursive_function_fits_a_small_stack_at_the_deepest_nesting() {
    for (kind, text) in documents() {
        on_small_stack(move || {
            let opts = deepest();
            for profile in Profile::ALL {
                let opts = Options { profile, ..opts };
                let canonical = canonicalize_json(text.as_bytes(), &opts).expect(kind);
                let digest = fingerprint_json(text.as_bytes(), &opts).expect(kind);
                let value = parse(text.as_bytes(), &opts).expect(kind);
                assert_eq!(canonicalize(&value), canonical, "{kind}");
                assert_eq!(fingerprint(&value), digest, "{kind}");
                let copy = value.clone();
                assert!(copy == value, "{kind}");
                let owned: OwnedValue = copy.into_owned();
                assert!(owned == value, "{kind}");
                drop(owned);
                drop(value);
                // One level deeper is refused, by both paths.
                let deeper = format!("[{text}]");
                let e = canonicalize_json(deeper.as_bytes(), &opts).unwrap_err();
                assert_eq!(e.code(), Code::DepthLimitExceeded, "{kind}");
                let e = parse(deeper.as_bytes(), &opts).unwrap_err();
                assert_eq!(e.code(), Code::DepthLimitExceeded, "{kind}");
            }
        });
    }
}

/// A finding for the schema validator (docs/RELIABILITY.md): it follows up to
/// `MAX_VALIDATION_DEPTH` (512) nested schema applications, but uses about 650 bytes of stack
/// for each one through `anyOf`, so a flat schema of 200 chained `anyOf`/`$ref` definitions
/// overflows a 256 KiB stack validating `1`, whatever `max_depth` is, and a recursive schema
/// overflows it over a value about 150 levels deep. Ignored until the validator bounds its
/// stack use (lower limit or smaller frames); `cargo test --release -p actionseal-core --test
/// stack -- --include-ignored` runs it.
#[test]
#[ignore = "the schema validator can overflow a 256 KiB stack (docs/RELIABILITY.md)"]
fn schema_validation_fits_a_small_stack() {
    let validation = actionseal_core::schema::MAX_VALIDATION_DEPTH;
    // A chain of definitions, each an `anyOf` whose first branch refers to the next.
    let defs: Vec<String> = (0..validation)
        .map(|i| {
            format!(
                r##""d{i}":{{"anyOf":[{{"$ref":"#/$defs/d{}"}},{{"type":"string"}}]}}"##,
                i + 1
            )
        })
        .collect();
    let chain = format!(
        r##"{{"$defs":{{{},"d{validation}":{{"type":"integer"}}}},"$ref":"#/$defs/d0"}}"##,
        defs.join(",")
    );
    on_small_stack(move || {
        let schema =
            Schema::compile(&parse(chain.as_bytes(), &Options::default()).unwrap()).unwrap();
        match schema.validate(&parse(b"1", &Options::default()).unwrap()) {
            Ok(()) => {}
            Err(e) => assert_eq!(e.code(), Code::DepthLimitExceeded, "{e}"),
        }
    });
    // A recursive schema accepting any nesting of arrays and objects, over every document
    // nested to the limit.
    let recursive = r##"{"$defs": {"N": {"anyOf": [
        {"type": "array", "items": {"$ref": "#/$defs/N"}},
        {"type": "object", "additionalProperties": {"$ref": "#/$defs/N"}},
        {"type": ["null", "number", "string", "boolean"]}]}},
      "$ref": "#/$defs/N"}"##;
    for (kind, text) in documents() {
        on_small_stack(move || {
            let schema = parse(recursive.as_bytes(), &Options::default()).unwrap();
            let schema = Schema::compile(&schema).unwrap();
            let value = parse(text.as_bytes(), &deepest()).unwrap();
            match schema.validate(&value) {
                Ok(()) => {}
                Err(e) => assert_eq!(e.code(), Code::DepthLimitExceeded, "{kind}: {e}"),
            }
        });
    }
    // Schemas nested as deep as the limit lets a document be: compiled (refused past the
    // schema module's own limit) and used.
    on_small_stack(|| {
        let depth = MAX_DEPTH_LIMIT - 1;
        let text = format!("{}{{}}{}", r#"{"items":"#.repeat(depth), "}".repeat(depth));
        let doc = parse(text.as_bytes(), &deepest()).unwrap();
        match Schema::compile(&doc) {
            Ok(schema) => {
                let value = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
                let value = parse(value.as_bytes(), &deepest()).unwrap();
                schema.validate(&value).unwrap();
            }
            Err(e) => assert_eq!(e.code(), Code::UnsupportedSchema, "{e}"),
        }
    });
}

#[test]
fn permit_check_fits_a_small_stack() {
    let example = |file: &str| {
        let path = format!("{}/../examples/refund/{file}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let (approval, action, context) = (
        example("approval.json"),
        example("action.json"),
        example("context.json"),
    );
    on_small_stack(move || {
        let opts = deepest();
        // Arguments nested to the limit (less the envelope's own two levels), differing only
        // at the bottom: the check fingerprints both actions, compares them and walks the
        // whole depth for the drift.
        let levels = MAX_DEPTH_LIMIT - 3;
        let deep = |leaf: u8| {
            format!(
                r#""args": {{"nested":{}{leaf}{},"#,
                r#"{"a":"#.repeat(levels),
                "}".repeat(levels)
            )
        };
        let action_text = action.replacen(r#""args": {"#, &deep(1), 1);
        let frozen_text = action.replacen(r#""args": {"#, &deep(2), 1);
        let frozen = parse(frozen_text.as_bytes(), &opts).unwrap();
        let approval_text = approval
            .replacen(&action_json(&approval), &canonicalize(&frozen), 1)
            .replacen(
                "sha256:f31c54dd3e07a4eb13e42e3ef537eb234e991a46d59fe815c838b2fe6d5046e8",
                &fingerprint(&frozen).to_string(),
                1,
            );
        let approval = parse(approval_text.as_bytes(), &opts).unwrap();
        let action = parse(action_text.as_bytes(), &opts).unwrap();
        let context = parse(context.as_bytes(), &opts).unwrap();
        let verdict = check(Some(&approval), &action, &context).unwrap();
        let bottom = format!("/args/nested{}", "/a".repeat(levels));
        assert_eq!(verdict.drift, vec![bottom]);
        let contract = context.as_object().unwrap().get("contract").unwrap();
        let contract = Contract::from_value(contract).unwrap();
        assert!(contract.validate_action(&action).is_err());
    });
}

/// The `"action": {...}` object of the example approval, as its text.
fn action_json(approval: &str) -> String {
    let start = approval.find(r#""action": {"#).unwrap() + r#""action": "#.len();
    let end = approval[start..].find("\n  }").unwrap() + start + 4;
    approval[start..end].to_owned()
}

#[test]
fn a_deeper_limit_is_refused_at_every_entry_point() {
    let opts = Options {
        max_depth: MAX_DEPTH_LIMIT + 1,
        ..Options::default()
    };
    assert_eq!(opts.check().unwrap_err().code(), Code::InvalidOption);
    assert!(deepest().check().is_ok());
    for text in [
        "[]",
        "0",
        "{\"a\":[[]]}",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    ] {
        let b = text.as_bytes();
        assert_eq!(parse(b, &opts).unwrap_err().code(), Code::InvalidOption);
        assert_eq!(
            canonicalize_json(b, &opts).unwrap_err().code(),
            Code::InvalidOption
        );
        assert_eq!(
            fingerprint_json(b, &opts).unwrap_err().code(),
            Code::InvalidOption
        );
    }
    // The issue's case: a limit of 200,000 and 100,000 nested arrays.
    let opts = Options {
        max_depth: 200_000,
        ..Options::default()
    };
    let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    on_small_stack(move || {
        let e = canonicalize_json(text.as_bytes(), &opts).unwrap_err();
        assert_eq!(e.code(), Code::InvalidOption);
    });
}
