use super::*;
use crate::{parse, Options};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

#[test]
fn fields_of_an_envelope() {
    let contract = Contract::from_value(&json(
        r#"{"tool":"t","version":"1","effect":"write","approval":"always","cost_minor":0,
            "args":{"type":"object","properties":{"n":{"type":"integer"}}}}"#,
    ))
    .unwrap();
    let ids = ActionIds {
        tenant: "tenant-a",
        subject: "user:alice",
        job_id: "j",
        request_id: "r",
        policy_version: "p",
    };
    let a = Action::build(&contract, &json(r#"{"n":1}"#), &ids).unwrap();
    assert_eq!(a.field("tenant"), "tenant-a");
    assert_eq!(a.field("tool"), "t");
    assert_eq!(a.field("contract"), contract.digest_text());
    assert_eq!(a.field("args"), ""); // not a string
    assert_eq!(a.args(), &json(r#"{"n":1}"#));
}

#[test]
fn ids_with_invisible_characters_are_refused_by_build_too() {
    let contract = Contract::from_value(&json(
        r#"{"tool":"t","version":"1","effect":"read","approval":"never","cost_minor":0,
            "args":{"type":"object"}}"#,
    ))
    .unwrap();
    let ids = ActionIds {
        tenant: "tenant\u{200B}a",
        subject: "s",
        job_id: "j",
        request_id: "r",
        policy_version: "p",
    };
    let e = Action::build(&contract, &json("{}"), &ids).unwrap_err();
    assert_eq!((e.code(), e.path()), (Code::InvalidAction, "/tenant"));
}
