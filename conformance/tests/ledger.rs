//! The ledger's pure vectors in Rust: the transition table, derived identities and audit
//! chains (`conformance/vectors/ledger/`). The scenarios run on both database engines in the
//! ledger crate's own tests.

use actionseal_conformance::{decisions::core_value, dir, vectors};
use actionseal_core::ledger::{
    approval_id, idempotency_key, next, task_id, verify_audit_with, Expected, ExportedHeads,
    Observed, Op, Reported, Snapshot, State,
};
use actionseal_core::{Decision, Digest};
use serde_json::{json, Value as Json};

fn load(name: &str) -> Json {
    let path = dir().join("vectors/ledger").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn op(name: &str, fence: i64) -> Op {
    match name {
        "amend" => Op::Amend,
        "decide_approved" => Op::Decide(Decision::Approved),
        "decide_rejected" => Op::Decide(Decision::Rejected),
        "claim_permit" => Op::ClaimPermit,
        "claim_drift" => Op::ClaimDrift,
        "claim_reapprove" => Op::ClaimReapprove,
        "claim_reject" => Op::ClaimReject,
        "expire_lease" => Op::ExpireLease,
        n if n.starts_with("complete_") => Op::Complete {
            fence,
            reported: Reported::parse(&n["complete_".len()..]).unwrap(),
        },
        n if n.starts_with("reconcile_") => {
            Op::Reconcile(Observed::parse(&n["reconcile_".len()..]).unwrap())
        }
        n => panic!("unknown op {n}"),
    }
}

fn outcome(r: actionseal_core::Result<State>) -> String {
    match r {
        Ok(s) => s.as_str().to_owned(),
        Err(e) => format!("error:{}", e.code()),
    }
}

#[test]
fn every_state_against_every_operation() {
    let doc = load("transitions.json");
    let table = doc["table"].as_object().unwrap();
    assert_eq!(table.len(), State::ALL.len());
    let mut n = 0;
    for (state, row) in table {
        let s = Snapshot {
            state: State::parse(state).unwrap(),
            fence: 1,
            lease_until: Some(1_000),
        };
        for (name, want) in row.as_object().unwrap() {
            assert_eq!(
                outcome(next(&s, op(name, 1), 0)),
                want.as_str().unwrap(),
                "{state} {name}"
            );
            n += 1;
        }
    }
    assert_eq!(n, 9 * 14);
    for case in doc["fences"].as_array().unwrap() {
        let s = Snapshot {
            state: State::parse(case["state"].as_str().unwrap()).unwrap(),
            fence: case["fence"].as_i64().unwrap(),
            lease_until: case["lease_until"].as_i64(),
        };
        let got = next(
            &s,
            op(
                case["op"].as_str().unwrap(),
                case["op_fence"].as_i64().unwrap(),
            ),
            case["now"].as_i64().unwrap(),
        );
        assert_eq!(
            outcome(got),
            case["expect"].as_str().unwrap(),
            "{}",
            case["description"]
        );
    }
}

#[test]
fn derived_identities_never_change() {
    for c in load("ids.json")["cases"].as_array().unwrap() {
        let s = |k: &str| c[k].as_str().unwrap();
        let t = task_id(s("tenant"), s("job_id"), s("request_id"));
        let got = json!({
            "task_id": t,
            "idempotency_key": idempotency_key(s("tenant"), s("job_id"), s("request_id")),
            "approval_ids": [approval_id(&t, 1), approval_id(&t, 2)],
        });
        assert_eq!(got, c["expect"]);
    }
}

#[test]
fn audit_chains_break_at_the_named_seq() {
    let all = vectors("ledger/audit");
    assert!(all.len() >= 11);
    for v in all {
        let heads: Vec<(i64, i64, Digest)> = v.doc["heads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["chain"].as_i64().unwrap(),
                    h["seq"].as_i64().unwrap(),
                    h["digest"].as_str().unwrap().parse::<Digest>().unwrap(),
                )
            })
            .collect();
        // Heads exported earlier, kept outside the database (a heads file), when given.
        let exported = v.doc.get("exported").map(|h| {
            ExportedHeads::from_value(&core_value(&h.to_string()).unwrap())
                .unwrap()
                .heads
        });
        let report = verify_audit_with(
            &v.input(),
            &Expected {
                recorded: &heads,
                exported: exported.as_deref().unwrap_or(&[]),
                rows: None,
                decisions: None,
                policy: None,
            },
        );
        let got: Json =
            serde_json::from_str(&actionseal_core::canonicalize(&report.to_value())).unwrap();
        for (k, want) in v.doc["expect"].as_object().unwrap() {
            assert_eq!(&got[k], want, "{} {k}", v.name);
        }
        assert_eq!(
            v.name.starts_with("y_"),
            report.broken.is_none(),
            "{}",
            v.name
        );
    }
    // The reader the vectors use is the strict one.
    assert!(core_value("{\"a\":1,\"a\":2}").is_err());
}
