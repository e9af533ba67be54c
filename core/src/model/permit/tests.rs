use super::*;
use crate::{parse, Action, ActionIds, Approval, Decision, DecisionInput, Options};

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
            role: None,
            on_behalf_of: None,
            delegation: None,
        },
    )
    .unwrap();
    (contract, action.value().clone(), approval.value().clone())
}

const FACTS: &str = r#""now":5,"tenant":"a","policy_version":"p",
    "approver_authorized":{"approver":"b","authorized":true},
    "subject_authorized":{"subject":"s","authorized":true},
    "revoked":{"approval_id":"ap","revoked":false}"#;

fn verdict_with(
    contract: &Contract,
    approval: Option<&OwnedValue>,
    action: &OwnedValue,
    facts: &str,
) -> Verdict {
    let ctx =
        Context::with_contract(&json(&format!("{{{facts}}}")), Some(contract.clone())).unwrap();
    check_with(approval, action, &ctx)
}

#[test]
fn facts_about_someone_else_fail_closed() {
    let (contract, action, approval) = setup();
    let run = |from: &str, to: &str| {
        verdict_with(
            &contract,
            Some(&approval),
            &action,
            &FACTS.replace(from, to),
        )
        .reasons
    };
    assert_eq!(run("", ""), []);
    assert_eq!(
        run(r#""approver":"b""#, r#""approver":"c""#),
        [Reason::ApproverUnauthorized]
    );
    assert_eq!(
        run(r#""subject":"s""#, r#""subject":"t""#),
        [Reason::SubjectUnauthorized]
    );
    assert_eq!(
        run(r#""approval_id":"ap""#, r#""approval_id":"aq""#),
        [Reason::Revoked]
    );
    // With an approval, a null fact is a missing fact.
    assert_eq!(
        run(r#"{"approver":"b","authorized":true}"#, "null"),
        [Reason::ApproverUnauthorized]
    );
    assert_eq!(
        run(r#"{"approval_id":"ap","revoked":false}"#, "null"),
        [Reason::Revoked]
    );
    // Without one, approver and revocation facts do not matter.
    let none = |from: &str, to: &str| {
        verdict_with(&contract, None, &action, &FACTS.replace(from, to)).reasons
    };
    assert_eq!(
        none(r#"{"approver":"b","authorized":true}"#, "null"),
        [Reason::NoApproval]
    );
    assert_eq!(
        none(r#""approval_id":"ap""#, r#""approval_id":"aq""#),
        [Reason::NoApproval]
    );
    assert_eq!(
        none(r#""subject":"s""#, r#""subject":"t""#),
        [Reason::NoApproval, Reason::SubjectUnauthorized]
    );
}

#[test]
fn malformed_facts_are_invalid_context() {
    let (contract, ..) = setup();
    for (from, to, path) in [
        (
            r#"{"subject":"s","authorized":true}"#,
            "true",
            "/subject_authorized",
        ),
        (
            r#"{"subject":"s","authorized":true}"#,
            "null",
            "/subject_authorized",
        ),
        (
            r#""approver":"b","authorized":true"#,
            r#""authorized":true"#,
            "/approver_authorized/approver",
        ),
        (r#""revoked":false}"#, r#""revoked":0}"#, "/revoked/revoked"),
        (
            r#""approver":"b","#,
            r#""approver":"b","role":"x","#,
            "/approver_authorized/role",
        ),
        (
            r#""subject":"s""#,
            r#""subject":"s\u200b""#,
            "/subject_authorized/subject",
        ),
    ] {
        let text = format!("{{{}}}", FACTS.replace(from, to));
        let e = Context::with_contract(&json(&text), Some(contract.clone())).unwrap_err();
        assert_eq!((e.code(), e.path()), (Code::InvalidContext, path), "{text}");
    }
}

#[test]
fn each_optional_member_is_read_beside_the_required_ones() {
    // A context of required members alone skips the optional ones; one more member, whichever,
    // is read, with the contract in the document or given separately.
    let document = r#"{"tool":"t","version":"1","effect":"write","approval":"always",
        "cost_minor":0,"args":{"type":"object"}}"#;
    let contract = Contract::from_value(&json(document)).unwrap();
    for (member, path) in [
        (r#""proof":1"#, "/proof"),
        (r#""approver_roles":1"#, "/approver_roles"),
        (r#""proposer":1"#, "/proposer"),
        (r#""amended_by":1"#, "/amended_by"),
        (r#""delegations_revoked":1"#, "/delegations_revoked"),
    ] {
        let separate = format!("{{{FACTS},{member}}}");
        let e = Context::with_contract(&json(&separate), Some(contract.clone())).unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::InvalidContext, path),
            "{member}"
        );
        let inline = format!("{{{FACTS},{member},\"contract\":{document}}}");
        let e = Context::from_value(&json(&inline)).unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::InvalidContext, path),
            "{member}"
        );
    }
}

#[test]
fn a_decision_from_the_future_is_rejected() {
    let (contract, action, approval) = setup();
    // decided_at is 0: a clock at -1 cannot be written, so move the decision instead.
    let later = with_times(&approval, 6, 10);
    let v = verdict_with(&contract, Some(&later), &action, FACTS);
    assert_eq!(v.reasons, [Reason::DecidedInFuture]);
    assert_eq!(v.outcome, Outcome::Reject);
    let at_now = with_times(&approval, 5, 10);
    assert_eq!(
        verdict_with(&contract, Some(&at_now), &action, FACTS).reasons,
        []
    );
}

/// The record with other times, resealed (its digest covers only the action).
fn with_times(approval: &OwnedValue, decided_at: i64, expires_at: i64) -> OwnedValue {
    let text = crate::canonicalize(approval)
        .replace(
            r#""decided_at":0"#,
            &format!(r#""decided_at":{decided_at}"#),
        )
        .replace(
            r#""expires_at":10"#,
            &format!(r#""expires_at":{expires_at}"#),
        );
    json(&text)
}

#[test]
fn a_contract_caps_how_long_an_approval_holds() {
    let (_, action, approval) = setup();
    let capped = Contract::from_value(&json(
        r#"{"tool":"t","version":"1","effect":"write","approval":"always","cost_minor":0,
            "max_approval_ms":10,
            "args":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}"#,
    ))
    .unwrap();
    assert_eq!(capped.max_approval_ms(), Some(10));
    // The action names the uncapped contract: expect contract drift, and nothing about the cap
    // while the lifetime is within it.
    let base = verdict_with(&capped, Some(&approval), &action, FACTS).reasons;
    assert_eq!(base, [Reason::ContractDrift]);
    let long = with_times(&approval, 0, 11);
    let v = verdict_with(&capped, Some(&long), &action, FACTS);
    assert_eq!(v.reasons, [Reason::InvalidApproval, Reason::ContractDrift]);
    assert_eq!(v.approved_digest, None);
}

#[test]
fn a_preloaded_contract_gives_the_same_verdict() {
    let (contract, action, approval) = setup();
    let fields = FACTS;
    let ctx =
        Context::with_contract(&json(&format!("{{{fields}}}")), Some(contract.clone())).unwrap();
    assert_eq!(
        ctx.contract().map(Contract::digest),
        Some(contract.digest())
    );
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
    assert_eq!(Reason::ALL.len(), 38);
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

#[test]
fn a_loaded_approval_keeps_its_argument_check_per_contract() {
    let (contract, action, approval) = setup();
    let loaded = Approval::from_value(&approval).unwrap();
    let fields = json(
        r#"{"now":5,"tenant":"a","policy_version":"p",
            "approver_authorized":{"approver":"b","authorized":true},
            "subject_authorized":{"subject":"s","authorized":true},
            "revoked":{"approval_id":"ap","revoked":false}}"#,
    );
    // The same tool and digest field, but a contract whose schema refuses the arguments.
    let strict = Contract::from_value(&json(
        r#"{"tool":"t","version":"1","effect":"write","approval":"always","cost_minor":0,
            "args":{"type":"object","properties":{"n":{"type":"string"}},"required":["n"]}}"#,
    ))
    .unwrap();
    for c in [&contract, &strict, &contract, &strict] {
        let ctx = Context::with_contract(&fields, Some(c.clone())).unwrap();
        let want = check_with(Some(&approval), &action, &ctx).to_value();
        let got = check_approval(Some(&loaded), &action, &ctx).to_value();
        assert_eq!(crate::canonicalize(&got), crate::canonicalize(&want));
    }
    let ctx = Context::with_contract(&fields, Some(strict)).unwrap();
    let v = check_approval(Some(&loaded), &action, &ctx);
    assert_eq!(v.action_error.map(|e| e.code()), Some(Code::TypeMismatch));
}
