//! `actionseal key`: generate, sign and verify end to end, exit statuses, and every signed
//! `verify` vector through the command line with its code.

mod common;

use actionseal_conformance::vectors;
use common::{example, run, temp_dir, write};

#[test]
fn generate_sign_verify_and_check() {
    let dir = temp_dir("key-flow");
    let private = dir.join("service.jwk").display().to_string();
    let out = run(&["key", "generate", "--out", &private], b"");
    assert!(out.status.success());
    let public: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(public.get("d").is_none(), "the public JWK never holds d");
    let kid = public["kid"].as_str().unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&private).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // Never overwritten.
    let again = run(&["key", "generate", "--out", &private], b"");
    assert_eq!(again.status.code(), Some(74));

    let keys = write(
        &dir.join("keys.json"),
        &format!(r#"{{"service_keys":{{"{kid}":{{"key":{public}}}}}}}"#),
    );
    let signed = run(
        &["key", "sign", "--key", &private, &example("approval.json")],
        b"",
    );
    assert!(
        signed.status.success(),
        "{}",
        String::from_utf8_lossy(&signed.stderr)
    );
    // stdin gives the same envelope (Ed25519 is deterministic).
    let record = std::fs::read(example("approval.json")).unwrap();
    assert_eq!(
        run(&["key", "sign", "--key", &private], &record).stdout,
        signed.stdout
    );
    let envelope = write(
        &dir.join("envelope.json"),
        &String::from_utf8(signed.stdout).unwrap(),
    );

    let verified = run(&["key", "verify", "--keys", &keys, &envelope], b"");
    assert!(verified.status.success());
    let v: serde_json::Value = serde_json::from_slice(&verified.stdout).unwrap();
    assert_eq!(v["signer"]["keyid"], kid);
    assert_eq!(v["approval"]["approver"], "user:bob");

    // The permit check with a context that requires proof: signed permits, bare rejects.
    let mut context: serde_json::Value =
        serde_json::from_slice(&std::fs::read(example("context.json")).unwrap()).unwrap();
    let key_set: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&keys).unwrap()).unwrap();
    context["proof"] = serde_json::json!({"required": true, "keys": key_set});
    let context = write(&dir.join("context.json"), &context.to_string());
    let action = example("action.json");
    let ok = run(
        &[
            "check",
            "--approval",
            &envelope,
            "--action",
            &action,
            "--context",
            &context,
        ],
        b"",
    );
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );
    let bare = run(
        &[
            "check",
            "--approval",
            &example("approval.json"),
            "--action",
            &action,
            "--context",
            &context,
        ],
        b"",
    );
    assert_eq!(bare.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&bare.stdout).contains(r#""reasons":["proof_missing"]"#));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_keys_and_records_exit_2() {
    let dir = temp_dir("key-bad");
    let not_a_key = write(
        &dir.join("k.json"),
        r#"{"kty":"OKP","crv":"X25519","x":"AA"}"#,
    );
    let out = run(
        &[
            "key",
            "sign",
            "--key",
            &not_a_key,
            &example("approval.json"),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: invalid_key: "));
    let seed = write(&dir.join("seed.json"), &format!("\"{}\"", "A".repeat(43)));
    let tampered = std::fs::read_to_string(example("approval.json"))
        .unwrap()
        .replace("2500", "2600");
    let out = run(&["key", "sign", "--key", &seed], tampered.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: invalid_approval: "));
    let keys = write(
        &dir.join("keys.json"),
        r#"{"service_keys":{"x":{"key":"AA"}}}"#,
    );
    let out = run(&["key", "verify", "--keys", &keys], b"{}");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(run(&["key", "sign"], b"").status.code(), Some(64));
    assert_eq!(run(&["key"], b"").status.code(), Some(64));
    assert!(run(&["key", "verify", "--help"], b"").status.success());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_signed_verify_vector_through_the_command_line() {
    let dir = temp_dir("key-vectors");
    let mut n = 0;
    for v in vectors("signed") {
        if v.doc["op"] != "verify" {
            continue;
        }
        let keys = write(&dir.join("keys.json"), v.doc["keys"].as_str().unwrap());
        let at = v.doc["at"].as_i64().unwrap().to_string();
        let out = run(
            &["key", "verify", "--keys", &keys, "--at", &at],
            v.doc["approval"].as_str().unwrap().as_bytes(),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        match v.doc["expect"].get("error").and_then(|e| e.as_str()) {
            None => assert!(out.status.success(), "{}: {stderr}", v.name),
            Some(code) => {
                let want = if v.name.contains("key_set") { 2 } else { 4 };
                assert_eq!(out.status.code(), Some(want), "{}: {stderr}", v.name);
                assert!(
                    stderr.starts_with(&format!("error: {code}: ")),
                    "{}: {stderr}",
                    v.name
                );
                n += 1;
            }
        }
    }
    assert!(n >= 20);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Without `--at`, a key is judged at this machine's clock: a key retired in 2025 no longer
/// verifies a record dated before its retirement.
#[test]
fn verify_judges_keys_at_the_clock_by_default() {
    let dir = temp_dir("key-clock");
    let v = vectors("signed")
        .into_iter()
        .find(|v| v.name == "n_key_outside_window_backdated")
        .unwrap();
    let keys = write(&dir.join("keys.json"), v.doc["keys"].as_str().unwrap());
    let approval = v.doc["approval"].as_str().unwrap().as_bytes();
    let out = run(&["key", "verify", "--keys", &keys], approval);
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: key_outside_window: "));
    let before = (v.doc["at"].as_i64().unwrap() - 600_000 - 1).to_string();
    let out = run(
        &["key", "verify", "--keys", &keys, "--at", &before],
        approval,
    );
    assert!(out.status.success());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_demo_refuses_forged_approvals_and_permits_a_signed_one() {
    let out = run(&["demo"], b"");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "service-signed decision          PERMIT",
        "forged: a bare record            REJECT    proof_missing",
        "forged: signed by an unknown key REJECT    key_untrusted",
        "signed, then edited in transit   REJECT    proof_invalid",
        "key may sign for user:carol only REJECT    signer_not_allowed",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}
