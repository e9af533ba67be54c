use super::*;
use crate::canonicalize;
use crate::Code;

fn opts(max_depth: usize) -> Options {
    Options {
        max_depth,
        ..Options::default()
    }
}

fn obj(identity: usize) -> Container<'static> {
    Container::plain(Kind::Object, identity, 0)
}

fn arr(identity: usize) -> Container<'static> {
    Container::plain(Kind::Array, identity, 0)
}

fn refused(s: Stop) -> (Code, String) {
    match s {
        Stop::Refused(e) => (e.code(), e.path().to_owned()),
        Stop::Misuse(m) => panic!("misuse: {m}"),
    }
}

#[test]
fn builds_values_in_canonical_order() {
    let mut b = Builder::new(&Options::default());
    b.open(obj(1)).unwrap();
    b.key("b".into()).unwrap();
    b.open(arr(2)).unwrap();
    b.integer(1).unwrap();
    b.double(2.5).unwrap();
    b.null().unwrap();
    b.boolean(true).unwrap();
    b.close().unwrap();
    b.key("a".into()).unwrap();
    b.string("x".into()).unwrap();
    b.close().unwrap();
    let v = b.finish().unwrap();
    assert_eq!(canonicalize(&v), r#"{"a":"x","b":[1,2.5,null,true]}"#);
}

#[test]
fn errors_carry_the_path_of_the_value() {
    let mut b = Builder::new(&Options::default());
    b.open(obj(1)).unwrap();
    b.key("a/b".into()).unwrap();
    b.open(arr(2)).unwrap();
    b.integer(0).unwrap();
    assert_eq!(
        refused(b.unsupported(HostType::Object(Some("Date")))),
        (Code::UnsupportedType, "/a~1b/1".to_owned())
    );
    assert_eq!(
        refused(b.double(f64::NAN).unwrap_err()),
        (Code::NonFiniteNumber, "/a~1b/1".to_owned())
    );
    // A hole belongs to the array, a bad key to the object.
    assert_eq!(refused(b.hole()), (Code::SparseArray, "/a~1b".to_owned()));
    b.close().unwrap();
    assert_eq!(
        refused(b.non_string_key(HostType::Object(Some("int")))),
        (Code::NonStringKey, String::new())
    );
    assert_eq!(
        refused(b.key_utf16(&[0x61, 0xD800]).unwrap_err()),
        (Code::LoneSurrogate, String::new())
    );
}

#[test]
fn cycles_are_found_before_depth_and_reported_where_they_close() {
    let mut b = Builder::new(&opts(3));
    b.open(obj(7)).unwrap();
    b.key("x".into()).unwrap();
    b.open(arr(8)).unwrap();
    b.integer(1).unwrap();
    assert_eq!(
        refused(b.open(obj(7)).unwrap_err()),
        (Code::CyclicValue, "/x/1".to_owned())
    );
    // Token 0 is unknown, never a cycle.
    b.open(obj(0)).unwrap();
    b.key("k".into()).unwrap();
    // At the limit, a repeat is still a cycle; anything else is depth.
    assert_eq!(
        refused(b.open(arr(8)).unwrap_err()),
        (Code::CyclicValue, "/x/1/k".to_owned())
    );
    assert_eq!(
        refused(b.open(arr(9)).unwrap_err()),
        (Code::DepthLimitExceeded, "/x/1/k".to_owned())
    );
}

#[test]
fn what_is_not_data_is_refused_at_any_depth() {
    let mut b = Builder::new(&opts(1));
    b.open(arr(1)).unwrap();
    let date = Prototype {
        name: Some("Date"),
        own: true,
        parent: Some(Parent {
            name: Some("Object"),
            own: true,
            root: true,
        }),
    };
    let c = Container {
        class: Class::Prototype(date),
        ..obj(2)
    };
    let (code, path) = refused(b.open(c).unwrap_err());
    assert_eq!((code, path.as_str()), (Code::UnsupportedType, "/0"));
    let to_json = Container {
        to_json: true,
        ..obj(3)
    };
    assert_eq!(
        refused(b.open(to_json).unwrap_err()).0,
        Code::UnsupportedType
    );
    let symbols = Container {
        symbol_keys: true,
        ..arr(4)
    };
    assert_eq!(refused(b.open(symbols).unwrap_err()).0, Code::NonStringKey);
    assert_eq!(
        refused(b.open(obj(5)).unwrap_err()).0,
        Code::DepthLimitExceeded
    );
}

#[test]
fn other_realms_builtin_prototypes_are_plain() {
    let object = Prototype {
        name: Some("Object"),
        own: true,
        parent: None,
    };
    let array = Prototype {
        name: Some("Array"),
        own: true,
        parent: Some(Parent {
            name: Some("Object"),
            own: true,
            root: true,
        }),
    };
    assert!(object.accepts(Kind::Object));
    assert!(!object.accepts(Kind::Array));
    assert!(array.accepts(Kind::Array));
    assert!(!array.accepts(Kind::Object));
    // A class named Object, or an object that only claims the constructor, is not.
    assert!(!Prototype {
        parent: Some(Parent {
            name: Some("Object"),
            own: true,
            root: true
        }),
        ..object
    }
    .accepts(Kind::Object));
    assert!(!Prototype {
        own: false,
        ..object
    }
    .accepts(Kind::Object));
    assert!(!Prototype {
        parent: None,
        ..array
    }
    .accepts(Kind::Array));
    assert_eq!(
        Prototype {
            name: None,
            ..array
        }
        .host_type(Kind::Array)
        .name(),
        "array"
    );
}

#[test]
fn type_names() {
    let names: Vec<&str> = [
        HostType::Undefined,
        HostType::BigInt,
        HostType::Symbol,
        HostType::Function,
        HostType::Object(Some("Map")),
        HostType::Object(Some("")),
        HostType::Object(None),
    ]
    .iter()
    .map(|t| t.name())
    .collect();
    assert_eq!(
        names,
        [
            "undefined",
            "BigInt",
            "Symbol",
            "function",
            "Map",
            "object",
            "object"
        ]
    );
}

#[test]
fn integers_follow_the_profile() {
    let mut b = Builder::new(&Options::default());
    assert_eq!(
        refused(b.integer(1 << 60).unwrap_err()).0,
        Code::InexactNumber
    );
    let mut b = Builder::new(&Options::with_profile(Profile::Rfc8785));
    b.integer(1 << 60).unwrap();
    assert_eq!(canonicalize(&b.finish().unwrap()), "1152921504606847000");
    let mut b = Builder::new(&Options::default());
    assert_eq!(
        refused(b.integer_text(&"9".repeat(400)).unwrap_err()).0,
        Code::NumberOverflow
    );
}

#[test]
fn duplicate_host_keys_are_duplicates_under_their_object() {
    let mut b = Builder::new(&Options::default());
    b.open(obj(1)).unwrap();
    b.key("o".into()).unwrap();
    b.open(obj(2)).unwrap();
    for _ in 0..2 {
        b.key("a".into()).unwrap();
        b.integer(1).unwrap();
    }
    assert_eq!(
        refused(b.close().unwrap_err()),
        (Code::DuplicateKey, "/o/a".to_owned())
    );
}

#[test]
fn misuse_is_not_a_refusal() {
    let mut b = Builder::new(&Options::default());
    assert!(matches!(b.key("a".into()), Err(Stop::Misuse(_))));
    assert!(matches!(b.close(), Err(Stop::Misuse(_))));
    b.open(obj(1)).unwrap();
    assert!(matches!(b.null(), Err(Stop::Misuse(_))));
    assert!(matches!(b.finish(), Err(Stop::Misuse(_))));
}

#[test]
fn options_and_arguments() {
    assert_eq!(options(OptionsArg::Absent).unwrap(), Options::default());
    assert_eq!(
        options(OptionsArg::Given(ProfileArg::Name("rfc8785")))
            .unwrap()
            .profile,
        Profile::Rfc8785
    );
    for bad in [
        OptionsArg::NotAnObject,
        OptionsArg::Given(ProfileArg::Name("STRICT")),
        OptionsArg::Given(ProfileArg::Other(HostType::Number)),
    ] {
        assert_eq!(options(bad).unwrap_err().code(), Code::InvalidOption);
    }
    assert!(no_options(OptionsArg::Absent).is_ok());
    assert_eq!(
        no_options(OptionsArg::Given(ProfileArg::Name("strict")))
            .unwrap_err()
            .code(),
        Code::InvalidOption
    );
    assert_eq!(json_text(HostType::Number).code(), Code::UnsupportedType);
    assert_eq!(
        digest_argument(HostType::Undefined).code(),
        Code::InvalidDigest
    );
}

/// Reports a random value (with keys out of order, escapes, nesting) to a builder.
fn report<'a, O: Output<'a>>(b: &mut Builder<'a, O>, seed: &mut u64, depth: usize) {
    let mut next = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    const KEYS: [&str; 8] = ["b", "a", "é", "\u{1F600}", "\u{E000}", "", "a\"b", "z\n"];
    let kind = if depth > 3 { next() % 4 } else { next() % 6 };
    match kind {
        0 => b.null().unwrap(),
        1 => b.double(f64::from_bits(next() >> 2) / 7.0).unwrap(),
        2 => b.integer((next() % 2_000_000) as i64 - 1_000_000).unwrap(),
        3 => b
            .string(Cow::Borrowed(KEYS[(next() % 8) as usize]))
            .unwrap(),
        4 => {
            let n = next() % 4;
            b.open(Container::plain(Kind::Array, 0, 0)).unwrap();
            for _ in 0..n {
                report(b, seed, depth + 1);
            }
            b.close().unwrap();
        }
        _ => {
            let n = (next() % 6) as usize;
            let start = (next() % 8) as usize;
            b.open(Container::plain(Kind::Object, 0, 0)).unwrap();
            for i in 0..n {
                b.key(Cow::Borrowed(KEYS[(start + i) % 8])).unwrap();
                report(b, seed, depth + 1);
            }
            b.close().unwrap();
        }
    }
}

#[test]
fn canonical_output_is_the_canonical_text_of_the_value() {
    let options = Options::default();
    for i in 0..20_000u64 {
        let (mut s1, mut s2) = (i * 2_654_435_761 + 1, i * 2_654_435_761 + 1);
        let mut values = Builder::new(&options);
        report(&mut values, &mut s1, 0);
        let mut text = Builder::canonical(&options, 0);
        report(&mut text, &mut s2, 0);
        assert_eq!(
            text.finish().unwrap(),
            canonicalize(&values.finish().unwrap())
        );
    }
}

#[test]
fn canonical_output_refuses_duplicate_keys_where_values_do() {
    for dup in [true, false] {
        let mut b = Builder::canonical(&Options::default(), 0);
        b.open(obj(1)).unwrap();
        b.key("o".into()).unwrap();
        b.open(obj(2)).unwrap();
        for k in ["b", "a", if dup { "b" } else { "c" }] {
            b.key(Cow::Borrowed(k)).unwrap();
            b.integer(1).unwrap();
        }
        let closed = b.close();
        if dup {
            assert_eq!(
                refused(closed.unwrap_err()),
                (Code::DuplicateKey, "/o/b".to_owned())
            );
        } else {
            closed.unwrap();
            b.close().unwrap();
            assert_eq!(b.finish().unwrap(), r#"{"o":{"a":1,"b":1,"c":1}}"#);
        }
    }
}

/// Records of one shape reuse the order worked out for the first; a record that differs in
/// one key, in the order of its keys or by a repeated key is worked out again.
#[test]
fn records_reuse_the_order_of_the_last_object_at_their_depth() {
    let records: [&[&str]; 7] = [
        &["sku", "qty", "note"],
        &["sku", "qty", "note"],
        &["qty", "sku", "note"],
        &["note", "qty", "sku"],
        &["sku", "qty", "notes"],
        &["sku", "qty"],
        &["sku", "qty", "sku"],
    ];
    let run = |upto: usize| {
        let mut b = Builder::canonical(&Options::default(), 0);
        b.open(arr(1)).unwrap();
        for (i, keys) in records[..upto].iter().enumerate() {
            b.open(obj(2)).unwrap();
            for k in keys.iter() {
                // Each record's keys at their own addresses, as JavaScript's tape gives them.
                let k: &'static str = Box::leak(k.to_string().into_boxed_str());
                b.key(Cow::Borrowed(k)).unwrap();
                b.integer(i as i64).unwrap();
            }
            b.close()?;
        }
        b.close()?;
        Ok::<_, Stop>(b.finish().unwrap())
    };
    assert_eq!(
        run(6).ok().unwrap(),
        concat!(
            r#"[{"note":0,"qty":0,"sku":0},{"note":1,"qty":1,"sku":1},"#,
            r#"{"note":2,"qty":2,"sku":2},{"note":3,"qty":3,"sku":3},"#,
            r#"{"notes":4,"qty":4,"sku":4},{"qty":5,"sku":5}]"#
        )
    );
    assert_eq!(
        refused(run(7).unwrap_err()),
        (Code::DuplicateKey, "/6/sku".to_owned())
    );
}

/// Reports `v` to a builder, members of objects in reverse order when `reverse`, with one
/// change at the `at`-th value reached (counting from 1, in the order reported), if any.
fn replay<'a, O: Output<'a>>(b: &mut Builder<'a, O>, v: &Value<'a>, reverse: bool, at: &mut usize) {
    *at = at.wrapping_sub(1);
    let change = *at == 0;
    match v {
        Value::Object(o) => {
            b.open(obj(0)).unwrap();
            let mut members: Vec<_> = o.iter().collect();
            if reverse {
                members.reverse();
            }
            if change {
                // A member missing, repeated, or one too many.
                match members.len() % 3 {
                    0 => members.push(("extra", &Value::Null)),
                    1 => {
                        members.pop();
                    }
                    _ => members.push(members[0]),
                }
            }
            for (k, item) in members {
                b.key(Cow::Owned(k.to_owned())).unwrap();
                replay(b, item, reverse, at);
            }
            b.close().ok();
        }
        Value::Array(items) => {
            b.open(arr(0)).unwrap();
            for item in items {
                replay(b, item, reverse, at);
            }
            if change {
                b.null().unwrap();
            }
            b.close().unwrap();
        }
        Value::Number(n) if change => b.double(-n.as_f64()).unwrap(),
        Value::String(s) if change => b.string(Cow::Owned(format!("{s}."))).unwrap(),
        Value::Null if change => b.boolean(false).unwrap(),
        _ if change => b.null().unwrap(),
        Value::Null => b.null().unwrap(),
        Value::Bool(x) => b.boolean(*x).unwrap(),
        Value::Number(n) => b.double(n.as_f64()).unwrap(),
        Value::String(s) => b.string(s.clone()).unwrap(),
    }
}

#[test]
fn same_output_is_true_exactly_for_the_held_value() {
    let options = Options::default();
    let mut changed = 0;
    for i in 0..5_000u64 {
        let mut seed = i * 2_654_435_761 + 1;
        let mut values = Builder::new(&options);
        report(&mut values, &mut seed, 0);
        let held = values.finish().unwrap();
        for reverse in [false, true] {
            // Unchanged, in either order: the same.
            let mut b = Builder::with_output(&options, Same::new(&held));
            replay(&mut b, &held, reverse, &mut 0);
            assert!(b.finish().unwrap(), "{}", canonicalize(&held));
            // One change anywhere: not the same (a repeated key included, which the
            // ordinary walk refuses).
            for at in 1..=4 {
                let mut b = Builder::with_output(&options, Same::new(&held));
                let mut count = at;
                replay(&mut b, &held, reverse, &mut count);
                if count == 0 || count > at {
                    assert_ne!(
                        b.finish().ok(),
                        Some(true),
                        "{} at {at}",
                        canonicalize(&held)
                    );
                    changed += 1;
                }
            }
        }
    }
    assert!(changed > 10_000, "{changed}");
}

#[test]
fn same_output_tells_zero_from_minus_zero_and_reports_errors_as_values_do() {
    let held = crate::parse(b"{\"a\":[0,1]}", &Options::default()).unwrap();
    let mut b = Builder::with_output(&Options::default(), Same::new(&held));
    b.open(obj(1)).unwrap();
    b.key("a".into()).unwrap();
    b.open(arr(2)).unwrap();
    b.double(-0.0).unwrap();
    b.integer(1).unwrap();
    b.close().unwrap();
    b.close().unwrap();
    assert!(!b.finish().unwrap());

    let mut b = Builder::with_output(&Options::default(), Same::new(&held));
    b.open(obj(1)).unwrap();
    b.key("a".into()).unwrap();
    b.open(arr(2)).unwrap();
    b.integer(0).unwrap();
    assert_eq!(
        refused(b.unsupported(HostType::Object(Some("Date")))),
        (Code::UnsupportedType, "/a/1".to_owned())
    );
}

#[test]
fn a_set_of_approvals_is_an_array() {
    let parsed = |t: &str| {
        crate::parse(t.as_bytes(), &Options::default())
            .expect("JSON")
            .into_owned()
    };
    assert_eq!(approval_set(&parsed("[{}, null]")).map(|s| s.len()), Ok(2));
    assert_eq!(approval_set(&parsed("[]")).map(|s| s.len()), Ok(0));
    for not_a_set in ["{}", "null", r#""[]""#, "1"] {
        let e = approval_set(&parsed(not_a_set)).expect_err(not_a_set);
        assert_eq!(
            (e.code(), e.path()),
            (Code::InvalidApproval, ""),
            "{not_a_set}"
        );
    }
}
