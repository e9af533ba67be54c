//! Fixtures shared by the ledger's tests: fresh databases on both engines, the contracts and
//! actions of the stories, decisions, facts, and helper processes.
#![allow(dead_code)]

use actionseal_core::ledger::{Event, Reported};
use actionseal_core::tlog::note::SignerKey;
use actionseal_core::{parse, Action, ActionIds, Contract, Digest, Options, OwnedValue, Value};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger, LedgerOptions, ManualClock, Task};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub mod proofs;

/// 2025-11-30 10:00 UTC.
pub const T0: i64 = 1_764_496_800_000;
pub const MINUTE: i64 = 60_000;
pub const HOUR: i64 = 60 * MINUTE;

/// The signer and verifier keys of Go's `golang.org/x/mod/sumdb/note` examples
/// (example_test.go): the ledger's key for signing checkpoints in the tests.
pub const LOG_KEY: &str =
    "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
pub const LOG_VERIFIER: &str = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";

pub fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap_or_else(|e| panic!("{e}: {text}"))
        .into_owned()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// Task `task`'s evidence bundle, exported through a handle that signs checkpoints, as
/// `verify_evidence` judges it without the database (trusting the ledger's key alone: the
/// decisions here are bare).
pub fn evidence_of(db: &Db, task: &str) -> actionseal_core::Result<()> {
    let b = db
        .open_logged()
        .evidence(task, "auditor:carol", None)
        .unwrap();
    let trust = json(&format!(
        r#"{{"ledger_keys": [{{"key": "{LOG_VERIFIER}"}}]}}"#
    ));
    actionseal_core::evidence::verify_evidence(
        &json(&actionseal_core::canonicalize(&b.to_value())),
        &trust,
    )
    .map(|_| ())
}

/// An honest ledger's rounds are what the bundle's offline re-tally finds.
pub fn evidence_holds(db: &Db, task: &str, what: &str) {
    evidence_of(db, task).unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// The engines every test runs on. PostgreSQL comes from `scripts/pg run` (which sets
/// ACTIONSEAL_TEST_PG); leaving it out is an error unless skipped explicitly with
/// ACTIONSEAL_TEST_PG=skip.
pub fn engines() -> Vec<Engine> {
    match std::env::var("ACTIONSEAL_TEST_PG").as_deref() {
        Ok("skip") => {
            eprintln!("ACTIONSEAL_TEST_PG=skip: PostgreSQL tests skipped on request");
            vec![Engine::Sqlite]
        }
        Ok(_) => vec![Engine::Sqlite, Engine::Postgres],
        Err(_) => panic!(
            "ACTIONSEAL_TEST_PG is not set: run the ledger tests through `scripts/pg run cargo \
             test -p actionseal-ledger` (or set ACTIONSEAL_TEST_PG=skip to skip PostgreSQL)"
        ),
    }
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn unique() -> String {
    format!(
        "{}_{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    )
}

/// A fresh, empty ledger database, removed when dropped.
pub struct Db {
    pub engine: Engine,
    pub url: String,
    /// The SQLite file, for tests that open it directly.
    pub path: Option<PathBuf>,
    dir: Option<PathBuf>,
    pg_name: Option<String>,
}

pub fn temp_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("actionseal-ledger-test-{}", unique()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

impl Db {
    /// A fresh database; SQLite files use `synchronous=FULL` (the default) unless `normal`.
    pub fn fresh(engine: Engine) -> Db {
        Db::with(engine, false)
    }

    /// SQLite with `synchronous=NORMAL` (races and setup-heavy tests, where durability across
    /// power loss is not what is tested).
    pub fn fast(engine: Engine) -> Db {
        Db::with(engine, true)
    }

    fn with(engine: Engine, normal: bool) -> Db {
        match engine {
            Engine::Sqlite => {
                let dir = temp_dir();
                let path = dir.join("ledger.db");
                let q = if normal { "?synchronous=normal" } else { "" };
                Db {
                    engine,
                    url: format!("sqlite:{}{q}", path.display()),
                    path: Some(path),
                    dir: Some(dir),
                    pg_name: None,
                }
            }
            Engine::Postgres => {
                let base = std::env::var("ACTIONSEAL_TEST_PG").unwrap();
                let name = format!("t_{}", unique());
                let mut admin = postgres::Client::connect(&base, postgres::NoTls).unwrap();
                admin
                    .batch_execute(&format!("CREATE DATABASE {name}"))
                    .unwrap();
                Db {
                    engine,
                    url: pg_url(&base, &name),
                    path: None,
                    dir: None,
                    pg_name: Some(name),
                }
            }
        }
    }

    pub fn open(&self) -> Ledger {
        Ledger::open(&self.url).unwrap_or_else(|e| panic!("open {}: {e}", self.url))
    }

    /// A handle that signs checkpoints with [`LOG_KEY`].
    pub fn open_logged(&self) -> Ledger {
        let options = LedgerOptions {
            checkpoint_signer: Some(SignerKey::parse(LOG_KEY).unwrap()),
            ..LedgerOptions::default()
        };
        Ledger::open_with(&self.url, options).unwrap_or_else(|e| panic!("open {}: {e}", self.url))
    }

    pub fn open_at(&self, clock: &ManualClock) -> Ledger {
        Ledger::open_with_clock(&self.url, Arc::new(clock.clone())).unwrap()
    }

    /// Runs SQL directly on the database (as an attacker or an operator would).
    pub fn sql(&self, sql: &str) {
        match self.engine {
            Engine::Sqlite => {
                let c = rusqlite::Connection::open(self.path.as_ref().unwrap()).unwrap();
                c.execute_batch(sql)
                    .unwrap_or_else(|e| panic!("{e}: {sql}"));
            }
            Engine::Postgres => {
                let mut c = postgres::Client::connect(&self.url, postgres::NoTls).unwrap();
                c.batch_execute(sql)
                    .unwrap_or_else(|e| panic!("{e}: {sql}"));
            }
        }
    }

    /// The same PostgreSQL database as another role (which the test creates), for SQL run as
    /// that role; dropping it drops nothing.
    pub fn as_role(&self, role: &str) -> Db {
        let (scheme, rest) = self.url.split_once("://").unwrap();
        let (_, host) = rest.split_once('@').unwrap();
        Db {
            engine: self.engine,
            url: format!("{scheme}://{role}@{host}"),
            path: None,
            dir: None,
            pg_name: None,
        }
    }

    /// The rows of a query run directly, every column read as text (cast in the query).
    pub fn texts(&self, sql: &str) -> Vec<Vec<Option<String>>> {
        match self.engine {
            Engine::Sqlite => {
                let c = rusqlite::Connection::open(self.path.as_ref().unwrap()).unwrap();
                let mut st = c.prepare(sql).unwrap_or_else(|e| panic!("{e}: {sql}"));
                let n = st.column_count();
                st.query_map([], |r| (0..n).map(|i| r.get(i)).collect())
                    .unwrap()
                    .collect::<rusqlite::Result<_>>()
                    .unwrap()
            }
            Engine::Postgres => {
                let mut c = postgres::Client::connect(&self.url, postgres::NoTls).unwrap();
                c.query(sql, &[])
                    .unwrap_or_else(|e| panic!("{e}: {sql}"))
                    .iter()
                    .map(|r| (0..r.len()).map(|i| r.get(i)).collect())
                    .collect()
            }
        }
    }

    /// Whether SQL run directly fails.
    pub fn sql_fails(&self, sql: &str) -> bool {
        match self.engine {
            Engine::Sqlite => {
                let c = rusqlite::Connection::open(self.path.as_ref().unwrap()).unwrap();
                c.execute_batch(sql).is_err()
            }
            Engine::Postgres => {
                let mut c = postgres::Client::connect(&self.url, postgres::NoTls).unwrap();
                c.batch_execute(sql).is_err()
            }
        }
    }
}

/// Turns a current ledger into version 10's layout, in place: no sensitive values kept apart.
pub fn downgrade_to_v10(db: &Db) {
    db.sql(
        "DROP TABLE ledger_disclosures;
         DROP TABLE ledger_retention;
         UPDATE ledger_schema SET version = 10;",
    );
}

/// Turns a current ledger into version 8's layout, in place: no batches.
pub fn downgrade_to_v8(db: &Db) {
    downgrade_to_v10(db);
    db.sql(
        "DROP TABLE ledger_batches;
         DROP TABLE ledger_batch_lineages;
         DROP TABLE ledger_batch_items;
         UPDATE ledger_schema SET version = 8;",
    );
}

/// Turns a current ledger into version 7's layout, in place: no notifications (PostgreSQL).
pub fn downgrade_to_v7(db: &Db) {
    downgrade_to_v8(db);
    if db.engine == Engine::Postgres {
        db.sql(
            "DROP TRIGGER ledger_events_wake ON ledger_events;
             DROP FUNCTION ledger_events_wake();",
        );
    }
    db.sql("UPDATE ledger_schema SET version = 7;");
}

/// Turns a current ledger into version 6's layout, in place: no Merkle log, no contracts kept.
pub fn downgrade_to_v6(db: &Db) {
    downgrade_to_v7(db);
    db.sql(
        "DROP TABLE ledger_contracts;
         DROP TABLE ledger_cosignatures;
         DROP TABLE ledger_checkpoints;
         DROP TABLE ledger_nodes;
         DROP TABLE ledger_leaves;
         UPDATE ledger_schema SET version = 6;",
    );
    if db.engine == Engine::Postgres {
        db.sql(
            "DROP FUNCTION ledger_tree_append_only();
             DROP FUNCTION ledger_checkpoints_stamp_once();",
        );
    }
}

/// Turns a current ledger into version 5's layout, in place: no quorums.
pub fn downgrade_to_v5(db: &Db) {
    downgrade_to_v6(db);
    db.sql(
        "ALTER TABLE ledger_tasks DROP COLUMN contract;
         DROP TABLE ledger_round_decisions;
         UPDATE ledger_schema SET version = 5;",
    );
}

/// Turns a current ledger into version 4's layout, in place: no round start, proof, policy or
/// passkey counters.
pub fn downgrade_to_v4(db: &Db) {
    downgrade_to_v5(db);
    db.sql(
        "ALTER TABLE ledger_tasks DROP COLUMN round_started_at;
         ALTER TABLE ledger_tasks DROP COLUMN proof;
         DROP TABLE ledger_policy;
         DROP TABLE ledger_passkeys;
         UPDATE ledger_schema SET version = 4;",
    );
}

pub fn pg_url(base: &str, db: &str) -> String {
    let (prefix, _) = base.rsplit_once('/').unwrap();
    format!("{prefix}/{db}")
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
        if let Some(name) = &self.pg_name {
            if let Ok(base) = std::env::var("ACTIONSEAL_TEST_PG") {
                if let Ok(mut admin) = postgres::Client::connect(&base, postgres::NoTls) {
                    let _ = admin
                        .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
                }
            }
        }
    }
}

/// The refund tool of the examples: approval above 1000 minor units or outside USD.
pub fn refund_contract() -> OwnedValue {
    let text = include_str!("../../../examples/refund/contract.json");
    json(text)
}

/// The refund contract of the examples, its approval replaced by `approval` (JSON text).
pub fn quorum_contract(approval: &str) -> OwnedValue {
    let text = actionseal_core::canonicalize(&refund_contract());
    let start = text.find(r#""approval":"#).unwrap() + r#""approval":"#.len();
    let end = text.find(r#","args":"#).unwrap();
    json(&format!("{}{approval}{}", &text[..start], &text[end..]))
}

/// Two approvers, any roles, any rejection vetoes.
pub fn two_of_any() -> OwnedValue {
    quorum_contract(r#"{"when": "always", "quorum": {"approvers": 2}}"#)
}

/// The seed 001 refund tool: every call needs a person.
pub fn seed_contract() -> OwnedValue {
    json(
        r#"{"tool": "refund_create", "version": "1", "effect": "write", "approval": "always",
            "cost_minor": 0,
            "args": {"type": "object", "required": ["order_id", "amount_minor", "currency", "reason"],
                     "properties": {"order_id": {"type": "string"},
                                    "amount_minor": {"type": "integer", "minimum": 1},
                                    "currency": {"type": "string", "enum": ["CNY", "USD"]},
                                    "reason": {"type": "string"}}}}"#,
    )
}

/// A read-only lookup: no person needed.
pub fn lookup_contract() -> OwnedValue {
    json(
        r#"{"tool": "order_lookup", "version": "1", "effect": "read", "approval": "never",
            "cost_minor": 1,
            "args": {"type": "object", "required": ["order_id"],
                     "properties": {"order_id": {"type": "string"}}}}"#,
    )
}

/// The seed refund tool, batchable: at most 20 items, 3 failures in 10 minutes trip the
/// breaker, which closes after 2 successes; `sum` caps the lineage's amounts.
pub fn batch_contract(sum: i64) -> OwnedValue {
    json(&format!(
        r#"{{"tool": "refund_create", "version": "1", "effect": "write", "approval": "always",
            "cost_minor": 0,
            "args": {{"type": "object", "required": ["order_id", "amount_minor", "currency", "reason"],
                     "properties": {{"order_id": {{"type": "string"}},
                                    "amount_minor": {{"type": "integer", "minimum": 1}},
                                    "currency": {{"type": "string", "enum": ["CNY", "USD"]}},
                                    "reason": {{"type": "string"}}}}}},
            "batch": {{"max_items": 40, "caps": {{"sum": {{"pointer": "/args/amount_minor", "max": {sum}}}}},
                      "breaker": {{"max_failures": 3, "window_ms": 600000, "close_after": 2}}}}}}"#
    ))
}

/// `n` refunds of 100 minor units each, for orders 0..n of job `job`.
pub fn refunds(contract: &OwnedValue, job: &str, n: usize) -> Vec<OwnedValue> {
    (0..n)
        .map(|i| {
            action(
                contract,
                &format!(
                    r#"{{"order_id": "order-{i}", "amount_minor": 100, "currency": "USD",
                        "reason": "outage"}}"#
                ),
                job,
                &format!("req-{i}"),
            )
        })
        .collect()
}

/// An action of `contract` in tenant-a for user:alice.
pub fn action(contract: &OwnedValue, args: &str, job: &str, request: &str) -> OwnedValue {
    let c = Contract::from_value(contract).unwrap();
    let ids = ActionIds {
        tenant: "tenant-a",
        subject: "user:alice",
        job_id: job,
        request_id: request,
        policy_version: "refund-policy-2026-08-01",
    };
    Action::build(&c, &json(args), &ids)
        .unwrap()
        .value()
        .clone()
}

/// A refund of `amount` minor units USD for order-17.
pub fn refund(job: &str, request: &str, amount: i64) -> OwnedValue {
    action(
        &refund_contract(),
        &format!(r#"{{"order_id": "order-17", "amount_minor": {amount}, "currency": "USD"}}"#),
        job,
        request,
    )
}

/// user:carol's amendment of task `t`'s current action to `action`.
pub fn amendment(t: &Task, action: &OwnedValue) -> OwnedValue {
    json(&format!(
        r#"{{"task_id": "{}", "amends": "{}", "action": {}, "reviewer": "user:carol",
            "reason": "the customer asked for less"}}"#,
        t.id,
        t.action_digest,
        actionseal_core::canonicalize(action)
    ))
}

/// The executor's facts: tenant-a, the policy in force, `contract`, user:bob authorised to
/// approve and user:alice to be the subject.
pub fn facts(contract: &OwnedValue) -> OwnedValue {
    json(&format!(
        r#"{{"tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01", "contract": {},
            "approver_authorized": {{"approver": "user:bob", "authorized": true}},
            "subject_authorized": {{"subject": "user:alice", "authorized": true}}}}"#,
        actionseal_core::canonicalize(contract)
    ))
}

/// A decision envelope about `task`'s current approval round.
pub fn decision(task: &Task, decision_id: &str, verdict: &str, at: i64, ttl: i64) -> OwnedValue {
    json(&format!(
        r#"{{"approval_id": "{}", "decision_id": "{decision_id}", "job_id": "{}",
            "request_id": "{}", "action_digest": "{}", "decision": "{verdict}",
            "approver": "user:bob", "decided_at": {at}, "expires_at": {}}}"#,
        task.approval_id.as_deref().unwrap(),
        task.job_id,
        task.request_id,
        task.action_digest,
        at + ttl
    ))
}

/// One whole lifecycle of the refund of `job`: proposed, approved by decision `decision_id`,
/// claimed by `executor` and completed as succeeded. Returns the task's id.
pub fn whole_lifecycle(l: &Ledger, job: &str, decision_id: &str, executor: &str) -> String {
    let (contract, act) = (refund_contract(), refund(job, "req-1", 2500));
    let t = l.propose(&act, &contract, "agent").unwrap();
    l.decide(&decision(&t, decision_id, "approved", l.now(), HOUR))
        .unwrap();
    let out = claim_under(l, &t.id, &act, &contract, executor).unwrap();
    let ClaimOutcome::Claimed(c, _) = out else {
        panic!("not claimed: {}", out.result())
    };
    l.complete(&t.id, c.fence, Reported::Succeeded, None, executor)
        .unwrap();
    t.id
}

/// `executor`'s claim of task `task_id` for `action`, under `contract`'s facts, with an hour's
/// lease, no budget and the ledger's own proof requirement.
pub fn claim_under(
    l: &Ledger,
    task_id: &str,
    action: &OwnedValue,
    contract: &OwnedValue,
    executor: &str,
) -> actionseal_core::Result<ClaimOutcome> {
    l.claim(&ClaimRequest {
        task_id,
        action,
        facts: &facts(contract),
        executor,
        lease_ms: HOUR,
        budget: None,
        proof: Default::default(),
    })
}

/// The business system: keyed by idempotency key, it applies each effect once, and counts
/// every dispatch it receives.
#[derive(Default)]
pub struct Business {
    pub effects: Mutex<HashMap<String, usize>>,
    pub dispatches: AtomicUsize,
}

impl Business {
    /// Receives a dispatch; true when it had an effect (the key was new).
    pub fn dispatch(&self, key: &str) -> bool {
        self.dispatches.fetch_add(1, Ordering::SeqCst);
        let mut e = self.effects.lock().unwrap();
        let n = e.entry(key.to_owned()).or_insert(0);
        *n += 1;
        *n == 1
    }

    pub fn dispatch_count(&self) -> usize {
        self.dispatches.load(Ordering::SeqCst)
    }

    /// Distinct effects (one per key, however often it was sent).
    pub fn effect_count(&self) -> usize {
        self.effects.lock().unwrap().len()
    }

    pub fn has(&self, key: &str) -> bool {
        self.effects.lock().unwrap().contains_key(key)
    }
}

/// The kinds of `task`'s audit events, in order.
pub fn kinds(l: &Ledger, task: &str) -> Vec<String> {
    l.task_history(task)
        .unwrap()
        .1
        .iter()
        .map(|e| e.kind.as_str().to_owned())
        .collect()
}

/// Every event of an exported audit, parsed.
pub fn audit_events(ledger: &Ledger) -> Vec<OwnedValue> {
    ledger.audit_export().unwrap().lines().map(json).collect()
}

/// The batch proposed last (a lineage's remainder, after a send-back), as the audit names it.
pub fn last_batch(ledger: &Ledger) -> actionseal_ledger::Batch {
    let id = audit_events(ledger)
        .iter()
        .rev()
        .find(|e| str_field(e, "kind") == "batch_proposed")
        .map(|e| str_field(field(e, "detail"), "batch_id").to_owned())
        .expect("a batch was proposed");
    ledger.batch(&id).unwrap()
}

pub fn field<'a>(v: &'a OwnedValue, key: &str) -> &'a Value<'static> {
    v.as_object()
        .and_then(|o| o.get(key))
        .unwrap_or(&Value::Null)
}

pub fn str_field<'a>(v: &'a OwnedValue, key: &str) -> &'a str {
    field(v, key).as_str().unwrap_or("")
}

/// Runs this test binary's `test` again as a helper process with `env`, stdout piped.
pub fn helper(test: &str, env: &[(&str, String)]) -> std::process::Command {
    let mut c = std::process::Command::new(std::env::current_exe().unwrap());
    c.args([test, "--exact", "--nocapture", "--test-threads=1", "-q"]);
    for (k, v) in env {
        c.env(k, v);
    }
    c.stdout(std::process::Stdio::piped());
    c
}

/// Switches off the triggers that keep the events append-only, as the database's owner can.
pub fn unprotect(db: &Db) {
    match db.engine {
        Engine::Sqlite => {
            db.sql("DROP TRIGGER ledger_events_no_update; DROP TRIGGER ledger_events_no_delete;")
        }
        Engine::Postgres => db.sql("ALTER TABLE ledger_events DISABLE TRIGGER USER"),
    }
}

/// Edits the event at `seq` of `chain` and seals every event after it again, moving the
/// chain's head to match: what someone who owns the database can do without leaving a break
/// in the chain.
pub fn reseal(db: &Db, chain: i64, seq: i64, edit: impl Fn(&mut Event)) {
    let rows = db.texts(&format!(
        "SELECT CAST(id AS TEXT), body FROM ledger_events WHERE chain = {chain} ORDER BY seq"
    ));
    let mut prev: Option<Digest> = None;
    let mut sql = String::new();
    for r in rows {
        let (id, body) = (r[0].clone().unwrap(), r[1].clone().unwrap());
        let mut e = Event::from_value(&json(&body)).unwrap();
        if e.seq >= seq {
            if e.seq == seq {
                edit(&mut e);
            }
            e.prev = prev;
            let text = e.canonical().replace('\'', "''");
            sql += &format!(
                "UPDATE ledger_events SET body = '{text}', digest = '{}' WHERE id = {id};\n",
                e.digest()
            );
        }
        prev = Some(e.digest());
    }
    sql += &format!(
        "UPDATE ledger_head SET digest = '{}' WHERE chain = {chain};",
        prev.unwrap()
    );
    db.sql(&sql);
}
