use super::*;

#[test]
fn pae_is_the_dsse_spec_example() {
    assert_eq!(
        pae("http://example.com/HelloWorld", b"hello world"),
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    );
    assert_eq!(pae("", b""), b"DSSEv1 0  0 ");
}

#[test]
fn the_canonical_comparison_sees_every_difference() {
    for (text, canonical) in [
        (r#"{"a":1,"b":[true,null,"x"]}"#, true),
        (r#"{"b":[true,null,"x"],"a":1}"#, false),
        (r#"{"a":1,"b":[true,null,"x"]} "#, false),
        (r#"{"a":1.0,"b":[true,null,"x"]}"#, false),
        (r#"{"a":1,"b":[true,null,"\u0078"]}"#, false),
        (r#"{"a":1,"b":[true,null,"x"]"#, false),
    ] {
        match read_payload(text.as_bytes()) {
            Ok(_) => assert!(canonical, "{text}"),
            Err(e) if !canonical && text.ends_with('}') || text.ends_with(' ') => {
                assert_eq!(e.code(), Code::NonCanonicalPayload, "{text}");
                assert_eq!(e.path(), "/payload");
            }
            Err(e) => assert_eq!(e.code(), Code::SyntaxError, "{text}"),
        }
    }
}
