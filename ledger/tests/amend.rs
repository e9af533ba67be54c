//! Reviewers' amendments (issue 10), on both engines: amend then approve then claim dispatches
//! the amended arguments once; the model's original arguments are drift afterwards; refused
//! amendments change nothing; two reviewers amending at once give one winner and one conflict
//! (and a naive read-then-write amendment, in test code, loses an update: the harness sees
//! it); the audit reads proposed -> amended -> decided -> claimed -> completed with both
//! digests; a version-1 database is upgraded in place.

mod common;

use actionseal_core::ledger::{Reported, State};
use actionseal_core::{canonicalize, Code, Digest, OwnedValue};
use actionseal_ledger::{Amended, ClaimOutcome, ClaimRequest, Ledger, ManualClock, Task};
use common::*;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Barrier};

const REASON: &str = "the customer asked for a partial refund";

fn amendment(task: &str, amends: &Digest, action: &OwnedValue, reviewer: &str) -> OwnedValue {
    json(&format!(
        r#"{{"task_id": "{task}", "amends": "{amends}", "action": {}, "reviewer": "{reviewer}",
            "reason": "{REASON}"}}"#,
        canonicalize(action)
    ))
}

fn amend(l: &Ledger, t: &Task, action: &OwnedValue) -> actionseal_core::Result<Amended> {
    l.amend(
        &amendment(&t.id, &t.action_digest, action, "user:carol"),
        &refund_contract(),
    )
}

fn claim(l: &Ledger, task: &str, presented: &OwnedValue) -> actionseal_core::Result<ClaimOutcome> {
    l.claim(&ClaimRequest {
        task_id: task,
        action: presented,
        facts: &facts(&refund_contract()),
        executor: "worker-1",
        lease_ms: 5 * MINUTE,
        budget: None,
        proof: Default::default(),
    })
}

/// Proposes a 2500 refund and amends it to 2000; returns (proposed task, amended task).
fn proposed_and_amended(l: &Ledger, job: &str) -> (Task, Task) {
    let t = l
        .propose(&refund(job, "req-1", 2500), &refund_contract(), "agent")
        .unwrap();
    let a = amend(l, &t, &refund(job, "req-1", 2000)).unwrap();
    assert!(!a.duplicate);
    (t, a.task)
}

#[test]
fn amend_approve_and_claim_dispatches_the_amended_args_once() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let (t, amended) = proposed_and_amended(&l, "job-1");
        assert_eq!(amended.state, State::AwaitingApproval);
        assert_eq!(amended.id, t.id, "the same task");
        assert_eq!(amended.proposed_digest, t.action_digest);
        assert_eq!(amended.action, refund("job-1", "req-1", 2000));
        assert_eq!(amended.amended_pointers(), ["/args/amount_minor"]);
        assert_eq!(amended.amendments, 1);

        // A decision about what the model proposed is about something else now.
        let stale = decision(&t, "dec-0", "approved", l.now(), HOUR);
        let e = l.decide(&stale).unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::DecisionMismatch, "/action_digest")
        );
        let d = l
            .decide(&decision(&amended, "dec-1", "approved", l.now(), HOUR))
            .unwrap();
        let record = d.task.approval.clone().unwrap();
        assert_eq!(
            str_field(&record, "action_digest"),
            amended.action_digest.to_string()
        );
        assert_eq!(
            str_field(&record, "proposed_digest"),
            t.action_digest.to_string()
        );

        let business = Business::default();
        let ClaimOutcome::Claimed(c, _) = claim(&l, &t.id, &amended.action).unwrap() else {
            panic!("{engine:?}: the amended action must be claimable");
        };
        assert_eq!(c.action, amended.action, "the amended args are dispatched");
        assert!(business.dispatch(&c.idempotency_key));
        assert_eq!(
            claim(&l, &t.id, &amended.action).unwrap_err().code(),
            Code::AlreadyClaimed
        );
        l.complete(&t.id, c.fence, Reported::Succeeded, None, "worker-1")
            .unwrap();
        assert_eq!((business.dispatch_count(), business.effect_count()), (1, 1));
        assert_eq!(c.idempotency_key, t.idempotency_key);
    }
}

#[test]
fn the_original_args_after_the_amended_approval_are_drift() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let (t, amended) = proposed_and_amended(&l, "job-1");
        l.decide(&decision(&amended, "dec-1", "approved", l.now(), HOUR))
            .unwrap();
        // The model resumes and re-sends what it proposed.
        let original = refund("job-1", "req-1", 2500);
        let out = claim(&l, &t.id, &original).unwrap();
        let ClaimOutcome::Drift {
            task,
            verdict,
            approved_action,
        } = &out
        else {
            panic!("{engine:?}: {}", out.result());
        };
        assert_eq!(task.state, State::Approved);
        assert_eq!(
            approved_action, &amended.action,
            "the amended args returned"
        );
        assert_eq!(verdict.drift, ["/args/amount_minor"]);
        let ev = l.task_history(&t.id).unwrap().1.pop().unwrap();
        assert_eq!(ev.kind.as_str(), "tool_args_drift");
        assert_eq!(
            (ev.action_digest, ev.approved_digest),
            (Some(t.action_digest), Some(amended.action_digest))
        );
        // Proposing the original again is the same task, still approved for the amendment.
        let again = l.propose(&original, &refund_contract(), "agent").unwrap();
        assert_eq!(
            (again.id.as_str(), again.state),
            (t.id.as_str(), State::Approved)
        );
        assert_eq!(again.action_digest, amended.action_digest);
        // Resuming with the returned action claims it.
        assert_eq!(
            claim(&l, &t.id, approved_action).unwrap().result(),
            "claimed"
        );
    }
}

/// Everything a refused amendment must leave as it was.
fn snapshot(l: &Ledger, id: &str) -> (String, usize, usize) {
    let t = l.task(id).unwrap();
    (
        canonicalize(&t.to_value()),
        l.amendments(id).unwrap().len(),
        kinds(l, id).iter().filter(|k| *k == "amended").count(),
    )
}

#[test]
fn refused_amendments_change_nothing() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = refund_contract();
        let t = l
            .propose(&refund("job-1", "req-1", 2500), &contract, "agent")
            .unwrap();
        let text = canonicalize(&refund("job-1", "req-1", 2000));
        let lookup = action(
            &lookup_contract(),
            r#"{"order_id": "order-17"}"#,
            "job-1",
            "req-1",
        );
        let cases: Vec<(&str, OwnedValue, Code, &str)> = vec![
            (
                "another tenant",
                json(&text.replace("\"tenant-a\"", "\"tenant-b\"")),
                Code::AmendIdentityChanged,
                "/action/tenant",
            ),
            (
                "another subject",
                json(&text.replace("\"user:alice\"", "\"user:mallory\"")),
                Code::AmendIdentityChanged,
                "/action/subject",
            ),
            (
                "another request",
                json(&text.replace("\"req-1\"", "\"req-2\"")),
                Code::AmendIdentityChanged,
                "/action/request_id",
            ),
            (
                "another tool",
                lookup,
                Code::AmendToolChanged,
                "/action/tool",
            ),
            (
                "another policy",
                json(&text.replace("refund-policy-2026-08-01", "refund-policy-2099")),
                Code::AmendPolicyChanged,
                "/action/policy_version",
            ),
            (
                "args the schema refuses",
                json(&text.replace("2000", "-5")),
                Code::OutOfRange,
                "/action/args/amount_minor",
            ),
            (
                "an argument the contract does not know",
                json(&text.replace("\"currency\"", "\"destination\":\"acct-9\",\"currency\"")),
                Code::UnknownField,
                "/action/args/destination",
            ),
        ];
        let before = snapshot(&l, &t.id);
        for (what, replacement, code, path) in &cases {
            let e = amend(&l, &t, replacement).unwrap_err();
            assert_eq!(
                (e.code(), e.path()),
                (*code, *path),
                "{engine:?}: {what}: {e}"
            );
            assert_eq!(
                snapshot(&l, &t.id),
                before,
                "{engine:?}: {what} changed something"
            );
        }
        // Checked against another contract than the task's.
        let mut v4 = canonicalize(&contract);
        v4 = v4.replace("\"version\":\"3\"", "\"version\":\"4\"");
        let e = l
            .amend(
                &amendment(&t.id, &t.action_digest, &json(&text), "user:carol"),
                &json(&v4),
            )
            .unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::AmendContractChanged, "/action/contract")
        );
        // Naming a digest the task does not hold.
        let e = l
            .amend(
                &amendment(&t.id, &Digest::of(b"x"), &json(&text), "user:carol"),
                &contract,
            )
            .unwrap_err();
        assert_eq!((e.code(), e.path()), (Code::AmendConflict, "/amends"));
        assert_eq!(snapshot(&l, &t.id), before);
        // Each refusal is audited, with its code and without the arguments.
        let refused: Vec<String> = l
            .task_history(&t.id)
            .unwrap()
            .1
            .iter()
            .filter(|e| e.kind.as_str() == "amend_refused")
            .map(|e| e.outcome.clone().unwrap())
            .collect();
        assert_eq!(refused.len(), cases.len() + 2);
        assert!(refused.contains(&"amend_tool_changed".to_owned()));
        let export = l.audit_export().unwrap();
        assert!(!export.contains("acct-9") && !export.contains("\"order-17\""));
        assert!(!export.contains(REASON));

        // After the decision, no amendment: a change is a new request and a new decision.
        l.decide(&decision(&t, "dec-1", "approved", l.now(), HOUR))
            .unwrap();
        let before = snapshot(&l, &t.id);
        let e = amend(&l, &l.task(&t.id).unwrap(), &json(&text)).unwrap_err();
        assert_eq!(e.code(), Code::TaskNotAwaitingDecision);
        assert!(e.message().contains("approved"), "{e}");
        assert_eq!(snapshot(&l, &t.id), before);
        // Nor on a task that needed no approval, nor one that is gone.
        let read = l
            .propose(
                &action(
                    &lookup_contract(),
                    r#"{"order_id": "SO-1"}"#,
                    "job-2",
                    "req-1",
                ),
                &lookup_contract(),
                "agent",
            )
            .unwrap();
        let other = action(
            &lookup_contract(),
            r#"{"order_id": "SO-2"}"#,
            "job-2",
            "req-1",
        );
        let e = l
            .amend(
                &amendment(&read.id, &read.action_digest, &other, "user:carol"),
                &lookup_contract(),
            )
            .unwrap_err();
        assert_eq!(e.code(), Code::TaskNotAwaitingDecision);
        let e = l
            .amend(
                &amendment("task_nope", &read.action_digest, &other, "user:carol"),
                &lookup_contract(),
            )
            .unwrap_err();
        assert_eq!(e.code(), Code::TaskNotFound);
        assert!(l.audit_verify().unwrap().broken.is_none());
    }
}

#[test]
fn several_amendments_keep_the_models_proposal() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let (t, first) = proposed_and_amended(&l, "job-1");
        // The retry of the same amendment changes nothing.
        let retry = l
            .amend(
                &amendment(&t.id, &t.action_digest, &first.action, "user:carol"),
                &refund_contract(),
            )
            .unwrap();
        assert!(retry.duplicate);
        assert_eq!(retry.amendment.as_ref().unwrap().n, 1);
        let second = amend(&l, &first, &refund("job-1", "req-1", 1500)).unwrap();
        assert_eq!(second.amendment.as_ref().unwrap().n, 2);
        assert_eq!(
            second.amendment.as_ref().unwrap().amends,
            first.action_digest
        );
        let now = second.task;
        // "Proposed" is still what the model proposed, not the previous amendment.
        assert_eq!(now.proposed_digest, t.action_digest);
        assert_eq!(now.proposed_action.as_ref(), Some(&t.action));
        assert_eq!(now.amendments, 2);
        // An amendment of an action the task no longer holds conflicts.
        let e = amend(&l, &first, &refund("job-1", "req-1", 1200)).unwrap_err();
        assert_eq!(e.code(), Code::AmendConflict);
        let log = l.amendments(&t.id).unwrap();
        assert_eq!(
            log.iter()
                .map(|a| (
                    a.n,
                    a.amends,
                    a.action_digest,
                    a.reviewer.as_str(),
                    a.reason.as_str()
                ))
                .collect::<Vec<_>>(),
            [
                (
                    1,
                    t.action_digest,
                    first.action_digest,
                    "user:carol",
                    REASON
                ),
                (
                    2,
                    first.action_digest,
                    now.action_digest,
                    "user:carol",
                    REASON
                ),
            ]
        );
        let d = l
            .decide(&decision(&now, "dec-1", "approved", l.now(), HOUR))
            .unwrap();
        let record = d.task.approval.unwrap();
        assert_eq!(
            str_field(&record, "proposed_digest"),
            t.action_digest.to_string()
        );

        // Amended back to the proposal: no proposed_digest in the record ("not amended" has
        // one spelling), and the task still remembers the round trip.
        let (u, u1) = proposed_and_amended(&l, "job-2");
        let back = amend(&l, &u1, &u.action).unwrap().task;
        assert_eq!(back.action_digest, u.action_digest);
        assert!(!back.is_amended() && back.amendments == 2);
        let d = l
            .decide(&decision(&back, "dec-2", "approved", l.now(), HOUR))
            .unwrap();
        assert!(matches!(
            field(d.task.approval.as_ref().unwrap(), "proposed_digest"),
            actionseal_core::Value::Null
        ));
        assert_eq!(
            kinds(&l, &u.id),
            ["proposed", "amended", "amended", "decided"]
        );
    }
}

#[test]
fn a_task_awaiting_reapproval_can_be_amended() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let act = refund("job-1", "req-1", 2500);
        let t = l.propose(&act, &refund_contract(), "agent").unwrap();
        l.decide(&decision(&t, "dec-1", "approved", T0, 30 * MINUTE))
            .unwrap();
        clock.advance(HOUR).unwrap();
        assert_eq!(
            claim(&l, &t.id, &act).unwrap().result(),
            "awaiting_reapproval"
        );
        let waiting = l.task(&t.id).unwrap();
        let a = amend(&l, &waiting, &refund("job-1", "req-1", 900)).unwrap();
        assert_eq!(a.task.state, State::AwaitingReapproval);
        assert_eq!(
            a.task.approval_id, waiting.approval_id,
            "the same approval round"
        );
        l.decide(&decision(
            &a.task,
            "dec-2",
            "approved",
            clock_now(&clock),
            HOUR,
        ))
        .unwrap();
        let ClaimOutcome::Claimed(c, _) = claim(&l, &t.id, &a.task.action).unwrap() else {
            panic!("{engine:?}");
        };
        assert_eq!(c.idempotency_key, t.idempotency_key);
    }
}

fn clock_now(c: &ManualClock) -> i64 {
    use actionseal_ledger::Clock;
    c.now_ms()
}

/// The audit of one amended lifecycle, event by event: what happened, and both digests.
#[test]
fn the_audit_shows_proposed_amended_approved_claimed_succeeded() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let (t, amended) = proposed_and_amended(&l, "job-7f93");
        l.decide(&decision(&amended, "dec-42", "approved", l.now(), HOUR))
            .unwrap();
        let ClaimOutcome::Claimed(c, _) = claim(&l, &t.id, &amended.action).unwrap() else {
            panic!()
        };
        l.complete(&t.id, c.fence, Reported::Succeeded, None, "worker-1")
            .unwrap();
        let (p, a) = (
            t.action_digest.to_string(),
            amended.action_digest.to_string(),
        );
        let events: Vec<OwnedValue> = audit_events(&l)
            .into_iter()
            .filter(|e| str_field(e, "task") == t.id)
            .collect();
        let row = |e: &OwnedValue| {
            let detail = field(e, "detail");
            (
                str_field(e, "kind").to_owned(),
                str_field(e, "actor").to_owned(),
                str_field(e, "action_digest").to_owned(),
                str_field(e, "approved_digest").to_owned(),
                str_field(detail, "proposed_digest").to_owned(),
            )
        };
        let s = |x: &str| x.to_owned();
        assert_eq!(
            events.iter().map(row).collect::<Vec<_>>(),
            [
                (s("proposed"), s("agent"), p.clone(), s(""), s("")),
                (s("amended"), s("user:carol"), a.clone(), s(""), p.clone()),
                (s("decided"), s("user:bob"), a.clone(), a.clone(), p.clone()),
                (s("claimed"), s("worker-1"), a.clone(), a.clone(), p.clone()),
                (s("completed"), s("worker-1"), a.clone(), s(""), s("")),
            ],
            "{engine:?}"
        );
        let am = &events[1];
        assert_eq!(str_field(field(am, "detail"), "amends"), p);
        assert_eq!(field(am, "drift"), &json(r#"["/args/amount_minor"]"#));
        assert!(str_field(field(am, "detail"), "reason_digest").starts_with("sha256:"));
        // Digests and pointers only: no amounts, no order, no reason text.
        let export = l.audit_export().unwrap();
        for value in ["2000", "2500", "\"order-17\"", REASON] {
            assert!(
                !export.contains(&format!(":{value}")) && !export.contains(REASON),
                "{value} in the audit"
            );
        }
        assert!(l.audit_verify().unwrap().broken.is_none());
    }
}

const TASKS: usize = 300;
const REVIEWERS: usize = 8;

/// A hurried amendment: look at the task's digest, then write the new action, in two
/// statements (test code only). Returns whether it "won".
fn naive_amend(url: &str, id: &str, amends: &Digest, new: &OwnedValue) -> bool {
    let text = canonicalize(new);
    let digest = actionseal_core::fingerprint(new).to_string();
    if let Some(rest) = url.strip_prefix("sqlite:") {
        let c = rusqlite::Connection::open(rest.split('?').next().unwrap()).unwrap();
        c.busy_timeout(std::time::Duration::from_secs(30)).unwrap();
        let now: String = c
            .query_row(
                "SELECT action_digest FROM ledger_tasks WHERE id = ?1",
                [id],
                |r| r.get(0),
            )
            .unwrap();
        if now != amends.to_string() {
            return false;
        }
        std::thread::yield_now();
        c.execute(
            "UPDATE ledger_tasks SET action = ?1, action_digest = ?2 WHERE id = ?3",
            [&text, &digest, id],
        )
        .unwrap();
    } else {
        let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
        let now: String = c
            .query_one(
                "SELECT action_digest FROM ledger_tasks WHERE id = $1",
                &[&id],
            )
            .unwrap()
            .get(0);
        if now != amends.to_string() {
            return false;
        }
        std::thread::yield_now();
        c.execute(
            "UPDATE ledger_tasks SET action = $1, action_digest = $2 WHERE id = $3",
            &[&text, &digest, &id],
        )
        .unwrap();
    }
    true
}

/// Every reviewer amends every task from its proposal to an amount of their own, all at once;
/// returns wins per task.
fn race(db: &Db, naive: bool) -> (Vec<u32>, Vec<Task>) {
    let l = Arc::new(db.open());
    let tasks: Vec<Task> = (0..TASKS)
        .map(|i| {
            l.propose(
                &refund(&format!("job-{i}"), "req-1", 2500),
                &refund_contract(),
                "agent",
            )
            .unwrap()
        })
        .collect();
    let wins: Vec<AtomicU32> = (0..TASKS).map(|_| AtomicU32::new(0)).collect();
    let start = Barrier::new(REVIEWERS);
    std::thread::scope(|s| {
        for r in 0..REVIEWERS {
            let (l, tasks, wins, start) = (l.clone(), &tasks, &wins, &start);
            s.spawn(move || {
                let reviewer = format!("reviewer-{r}");
                start.wait();
                for (i, t) in tasks.iter().enumerate() {
                    let new = refund(&t.job_id, "req-1", 1000 + r as i64);
                    let won = if naive {
                        naive_amend(&db.url, &t.id, &t.action_digest, &new)
                    } else {
                        match l.amend(
                            &amendment(&t.id, &t.action_digest, &new, &reviewer),
                            &refund_contract(),
                        ) {
                            Ok(a) => !a.duplicate,
                            Err(e) if e.code() == Code::AmendConflict => false,
                            Err(e) => panic!("{reviewer}: {e}"),
                        }
                    };
                    if won {
                        wins[i].fetch_add(1, Ordering::SeqCst);
                    }
                }
            });
        }
    });
    (
        wins.iter().map(|w| w.load(Ordering::SeqCst)).collect(),
        tasks,
    )
}

#[test]
fn two_reviewers_amending_at_once_one_wins_the_other_conflicts() {
    for engine in engines() {
        let db = Db::fast(engine);
        let (wins, tasks) = race(&db, false);
        assert!(wins.iter().all(|w| *w == 1), "{engine:?}: {wins:?}");
        let l = db.open();
        let mut conflicts = 0;
        for t in &tasks {
            let now = l.task(&t.id).unwrap();
            let log = l.amendments(&t.id).unwrap();
            assert_eq!(log.len(), 1, "{engine:?}: one amendment recorded");
            assert_eq!(
                log[0].action_digest, now.action_digest,
                "the winner's action"
            );
            let history = kinds(&l, &t.id);
            assert_eq!(history.iter().filter(|k| *k == "amended").count(), 1);
            conflicts += l
                .task_history(&t.id)
                .unwrap()
                .1
                .iter()
                .filter(|e| e.outcome.as_deref() == Some("amend_conflict"))
                .count();
        }
        assert_eq!(conflicts, TASKS * (REVIEWERS - 1), "every loser told");
        assert!(l.audit_verify().unwrap().broken.is_none());
        eprintln!("{engine:?}: {TASKS} tasks x {REVIEWERS} reviewers: one amendment each");

        // The same harness sees a read-then-write amendment lose updates.
        let db = Db::fast(engine);
        let (wins, _) = race(&db, true);
        let lost = wins.iter().filter(|w| **w > 1).count();
        eprintln!("{engine:?}: naive read-then-write amendment: {lost} of {TASKS} tasks had several winners");
        assert!(
            lost > 0,
            "{engine:?}: the harness did not catch the naive amendment"
        );
    }
}

/// Version 1's tables, verbatim (`{int}` is the engine's integer type).
const V1_TABLES: &str = "
CREATE TABLE ledger_tasks (
  id TEXT PRIMARY KEY, tenant TEXT NOT NULL, job_id TEXT NOT NULL, request_id TEXT NOT NULL,
  state TEXT NOT NULL, action TEXT NOT NULL, action_digest TEXT NOT NULL,
  approval_required {int} NOT NULL, cost_minor {int} NOT NULL, idempotency_key TEXT NOT NULL,
  proposer TEXT NOT NULL, fence {int} NOT NULL, round {int} NOT NULL, approval_id TEXT,
  executor TEXT, lease_until {int}, budget TEXT, reserved {int} NOT NULL, result TEXT,
  created_at {int} NOT NULL, updated_at {int} NOT NULL,
  UNIQUE (tenant, job_id, request_id));
CREATE INDEX ledger_tasks_state ON ledger_tasks (state, tenant);
CREATE TABLE ledger_approvals (
  approval_id TEXT PRIMARY KEY, task_id TEXT NOT NULL, round {int} NOT NULL,
  decision_id TEXT, record TEXT, revoked_at {int});
CREATE TABLE ledger_decisions (
  decision_id TEXT PRIMARY KEY, approval_id TEXT NOT NULL, envelope TEXT NOT NULL,
  recorded_at {int} NOT NULL);
CREATE TABLE ledger_events (
  chain {int} NOT NULL, seq {int} NOT NULL, at {int} NOT NULL, tenant TEXT NOT NULL, task TEXT,
  kind TEXT NOT NULL, body TEXT NOT NULL, digest TEXT NOT NULL, PRIMARY KEY (chain, seq));
CREATE INDEX ledger_events_task ON ledger_events (task, chain, seq);
";

/// Turns a current ledger into the version-1 layout holding the same rows, in place.
fn downgrade_to_v1(db: &Db) {
    let int = match db.engine {
        Engine::Sqlite => "INTEGER",
        Engine::Postgres => "BIGINT",
    };
    downgrade_to_v6(db);
    let mut sql = String::new();
    for t in ["tasks", "approvals", "decisions", "events"] {
        sql += &format!("ALTER TABLE ledger_{t} RENAME TO ledger_{t}_now;\n");
    }
    sql += "DROP INDEX ledger_tasks_leases; DROP TABLE ledger_links;\n";
    sql += "DROP TABLE ledger_policy; DROP TABLE ledger_passkeys;\n";
    sql += "DROP TABLE ledger_round_decisions;\n";
    sql += &V1_TABLES.replace("{int}", int);
    sql += "INSERT INTO ledger_tasks SELECT id, tenant, job_id, request_id, state, action,
              action_digest, approval_required, cost_minor, idempotency_key, proposer, fence,
              round, approval_id, executor, lease_until, budget, reserved, result, created_at,
              updated_at FROM ledger_tasks_now;
            INSERT INTO ledger_approvals SELECT a.approval_id, a.task_id, a.round, a.decision_id,
              t.approval, a.revoked_at FROM ledger_approvals_now a
              LEFT JOIN ledger_tasks_now t ON t.approval_id = a.approval_id;
            INSERT INTO ledger_decisions SELECT * FROM ledger_decisions_now;
            INSERT INTO ledger_events SELECT chain, seq, at, tenant, task, kind, body, digest
              FROM ledger_events_now;
            DROP TABLE ledger_tasks_now; DROP TABLE ledger_approvals_now;
            DROP TABLE ledger_decisions_now; DROP TABLE ledger_events_now;
            DROP TABLE ledger_amendments;
            UPDATE ledger_schema SET version = 1;\n";
    sql += match db.engine {
        Engine::Sqlite => {
            "CREATE TRIGGER ledger_events_no_update BEFORE UPDATE ON ledger_events
             BEGIN SELECT RAISE(ABORT, 'ledger_events is append-only'); END;
             CREATE TRIGGER ledger_events_no_delete BEFORE DELETE ON ledger_events
             BEGIN SELECT RAISE(ABORT, 'ledger_events is append-only'); END;"
        }
        Engine::Postgres => {
            "CREATE TRIGGER ledger_events_no_change BEFORE UPDATE OR DELETE ON ledger_events
               FOR EACH ROW EXECUTE FUNCTION ledger_events_append_only();
             CREATE TRIGGER ledger_events_no_truncate BEFORE TRUNCATE ON ledger_events
               FOR EACH STATEMENT EXECUTE FUNCTION ledger_events_append_only();"
        }
    };
    db.sql(&sql);
}

#[test]
fn a_version_1_ledger_is_upgraded_in_place() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        let contract = refund_contract();
        let mut ids = Vec::new();
        for (i, steps) in [4, 3, 1].into_iter().enumerate() {
            let act = refund(&format!("job-{i}"), "req-1", 2500);
            let t = l.propose(&act, &contract, "agent").unwrap();
            ids.push((t.id.clone(), act.clone()));
            if steps >= 2 {
                l.decide(&decision(&t, &format!("d{i}"), "approved", l.now(), HOUR))
                    .unwrap();
            }
            if steps >= 3 {
                let ClaimOutcome::Claimed(c, _) = claim(&l, &t.id, &act).unwrap() else {
                    panic!()
                };
                if steps >= 4 {
                    l.complete(&t.id, c.fence, Reported::Succeeded, None, "worker-1")
                        .unwrap();
                }
            }
        }
        let audit = l.audit_export().unwrap();
        drop(l);
        downgrade_to_v1(&db);
        // Version 1 kept the lease of a finished claim.
        db.sql(&format!(
            "UPDATE ledger_tasks SET lease_until = 1 WHERE id = '{}'",
            ids[0].0
        ));

        let l = db.open();
        // The same events (version 2 lists them in the order they were written, version 1
        // chain by chain: each chain's events are in seq order either way).
        let lines = |text: &str| {
            let mut v: Vec<String> = text.lines().map(str::to_owned).collect();
            v.sort();
            v
        };
        assert_eq!(
            lines(&l.audit_export().unwrap()),
            lines(&audit),
            "{engine:?}: the audit as it was"
        );
        assert!(l.audit_verify().unwrap().broken.is_none());
        let states: Vec<State> = ids
            .iter()
            .map(|(id, _)| l.task(id).unwrap().state)
            .collect();
        assert_eq!(
            states,
            [State::Succeeded, State::Claimed, State::AwaitingApproval]
        );
        assert_eq!(l.task(&ids[0].0).unwrap().lease_until, None);
        assert!(l.task(&ids[1].0).unwrap().lease_until.is_some());
        // It carries on: the claimed task completes, the waiting one is amended and decided.
        let b = l.task(&ids[1].0).unwrap();
        l.complete(&b.id, b.fence, Reported::Succeeded, None, "worker-1")
            .unwrap();
        let c = l.task(&ids[2].0).unwrap();
        let a = amend(&l, &c, &refund("job-2", "req-1", 2000)).unwrap();
        l.decide(&decision(&a.task, "d2", "approved", l.now(), HOUR))
            .unwrap();
        assert_eq!(
            claim(&l, &c.id, &a.task.action).unwrap().result(),
            "claimed"
        );
        assert!(l.audit_verify().unwrap().broken.is_none());
        drop(l);
        // Opening it again finds it current.
        let l = db.open();
        assert_eq!(l.task(&c.id).unwrap().amendments, 1);
    }
}
