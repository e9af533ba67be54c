use super::*;

#[test]
fn known_digest_and_round_trip() {
    let d = Digest::of(b"abc");
    let s = d.to_string();
    assert_eq!(
        s,
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(s.parse::<Digest>().unwrap(), d);
    assert!(digest_equal(&s, &s));
    assert!(!digest_equal(&s, &Digest::of(b"abd").to_string()));
}

#[test]
fn hasher_equals_one_shot_digest_across_chunk_boundaries() {
    let text: String = (0..3 * CHUNK)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    for cut in [
        0,
        1,
        DIRECT - 1,
        DIRECT,
        CHUNK - 1,
        CHUNK,
        CHUNK + 1,
        2 * CHUNK + 7,
    ] {
        let mut h = Hasher::new();
        let (a, b) = text.split_at(cut);
        // Short pieces, and pieces around the length that is hashed directly.
        for (i, piece) in a.as_bytes().chunks(DIRECT - 1).enumerate() {
            let (short, long) = piece.split_at(piece.len().min(5 + i % 3));
            h.put_bytes(short);
            h.put_bytes(long);
        }
        h.put_bytes(b"!");
        h.put_bytes(b.as_bytes());
        assert_eq!(
            h.finish(),
            Digest::of(format!("{a}!{b}").as_bytes()),
            "{cut}"
        );
    }
}

#[test]
fn malformed_digests_are_never_equal() {
    let good = Digest::of(b"").to_string();
    let upper = good.to_uppercase().replace("SHA256", "sha256");
    for bad in [
        "",
        "sha256:",
        &good[..70],
        &format!("{good}0"),
        &good[7..],
        &upper,
        &good.replace("sha256:", "sha512:"),
        &format!("sha256:{}g", &good[7..70]),
        "sha256:ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé",
    ] {
        assert!(!digest_equal(bad, bad), "{bad:?}");
        assert!(!digest_equal(&good, bad), "{bad:?}");
        assert!(bad.parse::<Digest>().is_err(), "{bad:?}");
    }
}

#[test]
fn nibble_accepts_exactly_lowercase_hex() {
    for c in 0..=255u8 {
        let (v, bad) = nibble(c);
        match c {
            b'0'..=b'9' => assert_eq!((v, bad), (c - b'0', 0)),
            b'a'..=b'f' => assert_eq!((v, bad), (c - b'a' + 10, 0)),
            _ => assert_ne!(bad, 0, "{c}"),
        }
    }
}

#[test]
fn a_short_message_padded_here_has_sha256s_digest_at_every_length() {
    use sha2::{Digest as _, Sha256};
    let bytes: Vec<u8> = (0..=200u8).map(|b| b.wrapping_mul(37)).collect();
    for n in 0..=bytes.len() {
        let want: [u8; 32] = Sha256::digest(&bytes[..n]).into();
        assert_eq!(Digest::of(&bytes[..n]).as_bytes(), &want, "{n} bytes");
    }
}
