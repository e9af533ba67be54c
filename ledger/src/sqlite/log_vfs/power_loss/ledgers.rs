//! The ledgers a world runs and the checks of every image a power loss left: lifecycles on
//! threads until the power fails, then the ledger reopened on the image, held to what had
//! returned.

use super::disk::{Bytes, Disk, Plan};
use super::{
    fail, json, reached, stack, Ack, Failure, Kind, Step, Then, HOUR, LEDGER, LIFECYCLES, T0,
    THREADS,
};
use crate::sqlite::log_vfs::Order;
use crate::sqlite::{connect, Vfs};
use crate::{ClaimOutcome, ClaimRequest, Clock, Ledger, LedgerOptions, ManualClock};
use actionseal_core::ledger::{Reported, State};
use actionseal_core::{Action, ActionIds, Contract, OwnedValue};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The ledgers the test opens: through which VFSs, on what clock, running which refund.
pub(super) struct Ledgers {
    vfs: Vfs,
    clock: ManualClock,
    contract: OwnedValue,
    refund: Contract,
    facts: OwnedValue,
}

impl Ledgers {
    pub(super) fn new(order: Order) -> Ledgers {
        let contract = json(include_str!("../../../../../examples/refund/contract.json"));
        let facts = json(&format!(
            r#"{{"tenant": "tenant-a", "policy_version": "p1", "contract": {},
                "approver_authorized": {{"approver": "user:bob", "authorized": true}},
                "subject_authorized": {{"subject": "user:alice", "authorized": true}}}}"#,
            actionseal_core::canonicalize(&contract)
        ));
        Ledgers {
            vfs: stack(order),
            clock: ManualClock::new(T0),
            refund: Contract::from_value(&contract).unwrap(),
            contract,
            facts,
        }
    }

    /// A new ledger's files, closed.
    pub(super) fn template(&self) -> Result<Vec<(String, Bytes)>, Failure> {
        let disk = Disk::new(&[], Plan::default(), 0);
        drop(self.open(&disk.path(LEDGER))?);
        Ok(disk.power_off().files)
    }

    /// One world: the ledger reopened on the disk's files (recovering them, while the power
    /// may fail again), then lifecycles on [`THREADS`] threads and a checkpointer, until the
    /// power fails.
    pub(super) fn world(&self, disk: &Arc<Disk>, w: usize) -> Result<(), Failure> {
        let path = disk.path(LEDGER);
        let l = match self.open(&path) {
            Ok(l) => l,
            Err(_) if disk.is_off() => return Ok(()),
            Err(f) => return Err(f),
        };
        let done = AtomicBool::new(false);
        let out = std::thread::scope(|s| {
            let checkpointer = s.spawn(|| {
                let Ok(c) = connect(Path::new(&path), self.vfs.base) else {
                    return;
                };
                while !done.load(Ordering::SeqCst) && !disk.is_off() {
                    let _ = c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                    std::thread::sleep(Duration::from_micros(300));
                }
            });
            let threads: Vec<_> = (0..THREADS)
                .map(|t| {
                    let l = &l;
                    s.spawn(move || self.lifecycles(l, disk, w, t))
                })
                .collect();
            let out: Result<Vec<()>, Failure> =
                threads.into_iter().map(|t| t.join().unwrap()).collect();
            done.store(true, Ordering::SeqCst);
            checkpointer.join().unwrap();
            out
        });
        // Closing: the last connection checkpoints and deletes the log, if the power holds.
        drop(l);
        out.map(|_| ())
    }

    fn open(&self, path: &str) -> Result<Ledger, Failure> {
        let options = LedgerOptions {
            clock: Arc::new(self.clock.clone()),
            ..LedgerOptions::default()
        };
        Ledger::open_on(&format!("sqlite:{path}"), options, self.vfs)
            .map_err(|e| fail(Kind::Damaged, format!("the ledger does not open: {e}")))
    }

    /// Lifecycles of one thread, each operation recorded once it returned. An error ends
    /// them: with the power off, that is the crash; with it on, a failure.
    fn lifecycles(&self, l: &Ledger, disk: &Disk, w: usize, t: usize) -> Result<(), Failure> {
        macro_rules! or_off {
            ($what:literal, $r:expr) => {
                match $r {
                    Ok(v) => v,
                    Err(_) if disk.is_off() => return Ok(()),
                    Err(e) => return Err(fail(Kind::Failed, format!("{}: {e}", $what))),
                }
            };
        }
        for i in 0..LIFECYCLES {
            let action = self.refund(&format!("w{w}-t{t}-{i}"));
            let task = or_off!("propose", l.propose(&action, &self.contract, "agent"));
            let id = task.id.clone();
            disk.ack(Ack {
                task: id.clone(),
                step: Step::Proposed,
            });
            let now = self.clock.now_ms();
            let decision = json(&format!(
                r#"{{"approval_id": "{}", "decision_id": "d-{id}", "job_id": "{}",
                    "request_id": "req-1", "action_digest": "{}", "decision": "approved",
                    "approver": "user:bob", "decided_at": {now}, "expires_at": {}}}"#,
                task.approval_id.as_deref().unwrap_or_default(),
                task.job_id,
                task.action_digest,
                now + HOUR
            ));
            or_off!("decide", l.decide(&decision));
            disk.ack(Ack {
                task: id.clone(),
                step: Step::Decided,
            });
            let claim = or_off!(
                "claim",
                l.claim(&ClaimRequest {
                    task_id: &id,
                    action: &action,
                    facts: &self.facts,
                    executor: "executor",
                    lease_ms: HOUR,
                    budget: None,
                    proof: Default::default(),
                })
            );
            let ClaimOutcome::Claimed(c, _) = claim else {
                return Err(fail(Kind::Failed, format!("{id}: not claimed: {claim:?}")));
            };
            disk.ack(Ack {
                task: id.clone(),
                step: Step::Claimed(c.fence),
            });
            or_off!(
                "complete",
                l.complete(&id, c.fence, Reported::Succeeded, None, "executor")
            );
            disk.ack(Ack {
                task: id,
                step: Step::Completed(c.fence),
            });
        }
        Ok(())
    }

    /// A refund that needs a person (above 1000), for job `job`.
    fn refund(&self, job: &str) -> OwnedValue {
        let ids = ActionIds {
            tenant: "tenant-a",
            subject: "user:alice",
            job_id: job,
            request_id: "req-1",
            policy_version: "p1",
        };
        let args = json(r#"{"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}"#);
        Action::build(&self.refund, &args, &ids)
            .unwrap()
            .value()
            .clone()
    }

    /// The ledger on the files a power loss left: it opens, is intact, holds every operation
    /// of `acked`, and, `then`, carries on.
    pub(super) fn recover(
        &self,
        files: &[(String, Bytes)],
        acked: &[Ack],
        then: Then,
    ) -> Result<(), Failure> {
        let disk = Disk::new(files, Plan::default(), 0);
        let path = disk.path(LEDGER);
        let l = self.open(&path)?;
        self.check(&l, &path, acked)?;
        if let Then::Propose = then {
            l.propose(&self.refund("after"), &self.contract, "agent")
                .map_err(|e| fail(Kind::Failed, format!("the recovered ledger: {e}")))?;
        }
        Ok(())
    }

    fn check(&self, l: &Ledger, path: &str, acked: &[Ack]) -> Result<(), Failure> {
        let io = |e: &dyn std::fmt::Display| fail(Kind::Failed, e.to_string());
        let c = connect(Path::new(path), self.vfs.log).map_err(|e| io(&e))?;
        let verdict: String = c
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(|e| io(&e))?;
        if verdict != "ok" {
            return Err(fail(Kind::Damaged, format!("integrity_check: {verdict}")));
        }
        let audit = l.audit_verify().map_err(|e| io(&e))?;
        if let Some(b) = audit.broken {
            return Err(fail(Kind::Damaged, format!("the audit breaks: {b:?}")));
        }
        let mut tasks = HashMap::new();
        let mut events = HashSet::new();
        {
            let mut st = c
                .prepare("SELECT id, state, fence FROM ledger_tasks")
                .map_err(|e| io(&e))?;
            let rows = st
                .query_map([], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get(2)?))
                })
                .map_err(|e| io(&e))?;
            for r in rows {
                let (id, state, fence): (String, String, i64) = r.map_err(|e| io(&e))?;
                let state = State::parse(&state).map_err(|e| fail(Kind::Damaged, e.to_string()))?;
                tasks.insert(id, (state, fence));
            }
            let mut st = c
                .prepare("SELECT task, kind FROM ledger_events WHERE task IS NOT NULL")
                .map_err(|e| io(&e))?;
            let rows = st
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                .map_err(|e| io(&e))?;
            for r in rows {
                events.insert(r.map_err(|e| io(&e))?);
            }
        }
        let mut last: HashMap<&str, Step> = HashMap::new();
        for a in acked {
            last.insert(&a.task, a.step);
        }
        for (task, step) in last {
            let Some(&(state, fence)) = tasks.get(task) else {
                return Err(fail(
                    Kind::Lost,
                    format!("{task}: {step:?} returned; no task"),
                ));
            };
            let Some(at) = reached(state) else {
                return Err(fail(Kind::Damaged, format!("{task}: {state:?}")));
            };
            if at < step.reached() || step.fence().is_some_and(|f| f != fence) {
                return Err(fail(
                    Kind::Lost,
                    format!("{task}: {step:?} returned; recovered {state:?}, fence {fence}"),
                ));
            }
            for kind in step.events() {
                if !events.contains(&(task.to_owned(), (*kind).to_owned())) {
                    return Err(fail(
                        Kind::Lost,
                        format!("{task}: {step:?} returned; no {kind} event"),
                    ));
                }
            }
        }
        Ok(())
    }
}
