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
        role: None,
        on_behalf_of: None,
        delegation: None,
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

/// The plain record's text with `members` added after `"approver":"b"`.
fn with(members: &str) -> Result<Approval> {
    let text = crate::canonicalize(approval().value())
        .replace(r#""approver":"b""#, &format!(r#""approver":"b",{members}"#));
    Approval::from_value(&json(&text))
}

#[test]
fn role_and_delegation_are_optional_members() {
    let a = approval();
    assert_eq!(
        (a.role(), a.on_behalf_of(), a.delegation()),
        (None, None, None)
    );
    let a = with(r#""role":"finance","on_behalf_of":"carol","delegation":[{"x":1}]"#).unwrap();
    assert_eq!(
        (a.role(), a.on_behalf_of()),
        (Some("finance"), Some("carol"))
    );
    assert_eq!(a.delegation().map(<[_]>::len), Some(1));
    for (members, path) in [
        (r#""role":"fin ance""#, "/role"),
        (r#""role":7"#, "/role"),
        (r#""on_behalf_of":"carol""#, "/on_behalf_of"),
        (r#""delegation":[{"x":1}]"#, "/delegation"),
        (r#""on_behalf_of":"carol","delegation":[]"#, "/delegation"),
        (
            r#""on_behalf_of":"carol","delegation":{"x":1}"#,
            "/delegation",
        ),
        (
            r#""on_behalf_of":"","delegation":[{"x":1}]"#,
            "/on_behalf_of",
        ),
    ] {
        let e = with(members).unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::InvalidApproval, path),
            "{members}"
        );
    }
}

#[test]
fn decide_writes_the_authority_it_was_given() {
    let a = approval();
    let links = json(r#"[{"l":1},{"l":2},{"l":3},{"l":4},{"l":5}]"#);
    let Value::Array(links) = &links else {
        unreachable!()
    };
    let mut d = DecisionInput {
        approval_id: "ap",
        decision_id: "d",
        decision: Decision::Approved,
        approver: "dave",
        decided_at: 7,
        expires_at: 11,
        proposed_digest: None,
        role: Some("risk"),
        on_behalf_of: Some("carol"),
        delegation: Some(&links[..4]),
    };
    let b = Approval::decide(a.action(), &d).unwrap();
    assert_eq!((b.role(), b.on_behalf_of()), (Some("risk"), Some("carol")));
    assert_eq!(b.delegation().map(<[_]>::len), Some(4));
    let read = json(&crate::canonicalize(b.value()));
    let again = DecisionInput::from_value(&read).err();
    // A record is not a decision input (it has the action), but its members read the same.
    assert_eq!(
        again.map(|e| e.path().to_owned()).as_deref(),
        Some("/action")
    );
    d.delegation = Some(&links[..]);
    let e = Approval::decide(a.action(), &d).unwrap_err();
    assert_eq!((e.code(), e.path()), (Code::InvalidApproval, "/delegation"));
    d.delegation = None;
    let e = Approval::decide(a.action(), &d).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::InvalidApproval, "/on_behalf_of")
    );
}
