use super::*;
use crate::{parse, Contract, Options};

fn contract(approval: &str) -> Result<Contract> {
    let text = format!(
        r#"{{"tool":"t","version":"1","effect":"write","approval":{approval},"cost_minor":0,
            "args":{{"type":"object"}}}}"#
    );
    Contract::from_value(&parse(text.as_bytes(), &Options::default()).unwrap())
}

fn refused(approval: &str) -> String {
    let e = contract(approval).unwrap_err();
    assert_eq!(e.code(), Code::InvalidContract, "{approval}");
    e.path().to_owned()
}

fn member(approver: &str, role: Option<&str>, at: i64) -> Member {
    Member {
        approver: approver.into(),
        role: role.map(Into::into),
        decision: Decision::Approved,
        decided_at: at,
        decision_id: format!("d-{approver}-{at}"),
        delegate: None,
        delegations: Vec::new(),
    }
}

const FOUR_EYES: &str = r#"{"when":"always","quorum":{"approvers":2,
    "roles":[{"role":"finance","count":1},{"role":"risk","count":1}],"order":"as_listed"}}"#;

#[test]
fn a_quorum_is_read_with_its_defaults() {
    let c = contract(r#"{"when":"always","quorum":{"approvers":3}}"#).unwrap();
    let q = c.quorum().unwrap();
    assert_eq!(
        (q.approvers, q.roles.len(), q.order, q.veto),
        (3, 0, Order::Any, Veto::AnyRejection)
    );
    assert_eq!(c.separation(), [Duty::Subject, Duty::Proposer]);
    assert_eq!(c.approval(), &ApprovalRule::Always);
    let c = contract(FOUR_EYES).unwrap();
    let q = c.quorum().unwrap();
    assert_eq!(q.order, Order::AsListed);
    assert_eq!(
        q.roles[1],
        RoleCount {
            role: "risk".into(),
            count: 1
        }
    );
}

#[test]
fn separation_applies_as_listed_and_always_under_a_quorum() {
    let c = contract(r#"{"when":"always","separation":["amender","subject"]}"#).unwrap();
    assert!(c.quorum().is_none());
    assert_eq!(c.separation(), [Duty::Subject, Duty::Amender]);
    let c =
        contract(r#"{"when":"always","quorum":{"approvers":1},"separation":["amender"]}"#).unwrap();
    assert_eq!(c.separation(), Duty::ALL);
    for old in [
        r#""always""#,
        r#""never""#,
        r#"{"when":[{"pointer":"/n","op":"exists"}]}"#,
    ] {
        let c = contract(old).unwrap();
        assert!(c.quorum().is_none() && c.separation().is_empty(), "{old}");
    }
    let c =
        contract(r#"{"when":[{"pointer":"/n","op":"exists"}],"separation":["subject"]}"#).unwrap();
    assert!(matches!(c.approval(), ApprovalRule::When(_)));
}

#[test]
fn malformed_quorums_are_refused_at_the_member() {
    for (approval, path) in [
        (r#"{"when":"always"}"#, "/approval/when"),
        (
            r#"{"when":"never","quorum":{"approvers":2}}"#,
            "/approval/when",
        ),
        (r#"{"quorum":{"approvers":2}}"#, "/approval/when"),
        (r#"{"when":[],"quorum":{"approvers":2}}"#, "/approval/when"),
        (
            r#"{"when":"always","quorum":{"approvers":0}}"#,
            "/approval/quorum/approvers",
        ),
        (
            r#"{"when":"always","quorum":{"approvers":17}}"#,
            "/approval/quorum/approvers",
        ),
        (
            r#"{"when":"always","quorum":{"approvers":1.5}}"#,
            "/approval/quorum/approvers",
        ),
        (
            r#"{"when":"always","quorum":{}}"#,
            "/approval/quorum/approvers",
        ),
        (
            r#"{"when":"always","quorum":{"approvers":2,"x":1}}"#,
            "/approval/quorum/x",
        ),
        (
            r#"{"when":"always","quorum":{"approvers":2,"roles":[]}}"#,
            "/approval/quorum/roles",
        ),
        (
            r#"{"when":"always","quorum":{"approvers":2,"roles":[{"role":"a","count":0}]}}"#,
            "/approval/quorum/roles/0/count",
        ),
        (
            r#"{"when":"always","quorum":{"approvers":2,"roles":[{"role":"a","count":1},{"role":"a","count":1}]}}"#,
            "/approval/quorum/roles/1/role",
        ),
        (
            r#"{"when":"always","quorum":{"approvers":2,"roles":[{"role":"a","count":2},{"role":"b","count":1}]}}"#,
            "/approval/quorum/roles/1/count",
        ),
        (
            r#"{"when":"always","quorum":{"approvers":2,"roles":[{"role":"a b","count":1}]}}"#,
            "/approval/quorum/roles/0/role",
        ),
        (
            r#"{"when":"always","quorum":{"approvers":2,"order":"as_listed"}}"#,
            "/approval/quorum/order",
        ),
        (
            r#"{"when":"always","quorum":{"approvers":2,"order":"any "}}"#,
            "/approval/quorum/order",
        ),
        (
            r#"{"when":"always","quorum":{"approvers":2,"veto":"all"}}"#,
            "/approval/quorum/veto",
        ),
        (
            r#"{"when":"always","separation":[]}"#,
            "/approval/separation",
        ),
        (
            r#"{"when":"always","separation":"subject"}"#,
            "/approval/separation",
        ),
        (
            r#"{"when":"always","separation":["subject","boss"]}"#,
            "/approval/separation/1",
        ),
        (
            r#"{"when":"always","separation":["subject","subject"]}"#,
            "/approval/separation/1",
        ),
        (
            r#"{"when":"always","separation":["subject"],"y":1}"#,
            "/approval/y",
        ),
    ] {
        assert_eq!(refused(approval), path, "{approval}");
    }
}

#[test]
fn tally_counts_each_person_once_for_their_role() {
    let c = contract(FOUR_EYES).unwrap();
    let q = c.quorum().unwrap();
    let state = tally(q, &[member("carol", Some("finance"), 1)]);
    assert_eq!((state.missing, state.holds()), (1, false));
    assert_eq!(
        state.missing_roles,
        [RoleCount {
            role: "risk".into(),
            count: 1
        }]
    );
    let twice = [
        member("carol", Some("finance"), 1),
        member("carol", Some("risk"), 2),
    ];
    let state = tally(q, &twice);
    assert_eq!((state.counted.len(), state.missing), (1, 1));
    let both = [
        member("carol", Some("finance"), 1),
        member("erin", Some("risk"), 2),
    ];
    let state = tally(q, &both);
    assert!(state.holds());
    assert!(!q.out_of_order(&state.counted));
    let late = [
        member("carol", Some("finance"), 3),
        member("erin", Some("risk"), 2),
    ];
    assert!(q.out_of_order(&tally(q, &late).counted));
    // Two of one role do not make up for a missing one.
    let finance = [
        member("carol", Some("finance"), 1),
        member("dan", Some("finance"), 2),
    ];
    let state = tally(q, &finance);
    assert_eq!((state.counted.len(), state.missing), (2, 1));
    // A rejection does not count; a delegate is the same person as its own approval.
    let mut rejected = member("erin", Some("risk"), 2);
    rejected.decision = Decision::Rejected;
    assert_eq!(tally(q, &[both[0].clone(), rejected]).missing, 1);
    let mut alias = member("frank", Some("risk"), 4);
    alias.delegate = Some("carol".into());
    assert_eq!(tally(q, &[both[0].clone(), alias]).counted.len(), 1);
}

#[test]
fn quorum_state_as_json() {
    let q = Quorum {
        approvers: 2,
        roles: Vec::new(),
        order: Order::Any,
        veto: Veto::AnyRejection,
    };
    let mut m = member("carol", None, 1);
    m.delegate = Some("dave".into());
    m.delegations = vec![Digest::of(b"x")];
    let text = crate::canonicalize(&tally(&q, &[m]).to_value());
    assert_eq!(
        text,
        format!(
            r#"{{"counted":[{{"approver":"carol","decision_id":"d-carol-1","delegate":"dave","delegations":["{}"],"role":null}}],"missing":1,"missing_roles":[],"required":2}}"#,
            Digest::of(b"x")
        )
    );
}
