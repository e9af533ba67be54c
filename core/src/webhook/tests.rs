use super::*;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn hmac_is_rfc_4231() {
    // RFC 4231 section 4.2 (test case 1) and 4.3 (test case 2).
    assert_eq!(
        hex(&hmac_sha256(&[0x0b; 20], &[b"Hi There"])),
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    );
    assert_eq!(
        hex(&hmac_sha256(
            b"Jefe",
            &[b"what do ya ", b"want for nothing?"]
        )),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
}

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

#[test]
fn a_signature_verifies_once_and_only_as_sent() {
    let body = br#"{"task_id":"task_1"}"#;
    let s = sign(SECRET, "msg_1", 1_674_087_231_999, body).unwrap();
    assert_eq!(s.timestamp, "1674087231");
    let headers = s.headers();
    let now = 1_674_087_231_000;
    assert_eq!(verify(SECRET, &headers, body, now, 0).unwrap(), "msg_1");
    // One byte of the body, the id or the time changed: refused.
    let code =
        |h: &[(&str, &str)], b: &[u8], now| verify(SECRET, h, b, now, 1000).unwrap_err().code();
    assert_eq!(
        code(&headers, br#"{"task_id":"task_2"}"#, now),
        Code::WebhookUnverified
    );
    let mut other = headers;
    other[0].1 = "msg_2";
    assert_eq!(code(&other, body, now), Code::WebhookUnverified);
    let mut other = headers;
    other[1].1 = "1674087232";
    assert_eq!(code(&other, body, now), Code::WebhookUnverified);
    // Old or early by more than the tolerance, by the verifier's clock.
    assert_eq!(code(&headers, body, now + 1001), Code::WebhookUnverified);
    assert_eq!(code(&headers, body, now - 1001), Code::WebhookUnverified);
    assert!(verify(SECRET, &headers, body, now + 1000, 1000).is_ok());
}
