use super::*;
use crate::model::action::ActionIds;
use crate::model::approval::{Approval, Decision, DecisionInput};
use crate::model::ledger::{next, Op, Snapshot, State};
use crate::{check, parse, Options};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

fn contract(version: &str) -> Contract {
    Contract::from_value(&json(&format!(
        r#"{{"tool": "refund_create", "version": "{version}", "effect": "write", "approval": "always",
            "cost_minor": 0,
            "args": {{"type": "object", "required": ["order_id", "amount_minor"],
                     "properties": {{"order_id": {{"type": "string"}},
                                    "amount_minor": {{"type": "integer", "minimum": 1}}}}}}}}"#
    )))
    .unwrap()
}

fn proposal(c: &Contract, amount: i64) -> Action {
    let ids = ActionIds {
        tenant: "tenant-a",
        subject: "user:alice",
        job_id: "job-1",
        request_id: "req-1",
        policy_version: "p-1",
    };
    let args = json(&format!(
        r#"{{"order_id": "o-17", "amount_minor": {amount}}}"#
    ));
    Action::build(c, &args, &ids).unwrap()
}

/// `action`'s canonical text with `from` replaced by `to` (once), read back.
fn edited(action: &Action, from: &str, to: &str) -> OwnedValue {
    let text = crate::canonicalize(action.value());
    assert!(text.contains(from), "{from} not in {text}");
    json(&text.replacen(from, to, 1))
}

#[test]
fn a_reviewer_may_change_the_arguments_and_nothing_else() {
    let c = contract("1");
    let proposed = proposal(&c, 2500);
    let amended = amend_action(&proposed, &proposal(&c, 2000).value().clone(), &c).unwrap();
    assert_eq!(amended.digest(), proposal(&c, 2000).digest());
    assert_ne!(amended.digest(), proposed.digest());
    assert_eq!(
        amended_pointers(proposed.value(), amended.value()),
        ["/args/amount_minor"]
    );

    let cases = [
        (
            "\"tenant-a\"",
            "\"tenant-b\"",
            Code::AmendIdentityChanged,
            "/tenant",
        ),
        (
            "\"user:alice\"",
            "\"user:eve\"",
            Code::AmendIdentityChanged,
            "/subject",
        ),
        (
            "\"job-1\"",
            "\"job-2\"",
            Code::AmendIdentityChanged,
            "/job_id",
        ),
        (
            "\"req-1\"",
            "\"req-2\"",
            Code::AmendIdentityChanged,
            "/request_id",
        ),
        (
            "\"refund_create\"",
            "\"wire_transfer\"",
            Code::AmendToolChanged,
            "/tool",
        ),
        (
            "\"p-1\"",
            "\"p-2\"",
            Code::AmendPolicyChanged,
            "/policy_version",
        ),
    ];
    for (from, to, code, path) in cases {
        let e = amend_action(&proposed, &edited(&proposed, from, to), &c).unwrap_err();
        assert_eq!((e.code(), e.path()), (code, path), "{to}");
    }
    // Another contract named by the action, or another contract in force.
    let other = contract("2");
    let e = amend_action(
        &proposed,
        &edited(&proposed, c.digest_text(), other.digest_text()),
        &c,
    )
    .unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::AmendContractChanged, "/contract")
    );
    let e = amend_action(&proposed, proposed.value(), &other).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::AmendContractChanged, "/contract")
    );
    // Arguments the contract refuses keep the schema's code, under /args.
    let e = amend_action(&proposed, &edited(&proposed, "2500", "0"), &c).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::OutOfRange, "/args/amount_minor")
    );
    let e = amend_action(&proposed, &edited(&proposed, "2500", "\"2500\""), &c).unwrap_err();
    assert_eq!(e.code(), Code::TypeMismatch);
    // Not an envelope at all.
    let e = amend_action(&proposed, &json(r#"{"args": {}}"#), &c).unwrap_err();
    assert_eq!(e.code(), Code::InvalidAction);
    // Several fields changed: the first in the fixed order is named.
    let new_policy = Action::from_value(&edited(&proposed, "\"p-1\"", "\"p-2\"")).unwrap();
    let both = edited(&new_policy, "\"tenant-a\"", "\"t\"");
    assert_eq!(
        amend_action(&proposed, &both, &c).unwrap_err().code(),
        Code::AmendIdentityChanged
    );
}

#[test]
fn only_a_task_awaiting_a_decision_can_be_amended() {
    for &state in State::ALL {
        let s = Snapshot {
            state,
            fence: 0,
            lease_until: None,
        };
        match next(&s, Op::Amend, 0) {
            Ok(to) => {
                assert!(matches!(
                    state,
                    State::AwaitingApproval | State::AwaitingReapproval
                ));
                assert_eq!(to, state, "an amendment does not move the task");
            }
            Err(e) => {
                assert_eq!(e.code(), Code::TaskNotAwaitingDecision, "{state:?}");
                assert!(e.message().contains(state.as_str()), "{e}");
            }
        }
    }
}

#[test]
fn amendment_requests_are_strict() {
    let c = contract("1");
    let a = proposal(&c, 2500);
    let text = format!(
        r#"{{"task_id": "task_1", "amends": "{}", "action": {}, "reviewer": "user:bob",
            "reason": "the customer asked for 20.00"}}"#,
        a.digest(),
        crate::canonicalize(a.value())
    );
    let am = Amendment::from_value(&json(&text)).unwrap();
    assert_eq!(am.amends, a.digest());
    let back = Amendment::from_value(&am.to_value()).unwrap();
    assert_eq!(back.to_value(), am.to_value());
    // The audit keeps the reason's fingerprint, not its words.
    assert_ne!(am.reason_digest(), Digest::of(am.reason.as_bytes()));
    let long = "x".repeat(MAX_REASON_CHARS + 1);
    for (bad, path) in [
        (text.replace("\"user:bob\"", "\" user:bob\""), "/reviewer"),
        (
            text.replace("the customer asked for 20.00", "  "),
            "/reason",
        ),
        (
            text.replace("the customer asked for 20.00", &long),
            "/reason",
        ),
        (text.replace("\"sha256:", "\"sha1:"), "/amends"),
        (text.replace("\"task_1\"", "\"\""), "/task_id"),
        (text.replace("\"reviewer\"", "\"approver\""), "/approver"),
    ] {
        let e = Amendment::from_value(&json(&bad)).unwrap_err();
        assert_eq!((e.code(), e.path()), (Code::InvalidRequest, path), "{bad}");
    }
}

fn decision(proposed: Option<Digest>) -> DecisionInput<'static> {
    DecisionInput {
        approval_id: "apr-1",
        decision_id: "dec-1",
        decision: Decision::Approved,
        approver: "user:bob",
        decided_at: 100,
        expires_at: 1_000,
        proposed_digest: proposed,
        role: None,
        on_behalf_of: None,
        delegation: None,
    }
}

#[test]
fn an_amended_approval_permits_the_amended_action_only() {
    let c = contract("1");
    let proposed = proposal(&c, 2500);
    let amended = amend_action(&proposed, proposal(&c, 2000).value(), &c).unwrap();
    let record = Approval::decide(&amended, &decision(Some(proposed.digest()))).unwrap();
    assert_eq!(record.proposed_digest(), Some(proposed.digest()));
    assert_eq!(record.action_digest(), amended.digest());
    assert!(record.is_sealed());
    // The record reads back, and says where the action came from.
    let again = Approval::from_value(record.value()).unwrap();
    assert_eq!(again.proposed_digest(), Some(proposed.digest()));

    let context = json(&format!(
        r#"{{"now": 500, "tenant": "tenant-a", "policy_version": "p-1", "contract": {},
            "approver_authorized": {{"approver": "user:bob", "authorized": true}},
            "subject_authorized": {{"subject": "user:alice", "authorized": true}},
            "revoked": {{"approval_id": "apr-1", "revoked": false}}}}"#,
        crate::canonicalize(c.document())
    ));
    let v = check(Some(record.value()), amended.value(), &context).unwrap();
    assert_eq!(v.outcome.as_str(), "permit");
    assert_eq!(v.approved_digest, Some(amended.digest()));
    // The model's original proposal now drifts from what was decided.
    let v = check(Some(record.value()), proposed.value(), &context).unwrap();
    assert_eq!(v.outcome.as_str(), "reject");
    assert_eq!(v.drift, ["/args/amount_minor"]);

    // "Not amended" has one spelling: no proposed_digest.
    let e = Approval::decide(&amended, &decision(Some(amended.digest()))).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::InvalidApproval, "/proposed_digest")
    );
    let plain = Approval::decide(&amended, &decision(None)).unwrap();
    assert!(plain.proposed_digest().is_none());
    let text = crate::canonicalize(plain.value());
    assert!(!text.contains("proposed_digest"));
    let same = json(&text.replacen(
        "\"expires_at\"",
        &format!(
            "\"proposed_digest\":\"{}\",\"expires_at\"",
            amended.digest()
        ),
        1,
    ));
    let e = Approval::from_value(&same).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::InvalidApproval, "/proposed_digest")
    );
    let v = check(Some(&same), amended.value(), &context).unwrap();
    assert_eq!(
        v.reasons.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
        ["invalid_approval"]
    );
}

#[test]
fn amend_checks_an_edit_as_the_ledger_will_and_says_what_changed() {
    let c = contract("1");
    let proposed = proposal(&c, 2500);
    let checked = amend(proposed.value(), proposal(&c, 2000).value(), &c).unwrap();
    assert_eq!(checked.action.digest(), proposal(&c, 2000).digest());
    assert_eq!(checked.proposed_digest, proposed.digest());
    assert_eq!(checked.amended_pointers, ["/args/amount_minor"]);
    assert!(checked.is_amended());
    // As JSON, under the names the task and the approval record use.
    let text = crate::canonicalize(&checked.to_value());
    assert_eq!(
        text,
        format!(
            r#"{{"action":{},"action_digest":"{}","amended_pointers":["/args/amount_minor"],"proposed_digest":"{}"}}"#,
            crate::canonicalize(checked.action.value()),
            checked.action.digest(),
            proposed.digest()
        )
    );
    // The decision that follows names the amended action and records the proposal.
    let record =
        Approval::decide(&checked.action, &decision(Some(checked.proposed_digest))).unwrap();
    assert_eq!(record.action_digest(), checked.action.digest());

    // No change (the same action, keys in another order): no pointer, one fingerprint.
    let reordered = json(&format!(
        r#"{{"args": {{"amount_minor": 2500, "order_id": "o-17"}}, "tool": "refund_create",
            "contract": "{}", "tenant": "tenant-a", "subject": "user:alice", "job_id": "job-1",
            "request_id": "req-1", "policy_version": "p-1"}}"#,
        c.digest_text()
    ));
    let same = amend(proposed.value(), &reordered, &c).unwrap();
    assert!(!same.is_amended());
    assert!(same.amended_pointers.is_empty());

    // The replacement's errors, at their path in it: amend_action's.
    let e = amend(proposed.value(), &edited(&proposed, "2500", "\"2000\""), &c).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::TypeMismatch, "/args/amount_minor")
    );
    let e = amend(
        proposed.value(),
        &edited(&proposed, "\"refund_create\"", "\"wire\""),
        &c,
    )
    .unwrap_err();
    assert_eq!((e.code(), e.path()), (Code::AmendToolChanged, "/tool"));
    // An edited action that is not the proposal's: its own error, at its path.
    let e = amend(&json(r#"{"args": {}}"#), proposed.value(), &c).unwrap_err();
    assert_eq!(e.code(), Code::InvalidAction);
}
