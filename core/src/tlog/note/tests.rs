use super::*;

// golang.org/x/mod/sumdb/note's test keys and note (note_test.go).
const PETER_SKEY: &str =
    "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const PETER_VKEY: &str = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const ENOCH_VKEY: &str = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop";
const TEXT: &str = "If you think cryptography is the answer to your problem,\n\
                    then you don't know what your problem is.\n";
const PETER_SIG: &str = "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
const ENOCH_SIG: &str = "— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n";

fn vkey(text: &str) -> VerifierKey {
    VerifierKey::parse(text).unwrap()
}

fn note(parts: &[&str]) -> Note {
    Note::parse(parts.concat().as_bytes()).unwrap()
}

#[test]
fn signs_as_go_does() {
    let signer = SignerKey::parse(PETER_SKEY).unwrap();
    assert_eq!(signer.id(), 0xc74f20a3);
    assert_eq!(signer.verifier().to_string(), PETER_VKEY);
    assert_eq!(signer.to_secret_string(), PETER_SKEY);
    let signed = Note::signed(TEXT, &signer).unwrap();
    assert_eq!(signed.to_string(), [TEXT, "\n", PETER_SIG].concat());
    assert_eq!(format!("{signer:?}"), "SignerKey(PeterNeumann+c74f20a3)");
}

#[test]
fn verifies_known_keys_and_ignores_unknown_ones() {
    let both = note(&[TEXT, "\n", PETER_SIG, ENOCH_SIG]);
    assert_eq!(both.text(), TEXT);
    let peter = [vkey(PETER_VKEY)];
    let verified = both.verify(&peter).unwrap();
    assert_eq!(verified.len(), 1);
    assert_eq!(verified[0].key.name(), "PeterNeumann");
    assert_eq!(verified[0].timestamp, None);
    let keys = [vkey(PETER_VKEY), vkey(ENOCH_VKEY)];
    assert_eq!(both.verify(&keys).unwrap().len(), 2);
    let e = both.verify(&[]).unwrap_err();
    assert_eq!(e.code(), Code::CheckpointUntrusted);
    assert_eq!(
        both.to_string(),
        [TEXT, "\n", PETER_SIG, ENOCH_SIG].concat()
    );
}

#[test]
fn the_c2sp_example_verifies() {
    // c2sp.org/signed-note, "Example".
    let key = vkey("example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k");
    let n = note(&[
        "This is an example message.\n\n",
        "— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n",
    ]);
    assert_eq!(n.verify(std::slice::from_ref(&key)).unwrap()[0].key, &key);
}

#[test]
fn a_known_key_with_a_bad_signature_refuses_the_note() {
    // Go's "Invalid signature": four characters inserted into Peter's signature.
    let bad = [&PETER_SIG[..60], "ABCD", &PETER_SIG[60..]].concat();
    let n = note(&[TEXT, "\n", ENOCH_SIG, &bad]);
    let keys = [vkey(PETER_VKEY), vkey(ENOCH_VKEY)];
    let e = n.verify(&keys).unwrap_err();
    assert_eq!(e.code(), Code::CheckpointUntrusted);
    assert_eq!(e.path(), "/signatures/1");
    // Another text under the same signature.
    let n = note(&["If you think\n\n", PETER_SIG]);
    assert_eq!(n.verify(&keys).unwrap_err().path(), "/signatures/0");
    // Same name, other key ID: not the known key, so ignored.
    let other = PETER_SIG.replace("x08g", "x08h");
    let n = note(&[TEXT, "\n", &other, ENOCH_SIG]);
    assert_eq!(n.verify(&keys).unwrap().len(), 1);
}

#[test]
fn malformed_notes_are_refused_where_they_go_wrong() {
    let long = [TEXT, "\n", &PETER_SIG.repeat(MAX_SIGNATURES + 1)].concat();
    let cases: [(String, usize); 11] = [
        (TEXT.to_owned(), TEXT.len()),           // no signatures
        ([TEXT, "\n"].concat(), TEXT.len() + 1), // blank line only
        (
            [TEXT, "\n", PETER_SIG.trim_end()].concat(),
            TEXT.len() + 1 + PETER_SIG.len() - 1,
        ),
        (["\u{1}", TEXT, "\n", PETER_SIG].concat(), 0), // control character
        ([TEXT, "\r\n", PETER_SIG].concat(), TEXT.len()), // CR
        (
            [TEXT, "\n", "— Bad Name x08g\n"].concat(),
            TEXT.len() + 1 + 12,
        ),
        (
            [TEXT, "\n", PETER_SIG, "Unexpected line.\n"].concat(),
            TEXT.len() + 1 + PETER_SIG.len(),
        ),
        (
            [TEXT, "\n", "— PeterNeumann AAAA\n"].concat(),
            TEXT.len() + 1 + 17,
        ), // 3 bytes
        // Non-canonical base64: '=' dropped, and unused bits set.
        (
            [TEXT, "\n", &PETER_SIG.replace("AM=", "AM")].concat(),
            TEXT.len() + PETER_SIG.len() - 1,
        ),
        (
            [TEXT, "\n", &PETER_SIG.replace("AM=", "AN=")].concat(),
            TEXT.len() + PETER_SIG.len() - 2,
        ),
        (long, TEXT.len() + 1 + MAX_SIGNATURES * PETER_SIG.len()),
    ];
    for (input, offset) in cases {
        let e = Note::parse(input.as_bytes()).unwrap_err();
        assert_eq!(e.code(), Code::CheckpointInvalid, "{input:?}");
        assert_eq!(e.offset(), Some(offset), "{input:?}: {e}");
    }
    let e =
        Note::parse(&[b"\xff", TEXT.as_bytes(), b"\n", PETER_SIG.as_bytes()].concat()).unwrap_err();
    assert_eq!((e.code(), e.offset()), (Code::CheckpointInvalid, Some(0)));
    let mut n = note(&[TEXT, "\n", &PETER_SIG.repeat(MAX_SIGNATURES)]);
    let one = n.signatures()[0].clone();
    assert_eq!(n.push(one).unwrap_err().code(), Code::CheckpointInvalid);
}

#[test]
fn mangled_key_strings_are_refused() {
    // As Go's TestNewVerifier / TestNewSigner: every proper substring, every byte + 1.
    for key in [PETER_VKEY, PETER_SKEY] {
        let parse = |k: &str| {
            if k.starts_with("PRIVATE") {
                SignerKey::parse(k).map(|_| ())
            } else {
                VerifierKey::parse(k).map(|_| ())
            }
        };
        assert!(parse(key).is_ok());
        let b = key.as_bytes();
        for i in 0..b.len() {
            for j in i + 1..=b.len() {
                if (i, j) != (0, b.len()) {
                    let e = parse(&key[i..j]).unwrap_err();
                    assert_eq!(e.code(), Code::CheckpointInvalid, "{:?}", &key[i..j]);
                }
            }
            let mut m = b.to_vec();
            m[i] += 1;
            let m = String::from_utf8(m).unwrap();
            assert!(parse(&m).is_err(), "{m:?}");
        }
    }
    // Go's: a wrong-length key and an unknown type, each with a matching key ID.
    for bad in [
        "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==",
        "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
    ] {
        assert_eq!(
            VerifierKey::parse(bad).unwrap_err().code(),
            Code::CheckpointInvalid
        );
    }
    // A signer key string is never a verifier key, nor the reverse.
    assert!(VerifierKey::parse(PETER_SKEY).is_err());
    assert!(SignerKey::parse(&["PRIVATE+KEY+", PETER_VKEY].concat()).is_err());
}

#[test]
fn generated_keys_sign_and_verify() {
    let (skey, vkey_text) = generate_key("log.example/a", &[7; 32]).unwrap();
    let signer = SignerKey::parse(&skey).unwrap();
    let key = vkey(&vkey_text);
    assert_eq!(signer.verifier(), key);
    let n = Note::signed("hello\n", &signer).unwrap();
    let read = Note::parse(n.to_string().as_bytes()).unwrap();
    assert_eq!(read, n);
    assert_eq!(read.verify(&[key]).unwrap().len(), 1);
    for name in ["", "a b", "a+b", "a\u{a0}b"] {
        assert_eq!(
            generate_key(name, &[7; 32]).unwrap_err().code(),
            Code::CheckpointInvalid
        );
    }
    for text in ["no newline", "cr\r\n", ""] {
        assert_eq!(
            signer.sign(text).unwrap_err().code(),
            Code::CheckpointInvalid
        );
    }
}
