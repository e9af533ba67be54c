use super::*;

#[test]
fn groups_the_first_sixteen_hex_digits() {
    let d = Digest::of(b"abc").to_string();
    assert_eq!(short_fingerprint(&d).unwrap(), "ba78 16bf 8f01 cfea");
    assert_eq!(
        short_fingerprint("sha256:xyz").unwrap_err().code(),
        crate::Code::InvalidDigest
    );
}
