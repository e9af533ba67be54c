//! The hash reader's direct decoder against the general base64 decoder: the same hash for
//! every text of the shape a hash's text has and of every one-character change to it, and
//! the general reader's error for everything else.

use super::*;

/// What `read` gave before the direct decoder: the general decoder, then the length.
fn general(text: &str) -> Result<Hash> {
    let bytes = b64::decode(text).map_err(|e| e.with_code(Code::InvalidBatch))?;
    Hash::try_from(bytes.as_slice())
        .map_err(|_| Error::new(Code::InvalidBatch, "a hash has 32 bytes"))
}

fn same(text: &[u8]) {
    if let Some(hash) = decode_hash(text) {
        let t = std::str::from_utf8(text).expect("decoded text is ASCII");
        assert_eq!(general(t).ok(), Some(hash), "{t:?}");
    }
    let Ok(t) = std::str::from_utf8(text) else {
        return;
    };
    let read = read(&Value::String(t.into()), Code::InvalidBatch);
    match (read, general(t)) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{t:?}"),
        (Err(a), Err(b)) => assert_eq!(
            (a.code(), a.message(), a.offset()),
            (b.code(), b.message(), b.offset()),
            "{t:?}"
        ),
        (a, b) => panic!("{t:?}: {a:?} against {b:?}"),
    }
}

/// Hashes whose texts use every character in every position, and both ends.
fn hashes() -> Vec<Hash> {
    let mut all = vec![[0u8; 32], [0xFF; 32]];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..64 {
        let mut h = [0u8; 32];
        for b in &mut h {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        all.push(h);
    }
    all
}

#[test]
fn every_hash_text_is_decoded_directly() {
    for h in hashes() {
        let text = b64::encode(&h);
        assert_eq!(decode_hash(text.as_bytes()), Some(h), "{text}");
    }
}

#[test]
fn every_one_byte_change_reads_as_the_general_decoder_reads_it() {
    for h in hashes().into_iter().take(8) {
        let text = b64::encode(&h).into_bytes();
        for at in 0..text.len() {
            for byte in 0..=255u8 {
                let mut t = text.clone();
                t[at] = byte;
                same(&t);
            }
        }
    }
}

#[test]
fn other_lengths_read_as_the_general_decoder_reads_them() {
    for h in hashes().into_iter().take(4) {
        let text = b64::encode(&h);
        for n in 0..text.len() {
            same(&text.as_bytes()[..n]);
        }
        for tail in ["=", "A", "A=", "AAAA", "===="] {
            same(format!("{text}{tail}").as_bytes());
        }
        // The other sizes a hash's bytes may wrongly have.
        for len in [0, 1, 31, 33, 48] {
            same(b64::encode(&vec![h[0]; len]).as_bytes());
        }
    }
}
