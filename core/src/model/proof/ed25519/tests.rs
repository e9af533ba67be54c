use super::*;
use crate::parse;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// RFC 8032 section 7.1, TEST 1 to 3: (secret key, public key, message, signature).
const RFC8032: [(&str, &str, &str, &str); 3] = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
];

#[test]
fn rfc_8032_tests_1_to_3_sign_and_verify() {
    for (secret, public, message, signature) in RFC8032 {
        let key = SigningKey::from_seed(hex(secret).as_slice().try_into().unwrap());
        assert_eq!(key.public_key().as_bytes().as_slice(), hex(public));
        assert_eq!(key.sign(&hex(message)).as_slice(), hex(signature));
        let public = PublicKey::from_bytes(&hex(public)).unwrap();
        public.verify(&hex(message), &hex(signature)).unwrap();
        // Any other message fails.
        let e = public.verify(b"x", &hex(signature)).unwrap_err();
        assert_eq!(e.code(), Code::InvalidSignature);
    }
}

#[test]
fn rfc_8037_thumbprint_of_the_test_1_key() {
    // RFC 8037 appendix A.3.
    let key = PublicKey::from_bytes(&hex(RFC8032[0].1)).unwrap();
    assert_eq!(key.keyid(), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
    let jwk = r#"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#;
    let from_jwk = PublicKey::from_value(&parse(jwk.as_bytes(), &Default::default()).unwrap());
    assert_eq!(from_jwk.unwrap().keyid(), key.keyid());
}

#[test]
fn small_order_and_non_canonical_keys_are_refused() {
    // The identity (0, 1) and a point of order 8 (y = 0 encodes (sqrt(-1), 0)... order 4).
    for bytes in [
        hex("0100000000000000000000000000000000000000000000000000000000000000"),
        hex("0000000000000000000000000000000000000000000000000000000000000000"),
        hex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
    ] {
        let e = PublicKey::from_bytes(&bytes).unwrap_err();
        assert_eq!(e.code(), Code::InvalidKey, "{bytes:02x?}");
    }
    // y >= p: each encoding of y + p that decodes at all is refused.
    let mut refused_for_encoding = 0;
    for k in 0u8..19 {
        // p + k, little-endian: p = 2^255 - 19.
        let mut b = [0xffu8; 32];
        b[0] = 0xed + k;
        b[31] = 0x7f;
        if ed25519_dalek::VerifyingKey::from_bytes(&b).is_ok() {
            let e = PublicKey::from_bytes(&b).unwrap_err();
            assert_eq!(e.code(), Code::InvalidKey);
            refused_for_encoding += usize::from(e.message().contains("canonical"));
        }
    }
    assert!(refused_for_encoding > 0);
    assert_eq!(
        PublicKey::from_bytes(&[1; 31]).unwrap_err().code(),
        Code::InvalidKey
    );
}

#[test]
fn a_non_canonical_s_is_refused() {
    let (secret, public, message, signature) = RFC8032[1];
    let key = PublicKey::from_bytes(&hex(public)).unwrap();
    let _ = secret;
    // S + L is the same scalar mod L: lax verifiers accept it.
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut sig = hex(signature);
    let mut carry = 0u16;
    for i in 0..32 {
        let sum = u16::from(sig[32 + i]) + u16::from(L[i]) + carry;
        sig[32 + i] = sum as u8;
        carry = sum >> 8;
    }
    let e = key.verify(&hex(message), &sig).unwrap_err();
    assert_eq!(e.code(), Code::InvalidSignature);
    assert_eq!(
        key.verify(&hex(message), &sig[..63]).unwrap_err().code(),
        Code::InvalidSignature
    );
}

#[test]
fn jwk_forms() {
    let json = |t: &str| {
        parse(t.as_bytes(), &Default::default())
            .unwrap()
            .into_owned()
    };
    let key = SigningKey::from_seed(&[7; 32]);
    // The private JWK reads back; its public half is the public JWK.
    let private = key.to_jwk();
    let again = SigningKey::from_value(&private).unwrap();
    assert_eq!(again.public_key().keyid(), key.public_key().keyid());
    let public = PublicKey::from_value(&key.public_key().to_jwk()).unwrap();
    assert_eq!(public.keyid(), key.public_key().keyid());
    // Raw forms.
    let raw = Value::String(base64url::encode(key.public_key().as_bytes()).into());
    assert_eq!(PublicKey::from_value(&raw).unwrap().keyid(), public.keyid());
    // A private JWK is not a public key.
    let e = PublicKey::from_value(&private).unwrap_err();
    assert_eq!((e.code(), e.path()), (Code::InvalidKey, "/d"));
    // Wrong curve, wrong kid, mismatched x, unknown member.
    let x = base64url::encode(key.public_key().as_bytes());
    for (text, path) in [
        (
            format!(r#"{{"kty":"OKP","crv":"X25519","x":"{x}"}}"#),
            "/crv",
        ),
        (
            format!(r#"{{"kty":"EC","crv":"Ed25519","x":"{x}"}}"#),
            "/kty",
        ),
        (
            format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{x}","kid":"k1"}}"#),
            "/kid",
        ),
        (
            format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{x}","ext":true}}"#),
            "/ext",
        ),
        (
            format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{x}=="}}"#),
            "/x",
        ),
    ] {
        let e = PublicKey::from_value(&json(&text)).unwrap_err();
        assert_eq!(e.path(), path, "{text}");
    }
    let other = base64url::encode(SigningKey::from_seed(&[8; 32]).public_key().as_bytes());
    let d = base64url::encode(&[7; 32]);
    let e = SigningKey::from_value(&json(&format!(
        r#"{{"kty":"OKP","crv":"Ed25519","x":"{other}","d":"{d}"}}"#
    )))
    .unwrap_err();
    assert_eq!((e.code(), e.path()), (Code::InvalidKey, "/x"));
}
