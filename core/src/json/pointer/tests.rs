use super::*;

#[test]
fn escapes_and_parses_back() {
    let mut s = String::from("/");
    push_escaped(&mut s, "a/b~c");
    assert_eq!(s, "/a~1b~0c");
    assert_eq!(parse_pointer(&s).unwrap(), vec!["a/b~c"]);
    for (token, escaped) in [
        ("", ""),
        ("plain", "plain"),
        ("~/", "~0~1"),
        ("/é~", "~1é~0"),
        ("a~~b//c", "a~0~0b~1~1c"),
    ] {
        let mut s = String::from("/x/");
        push_escaped(&mut s, token);
        assert_eq!(s, format!("/x/{escaped}"));
        assert_eq!(parse_pointer(&s).unwrap(), vec!["x", token]);
    }
    assert_eq!(parse_pointer("").unwrap(), Vec::<String>::new());
    assert_eq!(parse_pointer("/").unwrap(), vec![""]);
    assert!(parse_pointer("a").is_none());
    assert!(parse_pointer("/~2").is_none());
    assert!(parse_pointer("/~").is_none());
}
