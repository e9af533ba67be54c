//! The `actionseal` command end to end: exact output bytes, stdin and files, exit codes, and
//! every rejected conformance vector reported as `error: <code>: ...` with exit status 2.

mod common;

use actionseal_conformance::canon_vectors;
use common::{example, run, temp_dir};

#[test]
fn canon_writes_exactly_the_canonical_bytes() {
    let out = run(&["canon", &example("action.json")], b"");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("{\"args\":{\"amount_minor\":2500,"));
    assert!(!text.ends_with('\n'));
    // stdin, absent or `-`, gives the same bytes.
    let input = std::fs::read(example("action.json")).unwrap();
    assert_eq!(run(&["canon"], &input).stdout, text.as_bytes());
    assert_eq!(run(&["canon", "-"], &input).stdout, text.as_bytes());
}

#[test]
fn digest_is_the_sha256_of_the_canon_output() {
    let canon = run(&["canon", &example("action.json")], b"").stdout;
    let digest = String::from_utf8(run(&["digest", &example("action.json")], b"").stdout).unwrap();
    let want = format!("{}\n", actionseal_core::Digest::of(&canon));
    assert_eq!(digest, want);
    assert_eq!(digest.len(), "sha256:".len() + 64 + 1);
}

#[test]
fn every_rejected_vector_exits_2_with_its_code() {
    let mut n = 0;
    for v in canon_vectors() {
        for profile in ["strict", "rfc8785"] {
            let expected = &v.doc[profile];
            let out = run(&["canon", "--profile", profile], &v.input());
            match expected.get("error").and_then(|e| e.as_str()) {
                Some(code) => {
                    assert_eq!(out.status.code(), Some(2), "{} {profile}", v.name);
                    let err = String::from_utf8(out.stderr).unwrap();
                    assert!(
                        err.starts_with(&format!("error: {code}: ")),
                        "{}: {err}",
                        v.name
                    );
                    assert!(out.stdout.is_empty());
                    n += 1;
                }
                None => {
                    assert!(out.status.success(), "{} {profile}", v.name);
                    assert_eq!(
                        out.stdout,
                        expected["canonical"].as_str().unwrap().as_bytes()
                    );
                }
            }
        }
    }
    assert!(n > 80);
}

#[test]
fn profile_changes_number_handling() {
    let out = run(&["canon", "--profile=rfc8785"], b"[9007199254740993]");
    assert_eq!(out.stdout, b"[9007199254740992]");
    let out = run(&["digest"], b"[9007199254740993]");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .starts_with("error: inexact_number: "));
}

#[test]
fn limits_are_options() {
    let out = run(&["canon", "--max-bytes", "4"], b"[1,2,3]");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .starts_with("error: size_limit_exceeded: "));
    let out = run(&["canon", "--max-depth=1"], b"[[1]]");
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .starts_with("error: depth_limit_exceeded: "));
    // An endless stream is cut off at the limit rather than read to the end.
    let big = vec![b' '; 1 << 20];
    assert_eq!(
        run(&["canon", "--max-bytes", "100"], &big).status.code(),
        Some(2)
    );
}

#[test]
fn usage_and_io_errors() {
    assert_eq!(run(&["frobnicate"], b"").status.code(), Some(64));
    assert_eq!(run::<&str>(&[], b"").status.code(), Some(64));
    assert_eq!(
        run(&["canon", "--profile", "loose"], b"1").status.code(),
        Some(64)
    );
    assert_eq!(run(&["canon", "a", "b"], b"").status.code(), Some(64));
    assert_eq!(
        run(&["canon", "/nonexistent/x.json"], b"").status.code(),
        Some(74)
    );
    assert!(run(&["--help"], b"").status.success());
    assert!(run(&["--version"], b"").status.success());
    // A command that does not exist is a usage error, even when asked for its help.
    let out = run(&["frobnicate", "--help"], b"");
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("frobnicate"));
    // Each command has its own help.
    let out = run(&["check", "--help"], b"");
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(
        help.contains("--approval") && !help.contains("--profile"),
        "{help}"
    );
    // Shell completions name every command.
    let out = run(&["completions", "bash"], b"");
    assert!(out.status.success());
    let script = String::from_utf8(out.stdout).unwrap();
    for command in ["canon", "digest", "check", "demo"] {
        assert!(script.contains(command), "{command}");
    }
}

#[test]
fn check_never_rounds() {
    // A check reads everything with the strict profile: asking for rfc8785 is refused, not
    // silently ignored.
    let out = run(
        &[
            "check",
            "--profile",
            "rfc8785",
            "--action",
            &example("action.json"),
            "--context",
            &example("context.json"),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("strict profile only"));
}

#[test]
fn arbitrary_bytes_never_crash() {
    // SplitMix64 over a fixed seed: varied, repeatable inputs.
    let mut s: u64 = 7;
    let mut next = || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let alphabet = b"{}[]\",:\\u0123456789abcdefeE+-.tnrl \x00\xff\xed\xa0";
    for _ in 0..200 {
        let len = (next() % 40) as usize;
        let input: Vec<u8> = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        let out = run(&["canon"], &input);
        let code = out.status.code();
        assert!(code == Some(0) || code == Some(2), "{input:?} -> {code:?}");
        if code == Some(2) {
            assert!(String::from_utf8(out.stderr)
                .unwrap()
                .starts_with("error: "));
        }
    }
}

#[test]
fn check_prints_the_verdict_and_exits_by_outcome() {
    let (approval, action, context) = (
        example("approval.json"),
        example("action.json"),
        example("context.json"),
    );
    let out = run(
        &[
            "check",
            "--approval",
            &approval,
            "--action",
            &action,
            "--context",
            &context,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    let verdict = String::from_utf8(out.stdout).unwrap();
    assert!(verdict.contains("\"outcome\":\"permit\""), "{verdict}");
    assert!(verdict.ends_with("}\n"));

    let drifted = example("action-drifted.json");
    let out = run(
        &[
            "check",
            "--approval",
            &approval,
            "--action",
            &drifted,
            "--context",
            &context,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(4));
    let verdict = String::from_utf8(out.stdout).unwrap();
    assert!(
        verdict.contains("\"drift\":[\"/args/amount_minor\"]"),
        "{verdict}"
    );

    let out = run(&["check", "--action", &action, "--context", &context], b"");
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("\"reasons\":[\"no_approval\"]"));
}

#[test]
fn check_reports_bad_input_with_the_file() {
    let dir = temp_dir("cli-bad-input");
    let bad = dir.join("dup.json");
    std::fs::write(&bad, br#"{"a":1,"a":2}"#).unwrap();
    let out = run(
        &[
            "check",
            "--action",
            bad.to_str().unwrap(),
            "--context",
            &example("context.json"),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: duplicate_key: ") && err.contains("dup.json"),
        "{err}"
    );
    // A context that is not well-formed is bad input, not a verdict.
    let ctx = dir.join("ctx.json");
    std::fs::write(&ctx, br#"{"now":"soon"}"#).unwrap();
    let out = run(
        &[
            "check",
            "--action",
            &example("action.json"),
            "--context",
            ctx.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .starts_with("error: invalid_context: "));
    assert_eq!(
        run(&["check", "--context", &example("context.json")], b"")
            .status
            .code(),
        Some(64)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn demo_tells_the_story() {
    let out = run(&["demo"], b"");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "the same action                  PERMIT",
        "amount 2500 -> 2600              REJECT    action_drift  drift /args/amount_minor",
        "dispatched at 10:30 sharp        REAPPROVE expired",
        "budget_exceeded",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}
