use super::*;
use crate::base64::url as b64url;
use crate::{canonicalize, parse, Action, ActionIds, Code, Contract, Options, OwnedValue, Value};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

/// A refund that takes a card number, a customer's e-mail and a list of recipients, the
/// three marked sensitive when `sensitive` is.
fn contract(sensitive: bool) -> Contract {
    let marks = if sensitive {
        r#", "sensitive": {"/args/card_number": "pci", "/args/customer/email": "pii",
                           "/args/recipients/*/email": "pii"}"#
    } else {
        ""
    };
    Contract::from_value(&json(&format!(
        r#"{{"tool": "refund_create", "version": "1", "effect": "write", "approval": "always",
            "cost_minor": 0,
            "args": {{"type": "object", "required": ["amount_minor", "card_number"],
                     "properties": {{"amount_minor": {{"type": "integer"}},
                                    "card_number": {{"type": "string", "pattern": "^[0-9]{{16}}$"}},
                                    "customer": {{"type": "object",
                                                 "properties": {{"email": {{"type": "string"}}}}}},
                                    "recipients": {{"type": "array", "items": {{"type": "object",
                                        "properties": {{"email": {{"type": "string"}}}}}}}}}}}}
            {marks}}}"#
    )))
    .unwrap()
}

fn ids(request: &str) -> ActionIds<'_> {
    ActionIds {
        tenant: "tenant-a",
        subject: "user:alice",
        job_id: "job-1",
        request_id: request,
        policy_version: "p-1",
    }
}

const ARGS: &str = r#"{"amount_minor": 2500, "card_number": "4111111111111111",
    "customer": {"email": "alice@example.com"},
    "recipients": [{"email": "bob@example.com"}, {"email": "carol@example.com"}]}"#;

/// Salts 0, 1, 2, ...: each call a new one, as a CSPRNG's would be.
fn counting() -> impl FnMut() -> [u8; SALT_BYTES] {
    let mut n = 0u8;
    move || {
        n += 1;
        [n; SALT_BYTES]
    }
}

fn committed(request: &str) -> (Action, Vec<Disclosure>) {
    Action::commit(&contract(true), &json(ARGS), &ids(request), &mut counting()).unwrap()
}

fn refused(r: crate::Result<OwnedValue>) -> (Code, String) {
    let e = r.unwrap_err();
    (e.code(), e.path().to_owned())
}

#[test]
fn a_disclosure_is_sd_jwts_construction_over_canonical_json() {
    // Worked out apart (Python: json.dumps with separators, base64.urlsafe_b64encode, hashlib).
    let salt: [u8; 16] = std::array::from_fn(|i| i as u8);
    let d = Disclosure::new(
        &salt,
        "/args/customer/email",
        &json(r#""alice@example.com""#),
    );
    assert_eq!(b64url::encode(d.salt()), "AAECAwQFBgcICQoLDA0ODw");
    assert_eq!(
        d.encoded(),
        "WyJBQUVDQXdRRkJnY0lDUW9MREEwT0R3IiwiL2FyZ3MvY3VzdG9tZXIvZW1haWwiLCJhbGljZUBleGFtcGxlLmNvbSJd"
    );
    assert_eq!(
        d.digest().to_string(),
        "sha256:a7ab10b1b53a117d9ec3bd256e2e00df17f5147d360fc0e4da1d7508306a01ca"
    );
    assert_eq!(Disclosure::parse(d.encoded()).unwrap(), d);
}

#[test]
fn committing_replaces_each_sensitive_value_with_its_disclosures_digest() {
    let (action, disclosures) = committed("req-1");
    let text = canonicalize(action.value());
    for secret in ["4111111111111111", "alice@", "bob@", "carol@"] {
        assert!(!text.contains(secret), "{secret} is in {text}");
    }
    let pointers: Vec<&str> = disclosures.iter().map(Disclosure::pointer).collect();
    assert_eq!(
        pointers,
        [
            "/args/card_number",
            "/args/customer/email",
            "/args/recipients/0/email",
            "/args/recipients/1/email"
        ]
    );
    for d in &disclosures {
        let at = action.value().pointer(d.pointer()).unwrap();
        let want = format!(r#"{{"_sd":"{}"}}"#, d.digest());
        assert_eq!(canonicalize(at), want);
    }
    // What is not sensitive stays as given.
    assert_eq!(
        canonicalize(action.value().pointer("/args/amount_minor").unwrap()),
        "2500"
    );
    // Revealed, it is the action in the clear, byte for byte.
    let clear = Action::build(&contract(true), &json(ARGS), &ids("req-1")).unwrap();
    let sensitive = contract(true).sensitive().unwrap().clone();
    let revealed = reveal(&sensitive, action.value(), &disclosures, Coverage::Every).unwrap();
    assert_eq!(canonicalize(&revealed), canonicalize(clear.value()));
}

#[test]
fn the_same_values_under_other_salts_are_other_commitments() {
    let c = contract(true);
    let (a, _) = Action::commit(&c, &json(ARGS), &ids("req-1"), &mut counting()).unwrap();
    let mut other = || [0xEE; SALT_BYTES];
    let (b, _) = Action::commit(&c, &json(ARGS), &ids("req-1"), &mut other).unwrap();
    assert_ne!(a.digest(), b.digest());
}

#[test]
fn a_contract_without_sensitive_pointers_commits_nothing() {
    let c = contract(false);
    let (a, disclosures) =
        Action::commit(&c, &json(ARGS), &ids("req-1"), &mut || unreachable!()).unwrap();
    let built = Action::build(&c, &json(ARGS), &ids("req-1")).unwrap();
    assert!(disclosures.is_empty());
    assert_eq!(a.digest(), built.digest());
}

#[test]
fn arguments_are_validated_in_the_clear_before_commitment() {
    let bad = json(r#"{"amount_minor": 1, "card_number": "not a card"}"#);
    let e = Action::commit(&contract(true), &bad, &ids("r"), &mut counting()).unwrap_err();
    assert_eq!(e.path(), "/args/card_number");
}

#[test]
fn an_absent_optional_value_has_no_place() {
    let args = json(r#"{"amount_minor": 1, "card_number": "4111111111111111"}"#);
    let (_, disclosures) =
        Action::commit(&contract(true), &args, &ids("r"), &mut counting()).unwrap();
    assert_eq!(disclosures.len(), 1);
}

#[test]
fn each_wrong_disclosure_has_a_code_of_its_own() {
    let sensitive = contract(true).sensitive().unwrap().clone();
    let (action, ds) = committed("req-1");
    let v = action.value();
    let every = |ds: &[Disclosure]| reveal(&sensitive, v, ds, Coverage::Every);

    // Missing: at the place of the commitment left without one.
    assert_eq!(
        refused(every(&ds[..3])),
        (Code::DisclosureMissing, "/args/recipients/1/email".into())
    );
    // Given only some, the others stay commitments.
    let some = reveal(&sensitive, v, &ds[1..2], Coverage::Given).unwrap();
    assert_eq!(
        some.pointer("/args/customer/email").unwrap().as_str(),
        Some("alice@example.com")
    );
    assert!(!canonicalize(&some).contains("4111"));

    // Reused from another task: another salt, so another digest.
    let (_, theirs) = committed("req-2");
    let mut reused = ds.clone();
    reused[1] = Disclosure::new(&[9; 16], "/args/customer/email", theirs[1].value());
    assert_eq!(
        refused(every(&reused)),
        (Code::DisclosureMismatch, "/1".into())
    );
    // Wrong: the committed salt with another value.
    let salt: [u8; 16] = *ds[0].salt();
    let mut wrong = ds.clone();
    wrong[0] = Disclosure::new(&salt, "/args/card_number", &json(r#""4000000000000002""#));
    assert_eq!(
        refused(every(&wrong)),
        (Code::DisclosureMismatch, "/0".into())
    );
    // Moved to another place: its pointer is in what the digest covers.
    let mut moved = ds.clone();
    moved[3] = Disclosure::new(&salt, "/args/recipients/1/email", ds[2].value());
    assert_eq!(
        refused(every(&moved)),
        (Code::DisclosureMismatch, "/3".into())
    );
    // Extra: a place that is not sensitive, or a second disclosure of one.
    let mut extra = ds.clone();
    extra.push(Disclosure::new(&salt, "/args/amount_minor", &json("2500")));
    assert_eq!(refused(every(&extra)), (Code::DisclosureExtra, "/4".into()));
    let mut twice = ds.clone();
    twice.push(ds[0].clone());
    assert_eq!(refused(every(&twice)), (Code::DisclosureExtra, "/4".into()));
    // An action in the clear was never committed.
    let clear = Action::build(&contract(true), &json(ARGS), &ids("req-1")).unwrap();
    assert_eq!(
        refused(reveal(&sensitive, clear.value(), &ds, Coverage::Every)),
        (Code::NotCommitted, "/args/card_number".into())
    );
}

#[test]
fn a_disclosure_is_read_in_one_spelling_only() {
    let salt = b64url::encode(&[7; 16]);
    let encode = |text: &str| b64url::encode(text.as_bytes());
    let ok = encode(&format!(r#"["{salt}","/args/n",1]"#));
    assert!(Disclosure::parse(&ok).is_ok());
    for (text, code) in [
        (
            format!(r#"["{salt}", "/args/n", 1]"#),
            Code::DisclosureNotCanonical,
        ),
        (
            format!(r#"["{salt}","/args/n",1.0]"#),
            Code::DisclosureNotCanonical,
        ),
        (
            format!(r#"["{salt}","/args/n",{{"b":1,"a":2}}]"#),
            Code::DisclosureNotCanonical,
        ),
        (format!(r#"["{salt}","/args/n"]"#), Code::InvalidDisclosure),
        (
            format!(r#"["{salt}","/tenant",1]"#),
            Code::InvalidDisclosure,
        ),
        (
            r#"["AAAA","/args/n",1]"#.to_owned(),
            Code::InvalidDisclosure,
        ),
        (format!(r#"{{"salt":"{salt}"}}"#), Code::InvalidDisclosure),
        (format!(r#"["{salt}","/args/n",1"#), Code::InvalidDisclosure),
    ] {
        let got = Disclosure::parse(&encode(&text)).unwrap_err().code();
        assert_eq!(got, code, "{text}");
    }
    // Padded or non-canonical base64url.
    assert_eq!(
        Disclosure::parse(&format!("{ok}=")).unwrap_err().code(),
        Code::InvalidDisclosure
    );
}

#[test]
fn a_contract_marks_places_in_its_arguments_only() {
    let base = r#""tool": "t", "version": "1", "effect": "write", "approval": "always",
        "cost_minor": 0, "args": {"type": "object"}"#;
    let load =
        |marks: &str| Contract::from_value(&json(&format!("{{{base}, \"sensitive\": {marks}}}")));
    assert!(load(r#"{"/args/a": "pii", "/args/b/*/c": "pci_data"}"#).is_ok());
    for (marks, path) in [
        (r#"{}"#, "/sensitive"),
        (r#"[]"#, "/sensitive"),
        (r#"{"/tenant": "pii"}"#, "/sensitive/~1tenant"),
        (r#"{"/args": "pii"}"#, "/sensitive/~1args"),
        (r#"{"args/a": "pii"}"#, "/sensitive/args~1a"),
        (r#"{"/args/a": "PII"}"#, "/sensitive/~1args~1a"),
        (r#"{"/args/a": ""}"#, "/sensitive/~1args~1a"),
        (
            r#"{"/args/a": "pii", "/args/a/b": "pii"}"#,
            "/sensitive/~1args~1a~1b",
        ),
        (
            r#"{"/args/l/*": "pii", "/args/l/0/x": "pii"}"#,
            "/sensitive/~1args~1l~10~1x",
        ),
    ] {
        let e = load(marks).unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::InvalidContract, path),
            "{marks}"
        );
    }
    let c = load(r#"{"/args/l/*/x": "pii"}"#).unwrap();
    let s = c.sensitive().unwrap();
    assert_eq!(s.class_of("/args/l/3/x"), Some("pii"));
    assert_eq!(s.class_of("/args/l/03/x"), None);
    assert_eq!(s.class_of("/args/l/x"), None);
}

mod calls {
    use super::*;
    use crate::sensitive::calls::{commit, reveal};
    use crate::Value;

    fn ids_value() -> OwnedValue {
        json(
            r#"{"tenant": "tenant-a", "subject": "user:alice", "job_id": "job-1",
                "request_id": "req-1", "policy_version": "p-1"}"#,
        )
    }

    fn never(_: &mut [[u8; SALT_BYTES]]) -> Result<(), ()> {
        unreachable!("salts were given")
    }

    #[test]
    fn salts_given_or_drawn_make_the_commitment_action_commit_makes() {
        let c = contract(true);
        let (action, ds) = committed("req-1");
        let salts: Vec<String> = (1..=4u8).map(|n| b64url::encode(&[n; 16])).collect();
        let given = json(&format!("{salts:?}"));
        let out = commit(&c, &json(ARGS), &ids_value(), &given, never)
            .unwrap()
            .unwrap();
        let drawn = commit(&c, &json(ARGS), &ids_value(), &Value::Null, |slots| {
            assert_eq!(slots.len(), 4);
            let mut next = counting();
            slots.iter_mut().for_each(|s| *s = next());
            Ok::<_, ()>(())
        })
        .unwrap()
        .unwrap();
        assert_eq!(out, drawn);
        assert_eq!(out.pointer("/action").unwrap(), action.value());
        let digest = action.digest().to_string();
        assert_eq!(
            out.pointer("/action_digest").unwrap().as_str(),
            Some(&*digest)
        );
        let encoded: Vec<&str> = ds.iter().map(Disclosure::encoded).collect();
        assert_eq!(
            canonicalize(out.pointer("/disclosures").unwrap()),
            format!("{encoded:?}").replace(", ", ",")
        );
    }

    #[test]
    fn a_host_that_cannot_draw_fails_with_its_own_error() {
        let r = commit(
            &contract(true),
            &json(ARGS),
            &ids_value(),
            &Value::Null,
            |_| Err("no entropy"),
        );
        assert_eq!(r.unwrap_err(), "no entropy");
    }

    #[test]
    fn salts_given_are_one_per_place() {
        let c = contract(true);
        let one = b64url::encode(&[1; 16]);
        for (salts, path) in [
            (format!(r#"["{one}"]"#), "/salts"),
            (format!(r#"["{one}","{one}","{one}","AAAA"]"#), "/salts/3"),
            ("{}".to_owned(), "/salts"),
        ] {
            let e = commit(&c, &json(ARGS), &ids_value(), &json(&salts), never)
                .unwrap()
                .unwrap_err();
            assert_eq!(
                (e.code(), e.path()),
                (Code::InvalidRequest, path),
                "{salts}"
            );
        }
    }

    #[test]
    fn reveal_reads_its_arguments_as_data() {
        let c = contract(true);
        let (action, ds) = committed("req-1");
        let list = json(&format!(
            "{:?}",
            ds.iter().map(Disclosure::encoded).collect::<Vec<_>>()
        ));
        let clear = Action::build(&c, &json(ARGS), &ids("req-1")).unwrap();
        let every = reveal(&c, action.value(), &list, &json(r#""every""#)).unwrap();
        assert_eq!(&every, clear.value());
        let none = reveal(&c, action.value(), &json("[]"), &json(r#""given""#)).unwrap();
        assert_eq!(&none, action.value());
        let e = reveal(&c, action.value(), &list, &json("true")).unwrap_err();
        assert_eq!(e.code(), Code::InvalidRequest);
        let e = reveal(&c, action.value(), &json("[1]"), &json(r#""given""#)).unwrap_err();
        assert_eq!((e.code(), e.path()), (Code::InvalidDisclosure, "/0"));
        // Under a contract without sensitive pointers there is nothing to disclose.
        let plain = contract(false);
        let built = Action::build(&plain, &json(ARGS), &ids("r")).unwrap();
        let e = reveal(&plain, built.value(), &list, &json(r#""given""#)).unwrap_err();
        assert_eq!((e.code(), e.path()), (Code::DisclosureExtra, "/0"));
        // An action of another contract.
        let e = reveal(&plain, action.value(), &list, &json(r#""given""#)).unwrap_err();
        assert_eq!((e.code(), e.path()), (Code::InvalidAction, "/contract"));
    }
}

/// The places both walks find in `value`, each as `(pointer, value)`: the reading walk's,
/// after a check that the commit's walk finds the same, in the same order.
fn places_both_walks_find(sensitive: &Sensitive, value: &OwnedValue) -> Vec<(String, OwnedValue)> {
    let read: Vec<(String, OwnedValue)> = sensitive
        .places(value)
        .iter()
        .map(|p| (p.pointer.clone(), p.value.clone().into_owned()))
        .collect();
    let mut replaced = Vec::new();
    sensitive.each_place_mut(&mut value.clone(), &mut |pointer, at| {
        replaced.push((pointer.to_owned(), at.clone()));
    });
    assert_eq!(replaced, read);
    read
}

#[test]
fn the_commits_walk_finds_the_places_the_reads_walk_finds_in_order() {
    let contract = contract(true);
    let action = Action::build(&contract, &json(ARGS), &ids("req-1")).unwrap();
    let found = places_both_walks_find(contract.sensitive().unwrap(), action.value());
    assert_eq!(found.len(), 4, "card, e-mail and two recipients");

    // Escaped tokens, an index, a `*` below an escaped token, a member left out and a
    // pointer that does not fit the value's type.
    let sensitive = Sensitive::from_value(&json(
        r#"{"/args/a~1b": "x", "/args/list/1": "x", "/args/m~0n/*/k": "x",
            "/args/absent": "x", "/args/list/k": "x"}"#,
    ))
    .unwrap();
    let value = json(r#"{"args": {"a/b": 1, "list": [1, 2], "m~n": [{"k": 3}, {"k": 4}]}}"#);
    let found = places_both_walks_find(&sensitive, &value);
    let pointers: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/args/a~1b",
            "/args/list/1",
            "/args/m~0n/0/k",
            "/args/m~0n/1/k"
        ]
    );
}

#[test]
fn an_amended_action_keeps_the_commitments_of_the_values_left_alone() {
    let contract = contract(true);
    let sensitive = contract.sensitive().unwrap();
    let (before, kept) = committed("req-1");
    let mut edited = json(ARGS);
    if let crate::Value::Object(o) = &mut edited {
        // The reviewer lowers the amount and corrects Carol's address.
        *o.get_mut("amount_minor").unwrap() = json("2000");
        let recipients = o.get_mut("recipients").unwrap();
        if let crate::Value::Array(items) = recipients {
            items[1] = json(r#"{"email": "carol@example.org"}"#);
        }
    }
    let clear = Action::build(&contract, &edited, &ids("req-1")).unwrap();
    let mut drawn = 0;
    let (after, ds) = commit_keeping(sensitive, clear.value(), &kept, &mut || {
        drawn += 1;
        [42; SALT_BYTES]
    });
    assert_eq!(drawn, 1, "one fresh salt: Carol's changed address");
    let pointers: Vec<_> = ds.iter().map(|d| d.pointer().to_owned()).collect();
    assert_eq!(
        pointers,
        [
            "/args/card_number",
            "/args/customer/email",
            "/args/recipients/0/email",
            "/args/recipients/1/email"
        ]
    );
    assert_eq!(
        ds[..3],
        kept[..3],
        "the values left alone keep their disclosures"
    );
    assert_ne!(ds[3], kept[3]);
    let changed = crate::ledger::amended_pointers(before.value(), &after);
    assert_eq!(changed, ["/args/amount_minor", "/args/recipients/1/email"]);
    let opened = reveal(sensitive, &after, &ds, Coverage::Every).unwrap();
    assert_eq!(canonicalize(&opened), canonicalize(clear.value()));
}

/// `action` with the value at `pointer` replaced by `with`.
fn with_at(action: &OwnedValue, pointer: &str, with: OwnedValue) -> OwnedValue {
    let mut out = action.clone();
    let mut at = &mut out;
    for token in crate::json::pointer::parse_pointer(pointer).expect("a pointer") {
        at = match at {
            Value::Array(items) => &mut items[token.parse::<usize>().expect("an index")],
            Value::Object(o) => o.get_mut(&token).expect("a member"),
            _ => panic!("{pointer} is inside a scalar"),
        };
    }
    *at = with;
    out
}

fn review(
    contract: &Contract,
    action: &OwnedValue,
) -> std::result::Result<(bool, String), (Code, String)> {
    contract
        .review_action(action)
        .map(|r| (r.required, r.rule))
        .map_err(|e| (e.code(), e.path().to_owned()))
}

#[test]
fn a_review_holds_back_commitments_at_sensitive_places_only() {
    let c = contract(true);
    let (frozen, _) = committed("req-1");
    let frozen = frozen.into_value();
    // What a reviewer's page receives: a proposal's validation would refuse it.
    let e = c.validate_action(&frozen).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::TypeMismatch, "/args/card_number")
    );
    assert_eq!(review(&c, &frozen), Ok((true, "/approval".to_owned())));
    // In the clear it is the same judgement as a proposal's.
    let clear = Action::build(&c, &json(ARGS), &ids("req-1"))
        .unwrap()
        .into_value();
    assert_eq!(review(&c, &clear), Ok((true, "/approval".to_owned())));
    assert!(c.validate_action(&clear).is_ok());
    // A commitment where nothing is sensitive stands for nothing: validated, and refused.
    let moved = with_at(
        &frozen,
        "/args/amount_minor",
        frozen.pointer("/args/card_number").unwrap().clone(),
    );
    assert_eq!(
        review(&c, &moved),
        Err((Code::TypeMismatch, "/args/amount_minor".to_owned()))
    );
    // Anything at a sensitive place that is not a well-formed commitment is validated.
    for bad in [
        r#"{"_sd": "sha256:00"}"#,
        r#"{"_sd": "md5:d41d8cd98f00b204e9800998ecf8427e"}"#,
        r#"{"_sd": "undisclosed"}"#,
        r#"{"sd": "sha256:0000000000000000000000000000000000000000000000000000000000000000"}"#,
        r#"{"_sd": "sha256:0000000000000000000000000000000000000000000000000000000000000000", "x": 1}"#,
    ] {
        let at = with_at(&frozen, "/args/card_number", json(bad));
        assert_eq!(
            review(&c, &at),
            Err((Code::TypeMismatch, "/args/card_number".to_owned())),
            "{bad}"
        );
        let at = with_at(&frozen, "/args/recipients/1/email", json(bad));
        assert_eq!(
            review(&c, &at),
            Err((Code::TypeMismatch, "/args/recipients/1/email".to_owned())),
            "{bad}"
        );
    }
    // A value in the clear at a sensitive place is judged as it is.
    let wrong = with_at(&frozen, "/args/card_number", json(r#""4111""#));
    assert_eq!(
        review(&c, &wrong),
        Err((Code::PatternMismatch, "/args/card_number".to_owned()))
    );
    // The envelope's own checks stay.
    let other = with_at(&frozen, "/tool", json(r#""other""#));
    assert_eq!(
        review(&c, &other),
        Err((Code::InvalidAction, "/tool".to_owned()))
    );
    // Without sensitive places nothing is held back.
    let plain = contract(false);
    let under_plain = with_at(
        &frozen,
        "/contract",
        json(&format!("{:?}", plain.digest_text())),
    );
    assert_eq!(
        review(&plain, &under_plain),
        Err((Code::TypeMismatch, "/args/card_number".to_owned()))
    );
}

#[test]
fn a_review_enters_a_commitment_nowhere_so_no_alternative_counts_it_twice() {
    // The card is a string or an integer: a oneOf whose every branch would accept a value
    // held back per node. Held back where the member is entered, it passes once. A rule that
    // tests the committed value cannot tell and asks for a person; one that tests its
    // presence answers as written.
    for (test, clear, frozen) in [
        (r#""op": "eq", "value": "4111""#, false, true),
        (r#""op": "ne", "value": "4111""#, true, true),
        (r#""op": "exists""#, true, true),
        (r#""op": "absent""#, false, false),
    ] {
        let c = Contract::from_value(&json(&format!(
            r#"{{"tool": "t", "version": "1", "effect": "write", "cost_minor": 0,
                "approval": {{"when": [{{"pointer": "/card", {test}}}]}},
                "args": {{"type": "object", "properties": {{
                    "card": {{"oneOf": [{{"type": "string"}}, {{"type": "integer"}}]}}}}}},
                "sensitive": {{"/args/card": "pci"}}}}"#
        )))
        .unwrap();
        let args = json(r#"{"card": "4112"}"#);
        assert_eq!(
            c.requires_approval(&args).unwrap().required,
            clear,
            "{test}"
        );
        let (action, _) = Action::commit(&c, &args, &ids("req-1"), &mut counting()).unwrap();
        let got = review(&c, action.value()).expect("the frozen action is valid");
        assert_eq!(got.0, frozen, "{test}");
    }
}
