use super::*;
use crate::json::value::OwnedValue;
use crate::{check_approval, parse, Action, ActionIds, Code, DecisionInput, Options};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

const QUORUM: &str = r#"{"when":"always","quorum":{"approvers":2,
    "roles":[{"role":"finance","count":1},{"role":"risk","count":1}],"order":"as_listed"}}"#;

fn contract(approval: &str) -> Contract {
    Contract::from_value(&json(&format!(
        r#"{{"tool":"t","version":"1","effect":"write","approval":{approval},"cost_minor":0,
            "args":{{"type":"object","properties":{{"n":{{"type":"integer"}}}}}}}}"#
    )))
    .unwrap()
}

fn action(c: &Contract) -> Action {
    let ids = ActionIds {
        tenant: "a",
        subject: "s",
        job_id: "j",
        request_id: "r",
        policy_version: "p",
    };
    Action::build(c, &json(r#"{"n":1}"#), &ids).unwrap()
}

/// A decision by `approver` in `role`, at `at`.
fn record(a: &Action, approver: &str, role: Option<&str>, at: i64) -> OwnedValue {
    let id = format!("d-{approver}-{at}");
    let d = DecisionInput {
        approval_id: "ap",
        decision_id: &id,
        decision: Decision::Approved,
        approver,
        decided_at: at,
        expires_at: 100,
        proposed_digest: None,
        role,
        on_behalf_of: None,
        delegation: None,
    };
    Approval::decide(a, &d).unwrap().value().clone()
}

/// Facts: carol and erin authorized, carol finance, erin risk, proposer bob.
const FACTS: &str = r#""proposer":"bob","now":50,"tenant":"a","policy_version":"p",
    "approver_authorized":[{"approver":"carol","authorized":true},
                           {"approver":"erin","authorized":true},
                           {"approver":"s","authorized":true}],
    "approver_roles":[{"approver":"carol","role":"finance","holds":true},
                      {"approver":"erin","role":"risk","holds":true}],
    "subject_authorized":{"subject":"s","authorized":true},
    "revoked":{"approval_id":"ap","revoked":false}"#;

fn ctx(c: &Contract, facts: &str) -> Context {
    Context::with_contract(&json(&format!("{{{facts}}}")), Some(c.clone())).unwrap()
}

fn reasons(c: &Contract, set: &[OwnedValue], facts: &str) -> Vec<Reason> {
    check_set_with(set, action(c).value(), &ctx(c, facts)).reasons
}

#[test]
fn a_quorum_permits_only_when_met() {
    let c = contract(QUORUM);
    let a = action(&c);
    let carol = record(&a, "carol", Some("finance"), 10);
    let erin = record(&a, "erin", Some("risk"), 20);
    let v = check_set_with(&[carol.clone(), erin.clone()], a.value(), &ctx(&c, FACTS));
    assert_eq!(v.reasons, []);
    let q = v.quorum.unwrap();
    assert_eq!((q.required, q.missing, q.counted.len()), (2, 0, 2));
    let v = check_set_with(std::slice::from_ref(&carol), a.value(), &ctx(&c, FACTS));
    assert_eq!(v.reasons, [Reason::QuorumShort]);
    assert_eq!(v.quorum.unwrap().missing_roles[0].role, "risk");
    assert_eq!(
        reasons(&c, &[erin.clone(), carol.clone()], FACTS),
        [],
        "set order is not decision order"
    );
    let early = record(&a, "erin", Some("risk"), 5);
    assert_eq!(
        reasons(&c, &[carol.clone(), early], FACTS),
        [Reason::QuorumOutOfOrder]
    );
    let again = record(&a, "carol", Some("risk"), 30);
    assert_eq!(
        reasons(&c, &[carol.clone(), again], FACTS),
        [
            Reason::RoleNotHeld,
            Reason::ApproverCountedTwice,
            Reason::QuorumShort
        ]
    );
    assert_eq!(
        reasons(&c, &[carol.clone(), carol.clone()], FACTS),
        [Reason::DuplicateDecision, Reason::QuorumShort]
    );
    // An empty set is no approval, and the quorum still says what is missing.
    let v = check_set_with(&[], a.value(), &ctx(&c, FACTS));
    assert_eq!(v.reasons, [Reason::NoApproval]);
    assert_eq!(v.quorum.unwrap().missing, 2);
}

#[test]
fn separation_and_veto() {
    let c = contract(QUORUM);
    let a = action(&c);
    let carol = record(&a, "carol", Some("finance"), 10);
    let erin = record(&a, "erin", Some("risk"), 20);
    let subject = record(&a, "s", None, 20);
    assert_eq!(
        reasons(&c, &[carol.clone(), subject], FACTS),
        [Reason::ApproverIsSubject, Reason::QuorumShort]
    );
    let proposer = FACTS.replace(r#""proposer":"bob""#, r#""proposer":"erin""#);
    assert_eq!(
        reasons(&c, &[carol.clone(), erin.clone()], &proposer),
        [Reason::ApproverIsProposer, Reason::QuorumShort]
    );
    let unknown = FACTS.replace(r#""proposer":"bob","#, "");
    assert_eq!(
        reasons(&c, &[carol.clone(), erin.clone()], &unknown),
        [Reason::ApproverIsProposer, Reason::QuorumShort]
    );
    let nobody = FACTS.replace(r#""proposer":"bob""#, r#""proposer":null"#);
    assert_eq!(reasons(&c, &[carol.clone(), erin.clone()], &nobody), []);
    let rejected = crate::canonicalize(&erin).replace(r#""approved""#, r#""rejected""#);
    let rejected = json(&rejected);
    assert_eq!(
        reasons(&c, &[carol.clone(), rejected.clone()], FACTS),
        [Reason::DecisionRejected, Reason::QuorumShort]
    );
    let no_veto = contract(&QUORUM.replace(r#""order""#, r#""veto":"none","order""#));
    let b = action(&no_veto);
    let rejected = crate::canonicalize(&record(&b, "erin", Some("risk"), 20))
        .replace(r#""approved""#, r#""rejected""#);
    let finance = record(&b, "carol", Some("finance"), 10);
    assert_eq!(
        reasons(&no_veto, &[finance, json(&rejected)], FACTS),
        [Reason::QuorumShort]
    );
    // Without a quorum, only the listed duties apply.
    let single = contract(r#"{"when":"always","separation":["subject"]}"#);
    let a = action(&single);
    let subject = record(&a, "s", None, 20);
    assert_eq!(
        reasons(&single, &[subject], &unknown),
        [Reason::ApproverIsSubject]
    );
    assert_eq!(
        reasons(&single, &[record(&a, "erin", None, 20)], &unknown),
        []
    );
}

#[test]
fn a_delegated_record_fails_closed_until_chains_are_verified() {
    let c = contract(QUORUM);
    let a = action(&c);
    let text = crate::canonicalize(&record(&a, "dave", Some("risk"), 20)).replace(
        r#""approver":"dave""#,
        r#""approver":"dave","on_behalf_of":"erin","delegation":[{"x":1}]"#,
    );
    let carol = record(&a, "carol", Some("finance"), 10);
    assert_eq!(
        reasons(&c, &[carol, json(&text)], FACTS),
        [Reason::DelegationInvalid, Reason::QuorumShort]
    );
}

#[test]
fn a_set_too_large_and_members_withdrawn() {
    let c = contract(QUORUM);
    let a = action(&c);
    let carol = record(&a, "carol", Some("finance"), 10);
    let erin = record(&a, "erin", Some("risk"), 20);
    let many: Vec<OwnedValue> = (0..=MAX_SET)
        .map(|i| record(&a, "carol", None, i as i64))
        .collect();
    assert_eq!(
        reasons(&c, &many, FACTS),
        [Reason::InvalidApproval, Reason::QuorumShort]
    );
    let withdrawn = FACTS.replace(
        r#""revoked":{"approval_id":"ap","revoked":false}"#,
        r#""revoked":[{"approval_id":"ap","revoked":false},{"decision_id":"d-erin-20","revoked":true}]"#,
    );
    assert_eq!(
        reasons(&c, &[carol, erin], &withdrawn),
        [Reason::Revoked, Reason::QuorumShort]
    );
}

#[test]
fn new_facts_are_read_strictly() {
    let c = contract(QUORUM);
    for (from, to, path) in [
        (
            r#"{"approver":"erin","authorized":true}"#,
            r#"{"approver":"carol","authorized":false}"#,
            "/approver_authorized/1/approver",
        ),
        (
            r#""approver_authorized":["#,
            r#""approver_authorized":[7,"#,
            "/approver_authorized/0",
        ),
        (
            r#"{"approver":"erin","role":"risk","holds":true}"#,
            r#"{"approver":"carol","role":"finance","holds":false}"#,
            "/approver_roles/1",
        ),
        (
            r#""holds":true}]"#,
            r#""holds":"yes"}]"#,
            "/approver_roles/1/holds",
        ),
        (r#""proposer":"bob""#, r#""proposer":"b b""#, "/proposer"),
        (
            r#""proposer":"bob""#,
            r#""proposer":"bob","amended_by":7"#,
            "/amended_by",
        ),
        (
            r#""revoked":{"approval_id":"ap","revoked":false}"#,
            r#""revoked":[{"approval_id":"ap","decision_id":"d","revoked":false}]"#,
            "/revoked/0",
        ),
        (
            r#""revoked":{"approval_id":"ap","revoked":false}"#,
            r#""revoked":[{"decision_id":"d","revoked":false},{"decision_id":"d","revoked":true}]"#,
            "/revoked/1/decision_id",
        ),
        (
            r#""revoked":{"approval_id":"ap","revoked":false}"#,
            r#""revoked":[]"#,
            "/revoked",
        ),
        (
            r#""proposer":"bob""#,
            r#""proposer":"bob","delegations_revoked":[{"delegation":"sha256:00","revoked":false}]"#,
            "/delegations_revoked/0/delegation",
        ),
        (
            r#""proposer":"bob""#,
            r#""proposer":"bob","delegations_revoked":{}"#,
            "/delegations_revoked",
        ),
    ] {
        let text = format!("{{{}}}", FACTS.replacen(from, to, 1));
        let e = Context::with_contract(&json(&text), Some(c.clone())).unwrap_err();
        assert_eq!((e.code(), e.path()), (Code::InvalidContext, path), "{to}");
    }
    let digest = format!("sha256:{}", "ab".repeat(32));
    let text = format!(
        r#"{{{FACTS},"delegations_revoked":[{{"delegation":"{digest}","revoked":true}}]}}"#
    );
    let ctx = Context::with_contract(&json(&text), Some(c)).unwrap();
    assert_eq!(ctx.delegation_revoked(&digest.parse().unwrap()), Some(true));
    assert_eq!(ctx.delegation_revoked(&Digest::of(b"x")), None);
    assert!(ctx.approver_authorized("erin") && !ctx.approver_authorized("bob"));
}

#[test]
fn a_frozen_action_presented_itself_gives_the_verdict_of_an_equal_copy() {
    // A binding that finds the presented action the same as a loaded approval's frozen one
    // passes that value itself, whose fields are then compared with the context once, as the
    // member's. The verdict is an equal copy's, whatever the context says, and whether the
    // member is compared at all or not (a rejection under veto `none` is not).
    let always = contract(r#""always""#);
    let no_veto = contract(&QUORUM.replace(r#""order""#, r#""veto":"none","order""#));
    for (c, other) in [(&always, &no_veto), (&no_veto, &always)] {
        let a = action(c);
        for decision in [Decision::Approved, Decision::Rejected] {
            let d = DecisionInput {
                approval_id: "ap",
                decision_id: "d",
                decision,
                approver: "carol",
                decided_at: 10,
                expires_at: 100,
                proposed_digest: None,
                role: Some("finance"),
                on_behalf_of: None,
                delegation: None,
            };
            let loaded = Approval::decide(&a, &d).unwrap();
            let copy = a.value().clone();
            for (facts, contract, reason) in [
                (FACTS.to_owned(), c, None),
                (
                    FACTS.replace(r#""tenant":"a""#, r#""tenant":"x""#),
                    c,
                    Some(Reason::TenantMismatch),
                ),
                (
                    FACTS.replace(r#""subject":"s""#, r#""subject":"x""#),
                    c,
                    Some(Reason::SubjectUnauthorized),
                ),
                (
                    FACTS.replace(r#""policy_version":"p""#, r#""policy_version":"x""#),
                    c,
                    Some(Reason::PolicyDrift),
                ),
                (FACTS.to_owned(), other, Some(Reason::ContractDrift)),
            ] {
                let ctx = ctx(contract, &facts);
                let itself = check_approval(Some(&loaded), loaded.action().value(), &ctx);
                let equal = check_approval(Some(&loaded), &copy, &ctx);
                assert_eq!(
                    crate::canonicalize(&itself.to_value()),
                    crate::canonicalize(&equal.to_value()),
                    "{decision:?} {facts}"
                );
                if let Some(reason) = reason {
                    assert!(itself.reasons.contains(&reason), "{decision:?} {facts}");
                }
            }
        }
    }
}
