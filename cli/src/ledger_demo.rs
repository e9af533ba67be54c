//! `actionseal ledger --db sqlite:PATH demo`: the durable half of the refund story on an
//! embedded SQLite file, computed live (a manual clock stands in for the hours that pass).

use actionseal_core::ledger::{Observed, Reported};
use actionseal_core::{
    canonicalize, parse, Action, ActionIds, Code, Contract, Error, Options, OwnedValue, Result,
    Value,
};
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger, ManualClock, Task};
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Arc;

/// examples/refund/contract.json through a link inside the crate, which `cargo package` copies.
const CONTRACT: &str = include_str!("../refund-contract.json");
const MINUTE: i64 = 60_000;
/// 2025-11-30 10:00 UTC.
const T0: i64 = 1_764_496_800_000;

fn json(text: &str) -> Result<OwnedValue> {
    parse(text.as_bytes(), &Options::default()).map(Value::into_owned)
}

fn clock(ms: i64) -> String {
    let minutes = (ms - T0) / MINUTE;
    let total = 10 * 60 + minutes;
    format!("{:02}:{:02}", (total / 60) % 24, total % 60)
}

/// The business system: it applies each idempotency key once and counts what it receives.
#[derive(Default)]
struct Business {
    dispatches: usize,
    effects: HashMap<String, usize>,
}

impl Business {
    fn dispatch(&mut self, key: &str) {
        self.dispatches += 1;
        *self.effects.entry(key.to_owned()).or_default() += 1;
    }
}

struct Story {
    out: String,
    ledger: Ledger,
    time: ManualClock,
    contract: OwnedValue,
    facts: OwnedValue,
    business: Business,
}

fn line(o: &mut String, s: impl AsRef<str>) {
    // Writing to a String cannot fail.
    let _ = writeln!(o, "{}", s.as_ref());
}

/// The whole story as text; `url` must be a fresh SQLite ledger.
pub(crate) fn story(url: &str) -> Result<String> {
    if !url.starts_with("sqlite:") || url == "sqlite::memory:" {
        return Err(Error::new(
            Code::InvalidLedgerUrl,
            "the demo writes an embedded SQLite file: --db sqlite:PATH",
        ));
    }
    let time = ManualClock::new(T0 - 5 * MINUTE);
    let ledger = Ledger::open_with_clock(url, Arc::new(time.clone()))?;
    if !ledger.tasks(None, None)?.is_empty() {
        return Err(Error::new(
            Code::InvalidRequest,
            "the demo needs a fresh ledger file (this one already has tasks)",
        ));
    }
    let contract = json(CONTRACT)?;
    let facts = json(&format!(
        r#"{{"tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01", "contract": {},
            "approver_authorized": {{"approver": "user:bob", "authorized": true}},
            "subject_authorized": {{"subject": "user:alice", "authorized": true}}}}"#,
        canonicalize(&contract)
    ))?;
    let mut s = Story {
        out: String::new(),
        ledger,
        time,
        contract,
        facts,
        business: Business::default(),
    };
    s.run(url)?;
    Ok(s.out)
}

impl Story {
    fn say(&mut self, s: impl AsRef<str>) {
        line(&mut self.out, s);
    }

    fn now(&self) -> i64 {
        self.ledger.now()
    }

    fn refund(&self, job: &str, amount: i64) -> Result<OwnedValue> {
        let c = Contract::from_value(&self.contract)?;
        let args = json(&format!(
            r#"{{"order_id": "order-17", "amount_minor": {amount}, "currency": "USD"}}"#
        ))?;
        let ids = ActionIds {
            tenant: "tenant-a",
            subject: "user:alice",
            job_id: job,
            request_id: "req-1",
            policy_version: "refund-policy-2026-08-01",
        };
        Ok(Action::build(&c, &args, &ids)?.value().clone())
    }

    fn decision(&self, t: &Task, id: &str, ttl_minutes: i64) -> Result<OwnedValue> {
        json(&format!(
            r#"{{"approval_id": "{}", "decision_id": "{id}", "job_id": "{}", "request_id": "{}",
                "action_digest": "{}", "decision": "approved", "approver": "user:bob",
                "decided_at": {}, "expires_at": {}}}"#,
            t.approval_id.as_deref().unwrap_or(""),
            t.job_id,
            t.request_id,
            t.action_digest,
            self.now(),
            self.now() + ttl_minutes * MINUTE
        ))
    }

    fn claim(&self, task: &str, action: &OwnedValue, executor: &str) -> Result<ClaimOutcome> {
        self.ledger.claim(&ClaimRequest {
            task_id: task,
            action,
            facts: &self.facts,
            executor,
            lease_ms: MINUTE,
            budget: None,
            proof: Default::default(),
        })
    }

    fn claimed(&mut self, out: ClaimOutcome, who: &str) -> Result<(i64, String)> {
        match out {
            ClaimOutcome::Claimed(c, _) => {
                self.say(format!(
                    "   {who} claims it: fence {}, idempotency key {}, lease until {}",
                    c.fence,
                    c.idempotency_key,
                    clock(c.lease_until)
                ));
                Ok((c.fence, c.idempotency_key))
            }
            other => Err(Error::new(
                Code::InvalidRequest,
                format!("the demo expected a claim, got {}", other.result()),
            )),
        }
    }

    fn refused(&mut self, r: Result<impl Sized>, who: &str) {
        match r {
            Ok(_) => self.say(format!("   {who}: NOT REFUSED (this is a bug)")),
            Err(e) => self.say(format!("   {who}: refused, {}", e.code())),
        }
    }

    fn run(&mut self, url: &str) -> Result<()> {
        self.say("actionseal ledger demo: the durable half, on an embedded SQLite file\n");
        self.say(format!("   ledger {url} (WAL, synchronous=FULL)\n"));

        self.say("1. The agent proposes refund order-17, 2500 USD; user:bob approves it once");
        let act = self.refund("job-1", 2500)?;
        let t = self.ledger.propose(&act, &self.contract, "agent:refunds")?;
        self.say(format!(
            "   task {} is {} (approval {})",
            t.id,
            t.state.as_str(),
            t.approval_id.as_deref().unwrap_or("-")
        ));
        self.time.set(T0);
        let d = self.decision(&t, "dec-1", 30)?;
        let first = self.ledger.decide(&d)?;
        let again = self.ledger.decide(&d)?;
        self.say(format!(
            "   {} the decision arrives, then arrives again: recorded once (duplicate: {}), task {}\n",
            clock(self.now()),
            again.duplicate,
            first.task.state.as_str()
        ));

        self.say("2. Two workers race for it: one claim wins, the other is refused");
        self.time.set(T0 + 5 * MINUTE);
        let out = self.claim(&t.id, &act, "worker-1")?;
        let (fence, key) = self.claimed(out, "worker-1")?;
        let second = self.claim(&t.id, &act, "worker-2");
        self.refused(second, "worker-2");
        self.business.dispatch(&key);
        let done = self
            .ledger
            .complete(&t.id, fence, Reported::Succeeded, None, "worker-1")?;
        self.say(format!(
            "   dispatched with the key, completed: task {}\n",
            done.state.as_str()
        ));

        self.say("3. Drifted arguments are refused, and the approved ones returned");
        let act2 = self.refund("job-2", 2500)?;
        let t2 = self
            .ledger
            .propose(&act2, &self.contract, "agent:refunds")?;
        let d2 = self.decision(&t2, "dec-2", 30)?;
        self.ledger.decide(&d2)?;
        let drifted = self.refund("job-2", 2600)?;
        match self.claim(&t2.id, &drifted, "worker-1")? {
            ClaimOutcome::Drift {
                task,
                verdict,
                approved_action,
            } => {
                let amount = approved_action
                    .pointer("/args/amount_minor")
                    .map(canonicalize)
                    .unwrap_or_default();
                self.say(format!(
                    "   worker-1 presents 2600: {} at {:?}; task still {}; approved amount returned: {amount}",
                    "tool_args_drift",
                    verdict.drift,
                    task.state.as_str()
                ));
                let out = self.claim(&t2.id, &approved_action, "worker-1")?;
                let (f, k) = self.claimed(out, "resuming with the approved action, worker-1")?;
                self.business.dispatch(&k);
                self.ledger
                    .complete(&t2.id, f, Reported::Succeeded, None, "worker-1")?;
            }
            other => self.say(format!("   unexpected: {}", other.result())),
        }
        self.say("");

        self.amendment()?;

        self.say("5. Seed 001: approved at 10:00 for 30 minutes, paused, dispatched at 15:00");
        self.time.set(T0);
        let act3 = self.refund("job-3", 19_900)?;
        let t3 = self
            .ledger
            .propose(&act3, &self.contract, "agent:refunds")?;
        let d3 = self.decision(&t3, "dec-3", 30)?;
        self.ledger.decide(&d3)?;
        let before = (self.business.dispatches, self.business.effects.len());
        // The coordinator restarts: a new process opens the same file.
        self.ledger = Ledger::open_with_clock(url, Arc::new(self.time.clone()))?;
        self.time.set(T0 + 300 * MINUTE);
        let out = self.claim(&t3.id, &act3, "worker-1")?;
        let after = (self.business.dispatches, self.business.effects.len());
        if let ClaimOutcome::Reapproval { task, verdict } = &out {
            self.say(format!(
                "   {} after a restart: {:?} -> the same task {} is {}",
                clock(self.now()),
                verdict
                    .reasons
                    .iter()
                    .map(|r| r.as_str())
                    .collect::<Vec<_>>(),
                task.id,
                task.state.as_str()
            ));
        }
        self.say(format!(
            "   dispatch_count {}, business_effect_count {}",
            after.0 - before.0,
            after.1 - before.1
        ));
        self.time.set(T0 + 305 * MINUTE);
        let t3 = self.ledger.task(&t3.id)?;
        let d3b = self.decision(&t3, "dec-3b", 30)?;
        self.ledger.decide(&d3b)?;
        self.say(format!(
            "   {} user:bob re-approves the same task (new approval {})",
            clock(self.now()),
            t3.approval_id.as_deref().unwrap_or("-")
        ));
        let out = self.claim(&t3.id, &act3, "worker-1")?;
        let (f, k) = self.claimed(out, "worker-1")?;
        self.business.dispatch(&k);
        self.ledger
            .complete(&t3.id, f, Reported::Succeeded, None, "worker-1")?;
        self.say(format!(
            "   dispatched once: dispatch_count {}\n",
            self.business.dispatches - before.0
        ));

        self.say(
            "6. A crash after claim: the outcome is in doubt, and reconciliation sorts it out",
        );
        let act4 = self.refund("job-4", 2500)?;
        let t4 = self
            .ledger
            .propose(&act4, &self.contract, "agent:refunds")?;
        let d4 = self.decision(&t4, "dec-4", 60)?;
        self.ledger.decide(&d4)?;
        let out = self.claim(&t4.id, &act4, "worker-1")?;
        let (old_fence, key) = self.claimed(out, "worker-1")?;
        self.say("   worker-1 dies before it dispatches or completes");
        self.time.advance(2 * MINUTE)?;
        let moved = self.ledger.expire_leases()?;
        self.say(format!(
            "   {} the lease ran out: {} task(s) moved to {}",
            clock(self.now()),
            moved.len(),
            self.ledger.task(&t4.id)?.state.as_str()
        ));
        let retry = self.claim(&t4.id, &act4, "worker-2");
        self.refused(retry, "worker-2 tries to dispatch it again");
        let seen = self.business.effects.contains_key(&key);
        self.say(format!(
            "   the business system, asked by key {key}: {}",
            if seen { "done" } else { "never executed" }
        ));
        let observed = if seen {
            Observed::Succeeded
        } else {
            Observed::NotExecuted
        };
        self.ledger
            .reconcile(&t4.id, observed, None, "reconciler")?;
        let out = self.claim(&t4.id, &act4, "worker-2")?;
        let (f, k2) = self.claimed(out, "worker-2")?;
        self.business.dispatch(&k2);
        self.ledger
            .complete(&t4.id, f, Reported::Succeeded, None, "worker-2")?;
        let late = self
            .ledger
            .complete(&t4.id, old_fence, Reported::Succeeded, None, "worker-1");
        self.refused(late, "worker-1 comes back and completes with fence 1");
        self.say(format!(
            "   same key both times: {}; effects for it: {}\n",
            k2 == key,
            self.business.effects.get(&key).copied().unwrap_or(0)
        ));

        self.say("7. The audit: hash chains of every change and refusal");
        let report = self.ledger.audit_verify()?;
        self.say(format!(
            "   {} events in {} of the audit's {} chains, every chain intact: {}",
            report.events,
            report.heads.len(),
            actionseal_core::ledger::CHAINS,
            report.broken.is_none(),
        ));
        self.tamper(url)?;
        Ok(())
    }

    /// A reviewer corrects the arguments before deciding: the decision is made again, about
    /// the changed action, in the same task (seed 003).
    fn amendment(&mut self) -> Result<()> {
        self.say(
            "4. A reviewer corrects the amount before deciding; the model's original is then drift",
        );
        let proposed = self.refund("job-5", 2500)?;
        let t = self
            .ledger
            .propose(&proposed, &self.contract, "agent:refunds")?;
        let first = self.amendment_of(&t, &t.action_digest, 2000)?;
        let a = self.ledger.amend(&first, &self.contract)?;
        let short = |d: &actionseal_core::Digest| d.to_string()[7..19].to_owned();
        self.say(format!(
            "   user:carol amends 2500 -> 2000 at {:?}: proposed {} -> amended {}, task still {}",
            a.task.amended_pointers(),
            short(&a.task.proposed_digest),
            short(&a.task.action_digest),
            a.task.state.as_str()
        ));
        let stale = self.decision(&t, "dec-5a", 30)?;
        let r = self.ledger.decide(&stale);
        self.refused(r, "a decision about the action as the model proposed it");
        let d = self.decision(&a.task, "dec-5", 30)?;
        let decided = self.ledger.decide(&d)?;
        let kept = decided
            .task
            .approval
            .as_ref()
            .and_then(|r| r.pointer("/proposed_digest"))
            .and_then(|v| v.as_str())
            .map(|d| d[7..19].to_owned())
            .unwrap_or_default();
        self.say(format!(
            "   user:bob approves the amended action; the approval record keeps proposed_digest {kept}"
        ));
        let late = self.amendment_of(&t, &a.task.action_digest, 1000)?;
        let r = self.ledger.amend(&late, &self.contract);
        self.refused(r, "an amendment after the decision");
        match self.claim(&t.id, &proposed, "worker-1")? {
            ClaimOutcome::Drift {
                approved_action, ..
            } => {
                let amount = approved_action
                    .pointer("/args/amount_minor")
                    .map(canonicalize)
                    .unwrap_or_default();
                self.say(format!(
                    "   the model re-sends 2500: tool_args_drift; amended amount returned: {amount}"
                ));
                let out = self.claim(&t.id, &approved_action, "worker-1")?;
                let (f, k) = self.claimed(out, "resuming with it, worker-1")?;
                self.business.dispatch(&k);
                self.ledger
                    .complete(&t.id, f, Reported::Succeeded, None, "worker-1")?;
            }
            other => self.say(format!("   unexpected: {}", other.result())),
        }
        self.say("");
        Ok(())
    }

    /// user:carol's amendment of `t` (job-5) to `amount`, editing the action `amends`.
    fn amendment_of(
        &self,
        t: &Task,
        amends: &actionseal_core::Digest,
        amount: i64,
    ) -> Result<OwnedValue> {
        json(&format!(
            r#"{{"task_id": "{}", "amends": "{amends}", "action": {}, "reviewer": "user:carol",
                "reason": "partial refund agreed with the customer"}}"#,
            t.id,
            canonicalize(&self.refund("job-5", amount)?)
        ))
    }

    fn tamper(&mut self, url: &str) -> Result<()> {
        let path = url
            .strip_prefix("sqlite:")
            .and_then(|p| p.split('?').next())
            .unwrap_or_default();
        let c = rusqlite::Connection::open(path)
            .map_err(|e| Error::new(Code::LedgerUnavailable, e.to_string()))?;
        let edit = "UPDATE ledger_events SET body = replace(body, '\"actor\":\"worker-2\"', \
                    '\"actor\":\"worker-9\"') WHERE kind = 'claim_refused'";
        let refused = c.execute_batch(edit).is_err();
        self.say(format!(
            "   editing an event in SQL: {}",
            if refused {
                "refused by the table's trigger"
            } else {
                "ALLOWED (this is a bug)"
            }
        ));
        c.execute_batch(&format!("DROP TRIGGER ledger_events_no_update; {edit};"))
            .map_err(|e| Error::new(Code::LedgerStorage, e.to_string()))?;
        let report = self.ledger.audit_verify()?;
        match report.broken {
            Some(b) => self.say(format!(
                "   with the trigger dropped and one row edited: chain {} breaks at seq {} ({})",
                b.chain.unwrap_or(-1),
                b.seq.unwrap_or(-1),
                b.problem.as_str()
            )),
            None => self.say("   the edit was NOT detected (this is a bug)"),
        }
        Ok(())
    }
}
