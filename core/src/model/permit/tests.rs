use super::*;
use crate::{parse, Action, ActionIds, Approval, DecisionInput, Options};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

fn setup() -> (Contract, OwnedValue, OwnedValue) {
    let contract = Contract::from_value(&json(
        r#"{"tool":"t","version":"1","effect":"write","approval":"always","cost_minor":0,
            "args":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}"#,
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
    let approval = Approval::decide(
        &action,
        &DecisionInput {
            approval_id: "ap",
            decision_id: "d",
            decision: Decision::Approved,
            approver: "b",
            decided_at: 0,
            expires_at: 10,
            proposed_digest: None,
        },
    )
    .unwrap();
    (contract, action.value().clone(), approval.value().clone())
}

#[test]
fn a_preloaded_contract_gives_the_same_verdict() {
    let (contract, action, approval) = setup();
    let fields = r#""now":5,"tenant":"a","policy_version":"p","approver_authorized":true,"subject_authorized":true,"revoked":false"#;
    let ctx =
        Context::with_contract(&json(&format!("{{{fields}}}")), Some(contract.clone())).unwrap();
    let v = check_with(Some(&approval), &action, &ctx);
    assert_eq!(v.outcome, Outcome::Permit);
    let embedded = format!(
        "{{{fields},\"contract\":{}}}",
        crate::canonicalize(contract.document())
    );
    let w = check(Some(&approval), &action, &json(&embedded)).unwrap();
    assert_eq!(
        crate::canonicalize(&v.to_value()),
        crate::canonicalize(&w.to_value())
    );
    // The contract may not be given twice.
    let e = Context::with_contract(&json(&embedded), Some(contract)).unwrap_err();
    assert_eq!((e.code(), e.path()), (Code::InvalidContext, "/contract"));
}

#[test]
fn reasons_and_outcomes_are_listed_once_in_order() {
    assert_eq!(Reason::ALL.len(), 17);
    let mut sorted = Reason::ALL.to_vec();
    sorted.sort();
    assert_eq!(sorted, Reason::ALL);
    assert_eq!(Reason::ActionDrift.outcome(), Outcome::Reject);
    assert_eq!(Reason::Expired.outcome(), Outcome::Reapprove);
}

#[test]
fn drift_lists_every_differing_pointer() {
    let a = json(r#"{"x":[1,2],"y":{"a/b":1,"k":true},"z":"s","gone":1}"#);
    let b = json(r#"{"x":[2,1],"y":{"a/b":2,"k":true},"z":"s","new":1}"#);
    let mut out = Vec::new();
    diff(&a, &b, &mut String::new(), &mut out);
    assert_eq!(out, ["/gone", "/new", "/x/0", "/x/1", "/y/a~1b"]);
    let mut out = Vec::new();
    diff(&json("[1]"), &json("[1,2]"), &mut String::new(), &mut out);
    assert_eq!(out, [""]);
}
