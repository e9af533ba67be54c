use super::*;
use crate::{parse, ActionIds, Contract, Options};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

fn approval() -> Approval {
    let contract = Contract::from_value(&json(
        r#"{"tool":"t","version":"1","effect":"write","approval":"always","cost_minor":0,
            "args":{"type":"object","properties":{"n":{"type":"integer"}}}}"#,
    ))
    .unwrap();
    let ids = ActionIds {
        tenant: "a",
        subject: "s",
        job_id: "j",
        request_id: "r",
        policy_version: "p",
    };
    let action = Action::build(&contract, &json(r#"{"n":1}"#), &ids).unwrap();
    let d = DecisionInput {
        approval_id: "ap",
        decision_id: "d",
        decision: Decision::Approved,
        approver: "b",
        decided_at: 7,
        expires_at: 11,
        proposed_digest: None,
    };
    Approval::decide(&action, &d).unwrap()
}

#[test]
fn a_record_keeps_its_times_and_is_sealed() {
    let a = approval();
    assert_eq!((a.decided_at(), a.expires_at()), (7, 11));
    assert_eq!(a.decision(), Decision::Approved);
    assert!(a.is_sealed());
    assert_eq!(a.action_digest(), a.action().digest());
}

#[test]
fn an_edited_frozen_action_is_not_sealed() {
    let text = crate::canonicalize(approval().value()).replace(r#""n":1"#, r#""n":2"#);
    let edited = Approval::from_value(&json(&text)).unwrap();
    assert!(!edited.is_sealed());
}

#[test]
fn identities_are_identifiers() {
    let text = crate::canonicalize(approval().value())
        .replace(r#""approver":"b""#, r#""approver":"b\u2060""#);
    let e = Approval::from_value(&json(&text)).unwrap_err();
    assert_eq!((e.code(), e.path()), (Code::InvalidApproval, "/approver"));
    assert!(e.message().contains("U+2060"), "{e}");
}
