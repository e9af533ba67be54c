//! No input can overflow the stack: at the deepest nesting options may allow
//! ([`MAX_DEPTH_LIMIT`]), every function in core that recurses once per level runs on a
//! 256 KiB thread, and a larger `max_depth` is refused with `invalid_option`.
//!
//! The functions: parsing, the direct text path (objects sorted in place and by member list),
//! writing and fingerprinting a value, comparing, cloning, copying (`into_owned`) and dropping
//! values, and the permit check (its fingerprints, its comparison of the frozen and presented
//! actions, its argument validation and its drift diff); and schema compilation and
//! validation at their own limits (`MAX_SCHEMA_DEPTH`, `MAX_VALIDATION_DEPTH`).
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

/// `n` definitions chained by `keyword` (`anyOf`, `oneOf`, `allOf` or `$ref`), each applying
/// the next, the last one `leaf`; the root refers to the first. Flat: the document is three
/// levels deep however long the chain.
fn chain(keyword: &str, n: usize, leaf: &str) -> String {
    let defs: Vec<String> = (0..n)
        .map(|i| {
            let next = format!(r##"{{"$ref":"#/$defs/d{}"}}"##, i + 1);
            match keyword {
                "$ref" => format!(r#""d{i}":{next}"#),
                "allOf" => format!(r#""d{i}":{{"allOf":[{next}]}}"#),
                _ => format!(r#""d{i}":{{"{keyword}":[{next},{{"type":"string"}}]}}"#),
            }
        })
        .collect();
    format!(
        r##"{{"$defs":{{{},"d{n}":{leaf}}},"$ref":"#/$defs/d0"}}"##,
        defs.join(",")
    )
}

/// Compiles `schema` and validates `value` (both read at the deepest `max_depth`), on the
/// small stack; the outcome must be `Ok` or, when `limited`, `depth_limit_exceeded`.
fn validate_on_small_stack(what: &str, schema: String, value: String, limited: bool) {
    let what = what.to_owned();
    on_small_stack(move || {
        let schema = parse(schema.as_bytes(), &deepest()).expect(&what);
        let schema = Schema::compile(&schema).expect(&what);
        let value = parse(value.as_bytes(), &deepest()).expect(&what);
        match schema.validate(&value) {
            Ok(()) => assert!(!limited, "{what}: expected depth_limit_exceeded"),
            Err(e) => {
                assert!(limited, "{what}: {e}");
                assert_eq!(e.code(), Code::DepthLimitExceeded, "{what}: {e}");
            }
        }
    });
}

/// Compiles `schema` (read at the deepest `max_depth`) on the small stack: `Ok`, or the
/// `unsupported_schema` refusal at `path`.
fn compile_on_small_stack(what: &str, schema: String, refused_at: Option<String>) {
    let what = what.to_owned();
    on_small_stack(move || {
        let doc = parse(schema.as_bytes(), &deepest()).expect(&what);
        match (Schema::compile(&doc), refused_at) {
            (Ok(_), None) => {}
            (Err(e), Some(path)) => {
                assert_eq!(e.code(), Code::UnsupportedSchema, "{what}: {e}");
                assert_eq!(e.path(), path, "{what}");
            }
            (r, expected) => panic!("{what}: {:?}, expected a refusal at {expected:?}", r.err()),
        }
    });
}

/// Schema validation follows at most `MAX_VALIDATION_DEPTH` (384) nested schema
/// applications; it runs at that limit along every kind of edge, and with the costliest
/// comparisons at the bottom, on the small stack (docs/RELIABILITY.md has the bytes an
/// application takes). Before its frames were shrunk and the limit lowered from 512, a chain
/// of 200 `anyOf`/`$ref` definitions overflowed 256 KiB validating `1`, and a recursive
/// schema overflowed it over a value about 150 levels deep.
#[test]
fn schema_validation_fits_a_small_stack() {
    let limit = actionseal_core::schema::MAX_VALIDATION_DEPTH;
    // Chains of in-place applications (a flat document, whatever `max_depth` is): long
    // enough to be refused at the limit, and the longest that is not.
    for (keyword, per_definition) in [("anyOf", 2), ("oneOf", 2), ("allOf", 2), ("$ref", 1)] {
        let leaf = r#"{"type":"integer"}"#;
        let longest = (limit - 1) / per_definition;
        let what = format!("{keyword} chain of {longest}");
        validate_on_small_stack(&what, chain(keyword, longest, leaf), "1".into(), false);
        let what = format!("{keyword} chain of {}", longest + 1);
        validate_on_small_stack(&what, chain(keyword, longest + 1, leaf), "1".into(), true);
        // The same chains ending in comparisons of a deep value (`const`, `uniqueItems`),
        // which recurse over the value at the bottom of the validation's own recursion.
        // (The chain's document takes three levels around the `const`.)
        let deep = format!(
            "{}{}",
            "[".repeat(MAX_DEPTH_LIMIT - 3),
            "]".repeat(MAX_DEPTH_LIMIT - 3)
        );
        let leaf = format!(r#"{{"const":{deep}}}"#);
        let what = format!("{keyword} chain of {longest} to a deep const");
        validate_on_small_stack(&what, chain(keyword, longest, &leaf), deep.clone(), false);
        let k = MAX_DEPTH_LIMIT - 1;
        let pair = format!(
            "[{}{},{}0{}]",
            "[".repeat(k),
            "]".repeat(k),
            "[".repeat(k),
            "]".repeat(k)
        );
        let leaf = r#"{"uniqueItems":true,"items":true}"#;
        let what = format!("{keyword} chain of {longest} to uniqueItems");
        validate_on_small_stack(&what, chain(keyword, longest, leaf), pair, false);
    }
    // Recursive schemas, through an alternative and items or members at every level, over
    // every document nested to the deepest `max_depth`.
    let recursive = r##"{"$defs": {"N": {"anyOf": [
        {"type": "array", "items": {"$ref": "#/$defs/N"}},
        {"type": "object", "additionalProperties": {"$ref": "#/$defs/N"}},
        {"type": ["null", "number", "string", "boolean"]}]}},
      "$ref": "#/$defs/N"}"##;
    for (kind, text) in documents() {
        validate_on_small_stack(kind, recursive.into(), text, true);
    }
    // pydantic's recursive model with an optional child: a property, an `anyOf` alternative
    // and a `$ref` per level, so 127 levels validate and 128 are refused.
    let tree = r##"{"$defs":{"N":{"type":"object","properties":{"c":{"anyOf":[{"$ref":"#/$defs/N"},{"type":"null"}]}}}},
        "$ref":"#/$defs/N"}"##;
    let nest = |n: usize| format!("{}null{}", r#"{"c":"#.repeat(n), "}".repeat(n));
    validate_on_small_stack("tree of 127", tree.into(), nest(127), false);
    validate_on_small_stack("tree of 128", tree.into(), nest(128), true);
    // An array schema nested as deep as compilation allows, over a value as deep.
    let depth = actionseal_core::schema::MAX_SCHEMA_DEPTH;
    let items = |d: usize| format!("{}{{}}{}", r#"{"items":"#.repeat(d), "}".repeat(d));
    let arrays = |d: usize| format!("{}{}", "[".repeat(d), "]".repeat(d));
    validate_on_small_stack("nested items", items(depth), arrays(depth), false);
}

/// Compilation at `MAX_SCHEMA_DEPTH` (128) through every keyword that nests a schema: each
/// nested as deep as a document allows (`items` and `additionalProperties` to the limit, the
/// others, two document levels a schema, to 127), and one schema past the limit refused with
/// `unsupported_schema` at that schema; then the deepest schema with the costliest leaves: a
/// `const` filling the rest of the document's depth, and a pattern with groups nested as deep
/// as patterns allow (one deeper refused).
#[test]
fn schema_compilation_fits_a_small_stack() {
    let limit = actionseal_core::schema::MAX_SCHEMA_DEPTH;
    let nested = |open: &str, close: &str, d: usize, leaf: &str| {
        format!("{}{leaf}{}", open.repeat(d), close.repeat(d))
    };
    let items = |d: usize, leaf: &str| nested(r#"{"items":"#, "}", d, leaf);
    let edges = [
        (r#"{"items":"#, "}", "/items", 1),
        (
            r#"{"additionalProperties":"#,
            "}",
            "/additionalProperties",
            1,
        ),
        (r#"{"properties":{"a":"#, "}}", "/properties/a", 2),
        (r#"{"prefixItems":["#, "]}", "/prefixItems/0", 2),
        (r#"{"anyOf":["#, "]}", "/anyOf/0", 2),
        (r#"{"oneOf":["#, "]}", "/oneOf/0", 2),
        (r#"{"allOf":["#, "]}", "/allOf/0", 2),
        (r#"{"$defs":{"a":"#, "}}", "/$defs/a", 2),
    ];
    for (open, close, token, levels) in edges {
        let deepest = limit.min((MAX_DEPTH_LIMIT - 1) / levels);
        compile_on_small_stack(token, nested(open, close, deepest, "{}"), None);
        let last = nested(open, close, 1, "{}");
        compile_on_small_stack(token, items(limit - 1, &last), None);
        let past = items(limit, &last);
        let at = format!("{}{token}", "/items".repeat(limit));
        compile_on_small_stack(token, past, Some(at));
    }
    // The deepest schema ending in a `const` as deep as the rest of the document allows.
    let rest = MAX_DEPTH_LIMIT - limit;
    let constant = format!(r#"{{"const":{}}}"#, nested("[", "]", rest - 2, ""));
    compile_on_small_stack("deep const", items(limit, &constant), None);
    // ... and in a pattern with 32 nested groups; 33 are refused.
    let pattern = |groups: usize| {
        let p = format!("{}a{}", "(".repeat(groups), ")".repeat(groups));
        items(limit, &format!(r#"{{"pattern":"{p}"}}"#))
    };
    compile_on_small_stack("deep pattern", pattern(32), None);
    let at = format!("{}/pattern", "/items".repeat(limit));
    compile_on_small_stack("deeper pattern", pattern(33), Some(at));
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
