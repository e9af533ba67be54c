use super::*;

#[test]
fn rfc_4648_test_vectors_in_both_alphabets() {
    // RFC 4648 section 10, padded in the standard form and not in the url form.
    let cases: [(&[u8], &str); 9] = [
        (b"", ""),
        (b"f", "Zg=="),
        (b"fo", "Zm8="),
        (b"foo", "Zm9v"),
        (b"foob", "Zm9vYg=="),
        (b"fooba", "Zm9vYmE="),
        (b"foobar", "Zm9vYmFy"),
        (&[0xfb, 0xff, 0xbf], "+/+/"),
        (&[0xfb, 0xff], "+/8="),
    ];
    for (bytes, padded) in cases {
        assert_eq!(standard::encode(bytes), padded);
        assert_eq!(standard::decode(padded).unwrap(), bytes);
        let unpadded = padded
            .trim_end_matches('=')
            .replace('+', "-")
            .replace('/', "_");
        assert_eq!(url::encode(bytes), unpadded);
        assert_eq!(url::decode(&unpadded).unwrap(), bytes);
    }
}

#[test]
fn every_other_spelling_is_refused() {
    for (text, offset) in [
        ("Zg==", Some(2)),    // padding
        ("Zm9v Zg", Some(4)), // whitespace
        ("+/+/", Some(0)),    // standard alphabet
        ("Zh", Some(1)),      // unused bits set: "Zg" is the one spelling of "f"
        ("Zm9", Some(2)),     // ditto for two bytes
        ("Z", None),          // one character cannot hold a byte
        ("Zm9vY", None),
    ] {
        let e = url::decode(text).unwrap_err();
        assert_eq!(e.code(), Code::InvalidBase64, "{text:?}");
        assert_eq!(e.offset(), offset, "{text:?}");
    }
}

#[test]
fn round_trips_every_length_and_byte() {
    let bytes: Vec<u8> = (0..=255u8).rev().collect();
    for n in 0..bytes.len() {
        let text = url::encode(&bytes[..n]);
        assert_eq!(url::decode(&text).unwrap(), &bytes[..n]);
    }
}

#[test]
fn encodes_every_length_as_six_bits_at_a_time_would() {
    // A reference that takes the bits one sextet at a time, against the encoder's groups of
    // six and of three bytes and its short tail, at every length and alignment.
    let reference = |bytes: &[u8], alphabet: &[u8; 64]| -> String {
        let bits = bytes.len() * 8;
        (0..bits.div_ceil(6))
            .map(|i| {
                let sextet = (0..6).fold(0, |n, j| {
                    let bit = i * 6 + j;
                    let set = bit < bits && bytes[bit / 8] & (0x80 >> (bit % 8)) != 0;
                    n << 1 | usize::from(set)
                });
                char::from(alphabet[sextet])
            })
            .collect()
    };
    let bytes: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(157) ^ 0xA5).collect();
    for n in 0..bytes.len() {
        assert_eq!(
            url::encode(&bytes[..n]),
            reference(&bytes[..n], URL_ALPHABET)
        );
        let mut padded = reference(&bytes[..n], STANDARD_ALPHABET);
        padded.extend(std::iter::repeat_n('=', (4 - padded.len() % 4) % 4));
        assert_eq!(standard::encode(&bytes[..n]), padded);
    }
}

#[test]
fn exactly_the_alphabet_decodes_in_each_place() {
    // Each byte as each character of a full group and of a short last group: accepted exactly
    // when in the alphabet, refused at its own offset otherwise.
    for c in 0..=127u8 {
        for (text, at) in [
            (vec![c, b'A', b'A', b'A'], 0),
            (vec![b'A', b'A', b'A', c], 3),
            (vec![b'A', b'A', b'A', b'A', b'A', c], 5),
            (vec![b'A', b'A', b'A', b'A', c, b'A', b'A'], 4),
        ] {
            let text = String::from_utf8(text).unwrap();
            match url::decode(&text) {
                Ok(_) => assert!(URL_ALPHABET.contains(&c), "{text:?}"),
                // Unused bits set in a short last group are refused at its last character.
                Err(e) => assert!(
                    !URL_ALPHABET.contains(&c) && e.offset() == Some(at)
                        || e.offset() == Some(text.len() - 1) && at == text.len() - 1,
                    "{text:?}: {e:?}"
                ),
            }
        }
    }
}

#[test]
fn every_other_standard_spelling_is_refused() {
    for (text, offset) in [
        ("Zg", Some(2)),       // padding missing
        ("Zg=", Some(3)),      // padding short
        ("Zg===", Some(5)),    // padding long
        ("Z===", Some(1)),     // three '=': a character that holds no byte
        ("====", Some(0)),     // padding alone
        ("Zg==Zg==", Some(2)), // padding in the middle
        ("Zm9v\nZg==", Some(4)),
        ("-_-_", Some(0)), // url alphabet
        ("Zh==", Some(1)), // unused bits set: "Zg==" is the one spelling of "f"
        ("Zm9=", Some(2)),
    ] {
        let e = standard::decode(text).unwrap_err();
        assert_eq!(e.code(), Code::InvalidBase64, "{text:?}");
        assert_eq!(e.offset(), offset, "{text:?}: {e}");
    }
}

#[test]
fn standard_round_trips_every_length_and_byte() {
    let bytes: Vec<u8> = (0..=255u8).collect();
    for n in 0..bytes.len() {
        let text = standard::encode(&bytes[..n]);
        assert_eq!(text.len() % 4, 0);
        assert_eq!(standard::decode(&text).unwrap(), &bytes[..n]);
    }
}
