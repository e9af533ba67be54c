//! `actionseal delegation`: sign, verify and digest end to end, and exit statuses.

mod common;

use common::{run, temp_dir, write};

const DOCUMENT: &str = r#"{"delegation_id": "dlg-1", "delegator": "user:carol",
  "delegate": "user:dave", "tenant": "tenant-a", "tools": ["refund_create"],
  "when": [{"pointer": "/args/amount_minor", "op": "lte", "value": 50000}],
  "not_before": 1764500000000, "not_after": 1765000000000}"#;

#[test]
fn sign_verify_and_digest() {
    let dir = temp_dir("delegation-flow");
    let private = dir.join("service.jwk").display().to_string();
    let out = run(&["key", "generate", "--out", &private], b"");
    assert!(out.status.success());
    let public: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kid = public["kid"].as_str().unwrap();

    let signed = run(
        &["delegation", "sign", "--key", &private],
        DOCUMENT.as_bytes(),
    );
    assert!(
        signed.status.success(),
        "{}",
        String::from_utf8_lossy(&signed.stderr)
    );
    let envelope: serde_json::Value = serde_json::from_slice(&signed.stdout).unwrap();
    assert_eq!(
        envelope["payloadType"],
        "application/vnd.actionseal.delegation+json"
    );
    let link = write(
        &dir.join("link.json"),
        &String::from_utf8_lossy(&signed.stdout),
    );

    let digest = run(&["delegation", "digest"], DOCUMENT.as_bytes());
    assert!(digest.status.success());
    let digest = String::from_utf8(digest.stdout).unwrap();
    assert!(digest.starts_with("sha256:") && digest.ends_with('\n'));
    // The document's fingerprint, not the envelope's.
    let fingerprint = run(&["digest"], DOCUMENT.as_bytes());
    assert_eq!(String::from_utf8(fingerprint.stdout).unwrap(), digest);

    let keys = |approver: &str| {
        write(
            &dir.join(format!("keys-{approver}.json")),
            &format!(
                r#"{{"service_keys":{{"{kid}":{{"key":{public},"approvers":["{approver}"]}}}}}}"#
            ),
        )
    };
    let carol = keys("user:carol");
    let at = "1764500600000";
    let out = run(
        &["delegation", "verify", "--keys", &carol, "--at", at, &link],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verified: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(verified["digest"], digest.trim_end());
    assert_eq!(verified["signer"]["keyid"], kid);

    // A key that may not sign for the delegator: refused, 4, with the code.
    let erin = keys("user:erin");
    let out = run(
        &["delegation", "verify", "--keys", &erin, "--at", at, &link],
        b"",
    );
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: signer_not_allowed: "));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_input_and_usage() {
    let dir = temp_dir("delegation-bad");
    let self_delegated = DOCUMENT.replace("user:dave", "user:carol");
    let out = run(&["delegation", "digest"], self_delegated.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: invalid_delegation: "));
    let keys = write(
        &dir.join("keys.json"),
        r#"{"service_keys":{"x":{"key":"AA"}}}"#,
    );
    let out = run(
        &["delegation", "verify", "--keys", &keys],
        DOCUMENT.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(run(&["delegation", "sign"], b"").status.code(), Some(64));
    assert_eq!(run(&["delegation"], b"").status.code(), Some(64));
    assert!(run(&["delegation", "verify", "--help"], b"")
        .status
        .success());
    std::fs::remove_dir_all(dir).unwrap();
}
