use super::*;
use crate::{parse, Options};

fn value(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .expect("JSON")
        .into_owned()
}

const DIGEST: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

fn task(state: &str) -> String {
    format!(
        r#"{{"id": "t1", "state": "{state}", "action": {{"tool": "refund_create", "args": {{"amount_minor": 2500}}}},
            "action_digest": "{DIGEST}", "proposed_digest": "{DIGEST}", "approval_id": "a1", "result": null}}"#
    )
}

fn step(text: &str) -> Gate {
    gate_step(&value(text)).expect("a decision")
}

#[test]
fn a_waiting_task_pauses_and_another_is_claimed() {
    let presented = r#"{"tool": "refund_create", "args": {"amount_minor": 2500}}"#;
    let waits = step(&format!(
        r#"{{"step": "propose", "task": {}, "presented": {presented}}}"#,
        task("awaiting_approval")
    ));
    assert!(matches!(&waits, Gate::Pause { task_id, .. } if task_id == "t1"));
    let claims = step(&format!(
        r#"{{"step": "propose", "task": {}, "presented": {presented}}}"#,
        task("approved")
    ));
    assert_eq!(
        claims,
        Gate::Claim {
            action: value(presented),
            unit: Unit::Task,
        }
    );
}

#[test]
fn the_message_is_the_prefix_and_canonical_json() {
    let g = step(&format!(
        r#"{{"step": "claim", "task": {}, "error": {{"code": "already_claimed", "path": "", "message": "m"}}}}"#,
        task("succeeded")
    ));
    let Gate::Refuse(r) = g else { panic!("{g:?}") };
    assert_eq!(r.code(), "already_claimed");
    assert!(r
        .message()
        .starts_with("actionseal: {\"error\":\"already_claimed\","));
    assert_eq!(r.payload.pointer("/result"), Some(&Value::Null));
}

#[test]
fn errors_that_are_not_the_gates_are_raised() {
    for (s, e) in [
        ("claim", "ledger_unavailable"),
        ("claim", "no_such_code"),
        ("complete", "ledger_storage"),
    ] {
        let extra = if s == "claim" {
            format!(r#", "task": {}"#, task("approved"))
        } else {
            String::new()
        };
        let g = step(&format!(
            r#"{{"step": "{s}"{extra}, "error": {{"code": "{e}", "path": "", "message": "m"}}}}"#
        ));
        assert_eq!(g, Gate::Raise, "{s} {e}");
    }
    let late =
        r#"{"step": "complete", "error": {"code": "lease_expired", "path": "", "message": "m"}}"#;
    assert_eq!(step(late), Gate::Keep);
}

#[test]
fn malformed_steps_are_invalid_requests() {
    for (text, path) in [
        (r#"{"step": "propose"}"#, "/task"),
        (r#"{"step": "fly"}"#, "/step"),
        (r#"{"step": "invoke", "tool": "x", "task": {}}"#, "/task"),
        (r#"{"step": "complete"}"#, "/error"),
        (
            r#"{"step": "claim", "outcome": {"result": "won"}}"#,
            "/outcome/result",
        ),
    ] {
        let e = gate_step(&value(text)).expect_err(text);
        assert_eq!((e.code(), e.path()), (Code::InvalidRequest, path), "{text}");
    }
}

#[test]
fn the_defaults() {
    assert_eq!(
        canonicalize(&defaults()),
        r#"{"executor":"actionseal-adapter","lease_ms":300000,"proposer":"agent"}"#
    );
}

/// A waiting task of a two-approver quorum (finance and risk) that finance approved.
fn partial(state: &str) -> String {
    let t = task(state);
    let quorum = r#", "quorum": {"required": 2, "counted": [{"approver": "user:carol", "role": "finance",
        "decision_id": "d-1", "delegate": null, "delegations": []}], "missing": 1,
        "missing_roles": [{"role": "risk", "count": 1}]}}"#;
    format!("{}{quorum}", &t[..t.len() - 1])
}

#[test]
fn a_partial_quorum_says_how_many_approvals_and_which_roles_are_missing() {
    let presented = r#"{"tool": "refund_create", "args": {"amount_minor": 2500}}"#;
    let g = step(&format!(
        r#"{{"step": "propose", "task": {}, "presented": {presented}}}"#,
        partial("awaiting_approval")
    ));
    let Gate::Pause {
        request, refusal, ..
    } = g
    else {
        panic!("{g:?}")
    };
    assert_eq!(
        refusal.payload.pointer("/message").and_then(Value::as_str),
        Some(
            "refund_create is waiting for 1 more approval (awaiting_approval: 1 of 2 approvals \
             given; roles still needed: risk); nothing ran."
        )
    );
    assert_eq!(
        canonicalize(refusal.payload.pointer("/quorum").expect("counts")),
        r#"{"given":1,"missing":1,"missing_roles":[{"count":1,"role":"risk"}],"required":2}"#
    );
    // The reviewer sees who approved; the model reads counts only.
    assert_eq!(
        request
            .pointer("/quorum/counted/0/approver")
            .and_then(Value::as_str),
        Some("user:carol")
    );
    assert!(!refusal.message().contains("user:carol"));
}

#[test]
fn a_task_without_a_quorum_or_with_a_met_one_reads_as_before() {
    let presented = r#"{"tool": "refund_create", "args": {"amount_minor": 2500}}"#;
    let plain = step(&format!(
        r#"{{"step": "propose", "task": {}, "presented": {presented}}}"#,
        task("awaiting_approval")
    ));
    let t = task("awaiting_approval");
    let null = step(&format!(
        r#"{{"step": "propose", "task": {}, "quorum": null}}, "presented": {presented}}}"#,
        &t[..t.len() - 1]
    ));
    assert_eq!(plain, null);
    let Gate::Pause { refusal, .. } = plain else {
        panic!("{plain:?}")
    };
    assert!(refusal.payload.pointer("/quorum").is_none());
}

#[test]
fn a_malformed_quorum_is_an_invalid_request() {
    let t = partial("awaiting_approval").replace(r#""missing": 1"#, r#""missing": 3"#);
    let e = gate_step(&value(&format!(r#"{{"step": "resume", "task": {t}}}"#)))
        .expect_err("missing > required");
    assert_eq!((e.code(), e.path()), (Code::InvalidRequest, "/task/quorum"));
}
