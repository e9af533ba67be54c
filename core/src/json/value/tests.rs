use super::*;

#[test]
fn from_entries_sorts_and_rejects_duplicates() {
    let o = Object::from_entries(vec![
        ("b".into(), Value::Null),
        ("\u{E000}".into(), Value::Null),
        ("\u{1F600}".into(), Value::Null),
        ("a".into(), Value::Bool(true)),
    ])
    .unwrap();
    let keys: Vec<_> = o.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["a", "b", "\u{1F600}", "\u{E000}"]);
    assert_eq!(o.get("a"), Some(&Value::Bool(true)));
    assert_eq!(o.get("c"), None);
    let e = Object::from_entries(vec![
        ("a/b".into(), Value::Null),
        ("a/b".into(), Value::Null),
    ])
    .unwrap_err();
    assert_eq!((e.code(), e.path()), (Code::DuplicateKey, "/a~1b"));
}

#[test]
fn pointer_lookup() {
    let v = crate::parse(br#"{"a":[10,{"b/c":true}],"":1}"#, &Default::default()).unwrap();
    assert_eq!(v.pointer("/a/1/b~1c"), Some(&Value::Bool(true)));
    assert_eq!(v.pointer("/"), v.as_object().unwrap().get(""));
    assert_eq!(v.pointer(""), Some(&v));
    assert_eq!(v.pointer("/a/01"), None);
    assert_eq!(v.pointer("/a/2"), None);
    assert_eq!(v.pointer("a"), None);
}
