//! Sensitive values in the ledger (issue 29), on both engines: a task under a contract that
//! marks values sensitive is frozen committed and its disclosures kept apart; a claim gets the
//! values back, checked; redaction, retention and a finish shred them, audited without a
//! value; a shredded task that has not run is refused with a code of its own, and its audit
//! and evidence still verify; and afterwards no byte of a value is left in the SQLite file and
//! its log, or in a dump of the PostgreSQL database.

mod common;

use actionseal_core::batch::Semantics;
use actionseal_core::evidence::verify_evidence;
use actionseal_core::ledger::{Observed, Reported};
use actionseal_core::sensitive::{reveal, Coverage};
use actionseal_core::tlog::note::SignerKey;
use actionseal_core::{canonicalize, Code, Contract, OwnedValue};
use actionseal_ledger::{
    AtFinish, ClaimOutcome, DisclosureExport, Ledger, LedgerOptions, ManualClock, Task,
};
use common::*;
use std::sync::Arc;

/// Strings no other part of an action holds: a scan for them finds the values only.
const EMAIL: &str = "erin.sensitive-5c1d@example.com";
const CARD: &str = "4929-SENSITIVE-7301-PAN";

/// The seed refund tool with the customer's e-mail (`pii`) and card number (`pci`) marked
/// sensitive; every call needs a person.
fn sensitive_contract() -> OwnedValue {
    json(
        r#"{"tool": "refund_create", "version": "1", "effect": "write", "approval": "always",
            "cost_minor": 0,
            "sensitive": {"/args/customer_email": "pii", "/args/card_number": "pci"},
            "args": {"type": "object", "required": ["order_id", "amount_minor", "currency"],
                     "properties": {"order_id": {"type": "string"},
                                    "amount_minor": {"type": "integer", "minimum": 1},
                                    "currency": {"type": "string", "enum": ["CNY", "USD"]},
                                    "customer_email": {"type": "string"},
                                    "card_number": {"type": "string"}}}}"#,
    )
}

/// A refund of order `i` paid back to `EMAIL`'s card (with `tag` appended to both values, so
/// that each task has values of its own).
fn sensitive_refund(job: &str, i: usize, tag: &str) -> OwnedValue {
    action(
        &sensitive_contract(),
        &format!(
            r#"{{"order_id": "order-{i}", "amount_minor": 2500, "currency": "USD",
                "customer_email": "{EMAIL}{tag}", "card_number": "{CARD}{tag}"}}"#
        ),
        job,
        &format!("req-{i}"),
    )
}

fn claim(
    l: &Ledger,
    task: &str,
    act: &OwnedValue,
    executor: &str,
) -> actionseal_core::Result<ClaimOutcome> {
    claim_under(l, task, act, &sensitive_contract(), executor)
}

/// Proposed and approved: claimable.
fn approved(l: &Ledger, act: &OwnedValue, decision_id: &str) -> Task {
    let t = l.propose(act, &sensitive_contract(), "agent").unwrap();
    l.decide(&decision(&t, decision_id, "approved", l.now(), 24 * HOUR))
        .unwrap();
    t
}

fn shredded_in_db(db: &Db, task: &str) -> Vec<Vec<Option<String>>> {
    db.texts(&format!(
        "SELECT pointer, class, disclosure FROM ledger_disclosures WHERE task_id = '{task}' \
         ORDER BY pointer"
    ))
}

#[test]
fn a_task_is_frozen_committed_and_its_values_kept_apart() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let act = sensitive_refund("job-1", 1, "");
        let t = l.propose(&act, &sensitive_contract(), "agent").unwrap();
        let frozen = canonicalize(t.action.value());
        assert!(
            !frozen.contains(EMAIL) && !frozen.contains(CARD),
            "{engine:?}: {frozen}"
        );
        assert!(
            frozen.contains(r#""customer_email":{"_sd":"sha256:"#),
            "{frozen}"
        );
        // The same call proposed again (fresh salts, same values) is the same task; other
        // values are another action.
        let again = l.propose(&act, &sensitive_contract(), "agent").unwrap();
        assert_eq!(again.action_digest, t.action_digest, "{engine:?}");
        let other = sensitive_refund("job-1", 1, "-other");
        let e = l
            .propose(&other, &sensitive_contract(), "agent")
            .unwrap_err();
        assert_eq!(e.code(), Code::TaskConflict, "{engine:?}");
        // The values live in their own table only, one row per place with its class.
        let rows = shredded_in_db(&db, &t.id);
        let classes: Vec<_> = rows.iter().map(|r| r[1].clone().unwrap()).collect();
        assert_eq!(classes, ["pci", "pii"], "{engine:?}");
        assert!(rows.iter().all(|r| r[2].is_some()));
        let tasks = db.texts("SELECT action FROM ledger_tasks");
        let audit = l.audit_export().unwrap();
        for text in tasks.iter().flatten().flatten().chain([&audit]) {
            assert!(
                !text.contains(EMAIL) && !text.contains(CARD),
                "{engine:?}: {text}"
            );
        }
        // A contract without sensitive places keeps today's bytes: the action as proposed.
        let plain = refund("job-2", "req-1", 2500);
        let p = l.propose(&plain, &refund_contract(), "agent").unwrap();
        assert_eq!(canonicalize(p.action.value()), canonicalize(&plain));
    }
}

#[test]
fn a_batch_under_a_contract_that_marks_values_sensitive_is_refused_and_stores_nothing() {
    // A batch freezes its items as given: their values would be kept in the clear.
    let mut text = canonicalize(&sensitive_contract());
    text.insert_str(text.len() - 1, r#","batch":{"max_items":10}"#);
    let contract = json(&text);
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let actions: Vec<OwnedValue> = (1..=3)
            .map(|i| {
                let args = format!(
                    r#"{{"order_id": "order-{i}", "amount_minor": 2500, "currency": "USD",
                        "customer_email": "{EMAIL}", "card_number": "{CARD}"}}"#
                );
                action(&contract, &args, "job-batch", &format!("req-{i}"))
            })
            .collect();
        let e = l
            .propose_batch(&actions, &contract, Semantics::PerItem, "agent")
            .unwrap_err();
        assert_eq!(e.code(), Code::BatchNotAllowed, "{engine:?}: {e}");
        assert!(
            db.texts("SELECT id FROM ledger_tasks").is_empty(),
            "{engine:?}"
        );
        assert!(found(&db, EMAIL).is_empty(), "{engine:?}");
        // Each call proposed on its own is committed as usual.
        let t = l.propose(&actions[0], &contract, "agent").unwrap();
        assert!(
            !canonicalize(t.action.value()).contains(EMAIL),
            "{engine:?}"
        );
    }
}

#[test]
fn a_claim_gets_the_values_and_drift_in_one_names_only_its_place() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let act = sensitive_refund("job-1", 1, "");
        let t = approved(&l, &act, "d-1");
        // Another e-mail presented: drift at its place, and no value in the verdict or audit.
        let mut wrong = canonicalize(&act);
        wrong = wrong.replace(EMAIL, "mallory@example.com");
        let out = claim(&l, &t.id, &json(&wrong), "worker-1").unwrap();
        let ClaimOutcome::Drift { verdict, .. } = &out else {
            panic!("{engine:?}: not drift: {}", out.result())
        };
        assert_eq!(verdict.drift, ["/args/customer_email"], "{engine:?}");
        let said = canonicalize(&out.to_value()) + &l.audit_export().unwrap();
        assert!(
            !said.contains("mallory") && !said.contains(EMAIL),
            "{engine:?}: {said}"
        );
        // The approved values: claimed, with the values to run with.
        let ClaimOutcome::Claimed(c, _) = claim(&l, &t.id, &act, "worker-1").unwrap() else {
            panic!("{engine:?}: not claimed")
        };
        assert_eq!(
            canonicalize(c.revealed.as_ref().unwrap()),
            canonicalize(&act)
        );
        assert_eq!(canonicalize(&c.action), canonicalize(t.action.value()));
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}

#[test]
fn drift_in_a_call_that_needed_no_person_names_the_place_not_its_commitment() {
    // Without an approval the ledger compares the presented action with the proposed one
    // itself: the same place a check reports, never `/args/card_number/_sd`.
    let contract = json(
        &canonicalize(&sensitive_contract())
            .replace(r#""approval":"always""#, r#""approval":"never""#),
    );
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let of = |card: &str| {
            action(
                &contract,
                &format!(
                    r#"{{"order_id": "order-1", "amount_minor": 2500, "currency": "USD", "card_number": "{card}"}}"#
                ),
                "job-1",
                "req-1",
            )
        };
        let t = l.propose(&of(CARD), &contract, "agent").unwrap();
        let out = claim_under(&l, &t.id, &of("4000-OTHER-CARD"), &contract, "worker-1").unwrap();
        let ClaimOutcome::Drift { verdict, .. } = &out else {
            panic!("{engine:?}: not drift: {}", out.result())
        };
        assert_eq!(verdict.drift, ["/args/card_number"], "{engine:?}");
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}

#[test]
fn a_resume_with_the_approved_action_as_drift_returned_it_runs_in_the_clear() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let act = sensitive_refund("job-1", 1, "");
        let t = approved(&l, &act, "d-1");
        let drifted = json(&canonicalize(&act).replace("2500", "2600"));
        let ClaimOutcome::Drift {
            approved_action, ..
        } = claim(&l, &t.id, &drifted, "worker-1").unwrap()
        else {
            panic!("{engine:?}: not drift")
        };
        // What a drift returns is the frozen action, its values committed.
        assert_eq!(
            canonicalize(&approved_action),
            canonicalize(t.action.value())
        );
        assert!(!canonicalize(&approved_action).contains(EMAIL));
        // Presented as returned, it is the approved action: claimed, with the values to run
        // with, and audited by its own fingerprint.
        let ClaimOutcome::Claimed(c, _) = claim(&l, &t.id, &approved_action, "worker-1").unwrap()
        else {
            panic!("{engine:?}: the resume was not claimed")
        };
        assert_eq!(
            canonicalize(c.revealed.as_ref().unwrap()),
            canonicalize(&act),
            "{engine:?}"
        );
        let audit = l.audit_export().unwrap();
        let claimed = audit
            .lines()
            .find(|e| e.contains(r#""kind":"claimed""#))
            .expect("a claimed event");
        assert!(
            claimed.contains(&t.action_digest.to_string()),
            "{engine:?}: {claimed}"
        );
        assert!(!audit.contains(EMAIL) && !audit.contains(CARD));
    }
}

#[test]
fn commitments_another_task_made_are_drift_even_presented_as_frozen() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let act = sensitive_refund("job-1", 1, "");
        let t = approved(&l, &act, "d-1");
        // Another task of the same values: other salts, other commitments. Its e-mail's
        // commitment put in this frozen action's place.
        let other = approved(&l, &sensitive_refund("job-2", 1, ""), "d-2");
        let sd = |task: &Task| {
            let at = task.action.value().pointer("/args/customer_email/_sd");
            at.and_then(|v| v.as_str()).unwrap().to_owned()
        };
        assert_ne!(sd(&t), sd(&other));
        let presented = json(&canonicalize(t.action.value()).replace(&sd(&t), &sd(&other)));
        let out = claim(&l, &t.id, &presented, "worker-1").unwrap();
        let ClaimOutcome::Drift { verdict, .. } = &out else {
            panic!("{engine:?}: not drift: {}", out.result())
        };
        assert!(
            verdict.drift.iter().any(|p| p == "/args/customer_email"),
            "{engine:?}: {:?}",
            verdict.drift
        );
        assert!(!canonicalize(&out.to_value()).contains(EMAIL));
    }
}

#[test]
fn a_redacted_task_is_refused_and_still_verifies() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open_logged();
        let act = sensitive_refund("job-1", 1, "");
        let t = approved(&l, &act, "d-1");
        let gone = l.redact(&t.id, "dpo:carol").unwrap();
        assert_eq!(gone.places.len(), 2, "{engine:?}");
        // Again: nothing left to shred, nothing recorded.
        assert!(l.redact(&t.id, "dpo:carol").unwrap().places.is_empty());
        let e = claim(&l, &t.id, &act, "worker-1").unwrap_err();
        assert_eq!(e.code(), Code::DisclosuresShredded, "{engine:?}: {e}");
        assert!(!e.to_string().contains(EMAIL));
        let kinds = kinds(&l, &t.id);
        assert_eq!(
            kinds.iter().filter(|k| *k == "shredded").count(),
            1,
            "{kinds:?}"
        );
        assert!(shredded_in_db(&db, &t.id).iter().all(|r| r[2].is_none()));
        // The audit, the task and its evidence still verify, without the values.
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
        let bundle = l.evidence(&t.id, "auditor:dave", None).unwrap().to_value();
        let text = canonicalize(&bundle);
        assert!(!text.contains(EMAIL) && !text.contains(CARD));
        verify_evidence(&json(&text), &trust()).unwrap_or_else(|e| panic!("{engine:?}: {e}"));
    }
}

#[test]
fn each_change_of_a_retention_policy_is_audited_and_a_repeat_is_not() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let first = l
            .set_retention("tenant-a", "pii", Some(HOUR), AtFinish::Keep, "dpo:carol")
            .unwrap();
        clock.advance(1000).unwrap();
        // The same policy again: the row keeps who set it and when.
        let again = l
            .set_retention("tenant-a", "pii", Some(HOUR), AtFinish::Keep, "dpo:dave")
            .unwrap();
        assert_eq!(again, first, "{engine:?}");
        let longer = l
            .set_retention("tenant-a", "pii", None, AtFinish::Shred, "dpo:erin")
            .unwrap();
        assert_eq!(longer.changed_by, "dpo:erin");
        let audit = l.audit_export().unwrap();
        let changes: Vec<OwnedValue> = audit
            .lines()
            .filter(|e| e.contains(r#""kind":"retention_changed""#))
            .map(json)
            .collect();
        assert_eq!(changes.len(), 2, "{engine:?}: {audit}");
        let at = |e: &OwnedValue, p: &str| canonicalize(e.pointer(p).unwrap());
        assert_eq!(at(&changes[0], "/actor"), r#""dpo:carol""#);
        assert_eq!(at(&changes[0], "/task"), "null");
        assert_eq!(at(&changes[0], "/tenant"), r#""tenant-a""#);
        assert_eq!(
            at(&changes[0], "/detail"),
            format!(
                r#"{{"class":"pii","from":null,"to":{{"at_finish":"keep","keep_ms":{HOUR}}}}}"#
            )
        );
        assert_eq!(
            at(&changes[1], "/detail"),
            format!(
                r#"{{"class":"pii","from":{{"at_finish":"keep","keep_ms":{HOUR}}},"to":{{"at_finish":"shred","keep_ms":null}}}}"#
            )
        );
        assert_eq!(at(&changes[1], "/outcome"), r#""shred""#);
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}

#[test]
fn retention_shreds_a_class_once_its_time_is_up() {
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        l.set_retention("tenant-a", "pii", Some(HOUR), AtFinish::Keep, "dpo:carol")
            .unwrap();
        let old = approved(&l, &sensitive_refund("job-1", 1, "-old"), "d-1");
        clock.advance(2 * HOUR).unwrap();
        let new = approved(&l, &sensitive_refund("job-1", 2, "-new"), "d-2");
        let done = l.retention_run("retention").unwrap();
        assert_eq!(done.len(), 1, "{engine:?}");
        assert_eq!(done[0].task_id, old.id);
        assert_eq!(
            done[0].places,
            [("/args/customer_email".to_owned(), "pii".to_owned())]
        );
        // Only the class the policy names, only where its time is up.
        let held = |t: &Task| -> Vec<bool> {
            shredded_in_db(&db, &t.id)
                .iter()
                .map(|r| r[2].is_some())
                .collect()
        };
        assert_eq!(
            held(&old),
            [true, false],
            "{engine:?}: pci kept, pii shredded"
        );
        assert_eq!(held(&new), [true, true], "{engine:?}");
        assert!(l.retention_run("retention").unwrap().is_empty());
        let policies = l.retention().unwrap();
        assert_eq!(policies.len(), 1);
        assert_eq!(policies[0].keep_ms, Some(HOUR));
        let e = l
            .set_retention("tenant-a", "PII!", None, AtFinish::Keep, "dpo:carol")
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidRequest);
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}

#[test]
fn a_finished_task_is_shredded_when_its_tenant_says_so() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        l.set_retention("tenant-a", "pii", None, AtFinish::Shred, "dpo:carol")
            .unwrap();
        l.set_retention("tenant-a", "pci", None, AtFinish::Shred, "dpo:carol")
            .unwrap();
        let act = sensitive_refund("job-1", 1, "");
        let t = approved(&l, &act, "d-1");
        let ClaimOutcome::Claimed(c, _) = claim(&l, &t.id, &act, "worker-1").unwrap() else {
            panic!("{engine:?}: not claimed")
        };
        // In doubt, then found not executed: still claimable, values kept.
        l.complete(&t.id, c.fence, Reported::Unknown, None, "worker-1")
            .unwrap();
        assert!(shredded_in_db(&db, &t.id).iter().all(|r| r[2].is_some()));
        l.reconcile(&t.id, Observed::NotExecuted, None, "ops")
            .unwrap();
        let ClaimOutcome::Claimed(c, _) = claim(&l, &t.id, &act, "worker-2").unwrap() else {
            panic!("{engine:?}: not claimed again")
        };
        l.complete(&t.id, c.fence, Reported::Succeeded, None, "worker-2")
            .unwrap();
        assert!(
            shredded_in_db(&db, &t.id).iter().all(|r| r[2].is_none()),
            "{engine:?}"
        );
        let (_, events) = l.task_history(&t.id).unwrap();
        let last = events.last().unwrap();
        assert_eq!(last.kind.as_str(), "shredded");
        assert_eq!(last.outcome.as_deref(), Some("finished"));
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}

#[test]
fn shredding_under_concurrent_claims_never_lets_a_claim_run_without_its_values() {
    const TASKS: usize = 12;
    for engine in engines() {
        let db = Db::fast(engine);
        let l = Arc::new(db.open());
        let acts: Vec<_> = (0..TASKS)
            .map(|i| sensitive_refund("job-1", i, &format!("-{i}")))
            .collect();
        let ids: Vec<String> = acts
            .iter()
            .enumerate()
            .map(|(i, a)| approved(&l, a, &format!("d-{i}")).id)
            .collect();
        let claimed = std::thread::scope(|s| {
            let shredder = s.spawn(|| {
                for id in ids.iter().rev() {
                    l.redact(id, "dpo:carol").unwrap();
                }
            });
            let claimers: Vec<_> = (0..4)
                .map(|w| {
                    let (l, acts, ids) = (&l, &acts, &ids);
                    s.spawn(move || {
                        let mut won = Vec::new();
                        for (id, act) in ids.iter().zip(acts) {
                            match claim(l, id, act, &format!("worker-{w}")) {
                                Ok(ClaimOutcome::Claimed(c, _)) => {
                                    let v = canonicalize(c.revealed.as_ref().unwrap());
                                    assert_eq!(v, canonicalize(act), "values, checked");
                                    won.push(id.clone());
                                }
                                Ok(other) => panic!("{}", other.result()),
                                Err(e) => assert!(
                                    matches!(
                                        e.code(),
                                        Code::DisclosuresShredded
                                            | Code::AlreadyClaimed
                                            | Code::TaskNotClaimable
                                    ),
                                    "{e}"
                                ),
                            }
                        }
                        won
                    })
                })
                .collect();
            shredder.join().unwrap();
            claimers
                .into_iter()
                .flat_map(|c| c.join().unwrap())
                .collect::<Vec<_>>()
        });
        // Each task claimed at most once, and every claim came before its shredding.
        let mut once = claimed.clone();
        once.sort();
        once.dedup();
        assert_eq!(once.len(), claimed.len(), "{engine:?}: claimed twice");
        for id in &ids {
            let kinds = kinds(&l, id);
            let shred_at = kinds.iter().position(|k| k == "shredded");
            let claim_at = kinds.iter().position(|k| k == "claimed");
            assert!(shred_at.is_some(), "{engine:?}: {kinds:?}");
            if let Some(c) = claim_at {
                assert!(
                    c < shred_at.unwrap(),
                    "{engine:?}: claimed after shredding: {kinds:?}"
                );
            }
        }
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}

/// Every file of the database as bytes: SQLite's file and its log; PostgreSQL's dump.
fn stored_bytes(db: &Db) -> Vec<(String, Vec<u8>)> {
    match db.engine {
        Engine::Sqlite => {
            let path = db.path.clone().unwrap();
            ["", "-wal"]
                .iter()
                .map(|s| {
                    let p = format!("{}{s}", path.display());
                    let bytes = std::fs::read(&p).unwrap_or_default();
                    (p, bytes)
                })
                .collect()
        }
        Engine::Postgres => {
            let out = std::process::Command::new("pg_dump")
                .arg(&db.url)
                .output()
                .expect("pg_dump");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            vec![("pg_dump".to_owned(), out.stdout)]
        }
    }
}

fn found(db: &Db, needle: &str) -> Vec<String> {
    stored_bytes(db)
        .into_iter()
        .filter(|(_, b)| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn after_shredding_no_byte_of_a_value_is_left_in_the_database() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let mut ids = Vec::new();
        for i in 0..5 {
            let act = sensitive_refund("job-1", i, &format!("-{i}"));
            let t = approved(&l, &act, &format!("d-{i}"));
            if i == 0 {
                let ClaimOutcome::Claimed(c, _) = claim(&l, &t.id, &act, "worker-1").unwrap()
                else {
                    panic!("not claimed")
                };
                l.complete(&t.id, c.fence, Reported::Succeeded, None, "worker-1")
                    .unwrap();
            }
            ids.push(t.id);
        }
        // The values are stored as their disclosures (base64url): the scan looks for every
        // disclosure and every value in the clear, and finds the disclosures while they are
        // kept (a scan that finds nothing proves nothing).
        let disclosures: Vec<String> = db
            .texts("SELECT disclosure FROM ledger_disclosures")
            .into_iter()
            .flatten()
            .flatten()
            .collect();
        assert_eq!(disclosures.len(), 10, "{engine:?}");
        let needles: Vec<&str> = disclosures
            .iter()
            .map(String::as_str)
            .chain([EMAIL, CARD])
            .collect();
        for d in &disclosures {
            assert!(
                !found(&db, d).is_empty(),
                "{engine:?}: {d} not found before"
            );
        }
        for id in &ids {
            l.redact(id, "dpo:carol").unwrap();
        }
        for needle in needles {
            assert_eq!(
                found(&db, needle),
                Vec::<String>::new(),
                "{engine:?}: {needle} left"
            );
        }
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}

/// The control of the scan above: the naive shredding, a plain UPDATE through a connection
/// without `secure_delete` and with the log left as it is, leaves every value in the SQLite
/// file or its log. (On PostgreSQL a plain UPDATE already passes a dump's scan: the dead
/// tuple is only in the heap files, which is why the ledger also vacuums.)
#[test]
fn a_naive_shredding_leaves_the_values_in_the_sqlite_files() {
    let db = Db::fast(Engine::Sqlite);
    let l = db.open();
    for i in 0..5 {
        approved(
            &l,
            &sensitive_refund("job-1", i, &format!("-{i}")),
            &format!("d-{i}"),
        );
    }
    let disclosures: Vec<String> = db
        .texts("SELECT disclosure FROM ledger_disclosures")
        .into_iter()
        .flatten()
        .flatten()
        .collect();
    db.sql("PRAGMA secure_delete=OFF; UPDATE ledger_disclosures SET disclosure = NULL");
    let left = disclosures
        .iter()
        .filter(|d| !found(&db, d).is_empty())
        .count();
    assert_eq!(
        left,
        disclosures.len(),
        "the naive shredding left only {left}"
    );
}

/// What the evidence tests trust: the ledger's checkpoint key, no approval key (the decisions
/// are bare).
fn trust() -> OwnedValue {
    json(&format!(
        r#"{{"ledger_keys": [{{"key": "{LOG_VERIFIER}"}}], "approval_keys": {{"service_keys": {{}}}}}}"#
    ))
}

#[test]
fn evidence_proves_the_values_only_when_asked_and_allowed() {
    for engine in engines() {
        let db = Db::fast(engine);
        let options = LedgerOptions {
            checkpoint_signer: Some(SignerKey::parse(LOG_KEY).unwrap()),
            disclosure_export: DisclosureExport::OnRequest,
            ..LedgerOptions::default()
        };
        let l = Ledger::open_with(&db.url, options).unwrap();
        let act = sensitive_refund("job-1", 1, "");
        let t = approved(&l, &act, "d-1");
        let other = approved(&l, &sensitive_refund("job-1", 2, "-2"), "d-2");
        // Asked for: the bundle proves both values, each against its commitment.
        let b = l
            .evidence_disclosing(&t.id, "auditor:dave", None, Ok)
            .unwrap();
        assert_eq!(b.disclosures.len(), 2, "{engine:?}");
        let v = json(&canonicalize(&b.to_value()));
        let timeline = verify_evidence(&v, &trust()).unwrap().to_value();
        let text = canonicalize(&timeline);
        assert!(
            text.contains(EMAIL) && text.contains(CARD),
            "{engine:?}: {text}"
        );
        // A disclosure of another task's value does not open this task's commitment.
        let mut forged = b.clone();
        let theirs = l
            .evidence_disclosing(&other.id, "auditor:dave", None, Ok)
            .unwrap();
        forged.disclosures[0] = theirs.disclosures[0].clone();
        let e = verify_evidence(&forged.to_value(), &trust()).unwrap_err();
        assert_eq!(e.code(), Code::DisclosureMismatch, "{engine:?}: {e}");
        assert_eq!(e.path(), "/disclosures/0");
        // By default a bundle has none, and still verifies; after a redaction there are none
        // to give, and the bundle verifies without them.
        let plain = l.evidence(&t.id, "auditor:dave", None).unwrap();
        assert!(plain.disclosures.is_empty());
        assert!(!canonicalize(&plain.to_value()).contains("disclosures"));
        l.redact(&t.id, "dpo:carol").unwrap();
        let after = l
            .evidence_disclosing(&t.id, "auditor:dave", None, Ok)
            .unwrap();
        assert!(after.disclosures.is_empty(), "{engine:?}");
        verify_evidence(&after.to_value(), &trust()).unwrap_or_else(|e| panic!("{e}"));
        // A ledger whose policy refuses it exports none, whoever asks.
        let strict = db.open_logged();
        let e = strict
            .evidence_disclosing(&other.id, "auditor:dave", None, Ok)
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidRequest, "{engine:?}");
    }
}

#[test]
fn a_version_10_ledger_gains_the_disclosures_table_on_open() {
    for engine in engines() {
        let db = Db::fast(engine);
        let plain = refund("job-0", "req-1", 2500);
        db.open()
            .propose(&plain, &refund_contract(), "agent")
            .unwrap();
        downgrade_to_v10(&db);
        let l = db.open();
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
        let t = approved(&l, &sensitive_refund("job-1", 1, ""), "d-1");
        assert_eq!(shredded_in_db(&db, &t.id).len(), 2, "{engine:?}");
        let version = db.texts("SELECT CAST(MAX(version) AS TEXT) FROM ledger_schema");
        assert_eq!(version[0][0].as_deref(), Some("11"));
    }
}

/// A shredding at a task's finish leaves the values' old pages in SQLite's write-ahead log; the
/// next retention run truncates it even when nothing is due (a run that scrubbed only after
/// shredding something itself would leave them there).
#[test]
fn a_retention_run_reaches_what_a_shredding_at_finish_left() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        for class in ["pii", "pci"] {
            l.set_retention("tenant-a", class, None, AtFinish::Shred, "dpo:carol")
                .unwrap();
        }
        let act = sensitive_refund("job-1", 0, "-finish");
        let t = approved(&l, &act, "d-0");
        let disclosures: Vec<String> = db
            .texts("SELECT disclosure FROM ledger_disclosures")
            .into_iter()
            .flatten()
            .flatten()
            .collect();
        assert_eq!(disclosures.len(), 2, "{engine:?}");
        let ClaimOutcome::Claimed(c, _) = claim(&l, &t.id, &act, "worker-1").unwrap() else {
            panic!("{engine:?}: not claimed")
        };
        l.complete(&t.id, c.fence, Reported::Succeeded, None, "worker-1")
            .unwrap();
        assert!(l.retention_run("cron").unwrap().is_empty(), "{engine:?}");
        for d in &disclosures {
            assert_eq!(found(&db, d), Vec::<String>::new(), "{engine:?}: {d} left");
        }
    }
}

/// The reviewer's read of a task's disclosures: they open the frozen commitments (core's
/// reveal, as the page does in WebAssembly), a task without sensitive values has none, and a
/// shredded task's read is refused.
#[test]
fn a_reviewer_reads_the_disclosures_until_they_are_shredded() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let act = sensitive_refund("job-1", 0, "-review");
        let t = approved(&l, &act, "d-0");
        let read = l.disclosures(&t.id).unwrap();
        assert_eq!(read.len(), 2, "{engine:?}");
        let contract = Contract::from_value(&sensitive_contract()).unwrap();
        let sensitive = contract.sensitive().unwrap();
        let opened = reveal(sensitive, &t.action, &read, Coverage::Every).unwrap();
        assert_eq!(opened.pointer("/args"), act.pointer("/args"), "{engine:?}");
        l.redact(&t.id, "dpo:carol").unwrap();
        let e = l.disclosures(&t.id).unwrap_err();
        assert_eq!(e.code(), Code::DisclosuresShredded, "{engine:?}");
        assert!(
            !e.message().contains(EMAIL),
            "{engine:?}: no value in the refusal"
        );
    }
}

#[test]
fn a_reviewer_amends_in_the_clear_and_the_values_left_alone_keep_their_commitments() {
    const FIXED: &str = "erin.fixed-9a17@example.com";
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let act = sensitive_refund("job-1", 1, "");
        let t = l.propose(&act, &sensitive_contract(), "agent").unwrap();
        let proposed_rows = shredded_in_db(&db, &t.id);
        // The action as held (committed) or in the clear as proposed: a duplicate.
        for same in [t.action.value().clone(), act.clone()] {
            let a = l
                .amend(&amendment(&t, &same), &sensitive_contract())
                .unwrap();
            assert!(a.duplicate, "{engine:?}");
        }
        // The reviewer lowers the amount: the values stay committed as they were.
        let lower = canonicalize(&act).replace("2500", "2000");
        let a = l
            .amend(&amendment(&t, &json(&lower)), &sensitive_contract())
            .unwrap();
        assert_eq!(
            a.task.amended_pointers(),
            ["/args/amount_minor"],
            "{engine:?}"
        );
        assert_eq!(shredded_in_db(&db, &t.id), proposed_rows, "{engine:?}");
        assert_eq!(
            a.task.action.value().pointer("/args/customer_email"),
            t.action.value().pointer("/args/customer_email")
        );
        // Then corrects the e-mail: a fresh commitment, the change at its place, and the
        // model's address gone from the table.
        let fixed = lower.replace(EMAIL, FIXED);
        let b = l
            .amend(&amendment(&a.task, &json(&fixed)), &sensitive_contract())
            .unwrap();
        assert_eq!(
            b.task.amended_pointers(),
            ["/args/amount_minor", "/args/customer_email"],
            "{engine:?}: against the model's proposal"
        );
        let frozen = canonicalize(b.task.action.value());
        assert!(
            !frozen.contains(FIXED) && !frozen.contains(EMAIL),
            "{frozen}"
        );
        let rows = shredded_in_db(&db, &t.id);
        assert_eq!(rows[0], proposed_rows[0], "{engine:?}: the card's, kept");
        assert_ne!(
            rows[1], proposed_rows[1],
            "{engine:?}: the e-mail's, replaced"
        );
        // Approved and claimed: the reviewer's values to run with.
        l.decide(&decision(&b.task, "d-1", "approved", l.now(), HOUR))
            .unwrap();
        let ClaimOutcome::Claimed(c, _) = claim(&l, &t.id, &json(&fixed), "worker-1").unwrap()
        else {
            panic!("{engine:?}: not claimed")
        };
        assert_eq!(
            canonicalize(c.revealed.as_ref().unwrap()),
            canonicalize(&json(&fixed))
        );
        // The audit and the amendments name commitments and places, never a value.
        let said = l.audit_export().unwrap()
            + &l.amendments(&t.id)
                .unwrap()
                .iter()
                .map(|r| canonicalize(&r.to_value()))
                .collect::<String>();
        for value in [EMAIL, FIXED, CARD] {
            assert!(!said.contains(value), "{engine:?}: {value} in {said}");
        }
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
        // The model proposing its own call again after its address was amended away is not
        // recognised (that value's salt went with it): a conflict, never the old values.
        let e = l.propose(&act, &sensitive_contract(), "agent").unwrap_err();
        assert_eq!(e.code(), Code::TaskConflict, "{engine:?}");
    }
}

#[test]
fn a_proposal_repeated_after_an_amendment_of_other_values_is_the_same_task() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        let act = sensitive_refund("job-1", 1, "");
        let t = l.propose(&act, &sensitive_contract(), "agent").unwrap();
        let lower = canonicalize(&act).replace("2500", "2000");
        let a = l
            .amend(&amendment(&t, &json(&lower)), &sensitive_contract())
            .unwrap();
        // The model's retry and the amended call are both this task.
        for again in [act.clone(), json(&lower)] {
            let p = l.propose(&again, &sensitive_contract(), "agent").unwrap();
            assert_eq!(p.id, t.id, "{engine:?}");
            assert_eq!(p.action_digest, a.task.action_digest, "{engine:?}");
        }
        // A redacted task cannot be amended: its values are gone.
        l.redact(&t.id, "dpo:carol").unwrap();
        let e = l
            .amend(
                &amendment(&a.task, &json(&lower.replace("2000", "1500"))),
                &sensitive_contract(),
            )
            .unwrap_err();
        assert_eq!(e.code(), Code::DisclosuresShredded, "{engine:?}");
    }
}

#[test]
fn a_rejected_task_is_shredded_when_its_tenant_says_so() {
    for engine in engines() {
        let db = Db::fast(engine);
        let l = db.open();
        l.set_retention("tenant-a", "pii", None, AtFinish::Shred, "dpo:carol")
            .unwrap();
        let act = sensitive_refund("job-1", 1, "");
        let t = l.propose(&act, &sensitive_contract(), "agent").unwrap();
        l.decide(&decision(&t, "d-1", "rejected", l.now(), HOUR))
            .unwrap();
        // The e-mail (pii) is gone, the card (pci, kept at a finish) stays.
        let rows = shredded_in_db(&db, &t.id);
        let held: Vec<_> = rows
            .iter()
            .map(|r| (r[1].clone().unwrap(), r[2].is_some()))
            .collect();
        assert_eq!(
            held,
            [("pci".to_owned(), true), ("pii".to_owned(), false)],
            "{engine:?}"
        );
        let (_, events) = l.task_history(&t.id).unwrap();
        let last = events.last().unwrap();
        assert_eq!(
            (last.kind.as_str(), last.outcome.as_deref()),
            ("shredded", Some("finished")),
            "{engine:?}"
        );
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}
