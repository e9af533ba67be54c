//! The operations, written once against [`Tx`]: each runs inside one transaction, takes every
//! decision from core (`actionseal_core::ledger`), and appends one audit event for whatever it
//! changed or refused.

pub(crate) mod amend;
pub(crate) mod batch;
pub(crate) mod claim;
pub(crate) mod decide;
pub(crate) mod evidence;
pub(crate) mod finish;
pub(crate) mod policy;
pub(crate) mod propose;
pub(crate) mod quorum;
pub(crate) mod retention;
pub(crate) mod revoke;
pub(crate) mod shred;
pub(crate) mod sweep;

use crate::contracts::Contracts;
use crate::json::{obj, stored};
use crate::model::{Amended, ClaimOutcome, Decided, Task};
use crate::store::{storage, Done, TaskRow, Tx};
use actionseal_core::ledger::{chain_of, next, Event, EventKind, Op, Snapshot, State};
use actionseal_core::{Code, Digest, Error, OwnedValue, Result};

/// The actor of events the ledger makes by itself (a lease running out).
pub(crate) const LEDGER_ACTOR: &str = "ledger";

pub(crate) fn snapshot(t: &TaskRow) -> Snapshot {
    Snapshot {
        state: t.state,
        fence: t.fence,
        lease_until: t.lease_until,
    }
}

/// An event about `t` as it is now, by `actor`; the caller fills in what the kind needs.
pub(crate) fn event(t: &TaskRow, now: i64, kind: EventKind, actor: &str) -> Event {
    Event {
        chain: chain_of(Some(&t.id)),
        seq: 0,
        at: now,
        tenant: t.tenant.clone(),
        task: Some(t.id.clone()),
        kind,
        actor: actor.to_owned(),
        action_digest: Some(t.action_digest),
        approved_digest: None,
        decision_id: None,
        fence: (t.fence > 0).then_some(t.fence),
        outcome: None,
        reasons: Vec::new(),
        drift: Vec::new(),
        state: Some(t.state),
        detail: obj(vec![]),
        prev: None,
    }
}

pub(crate) fn detail(entries: Vec<(&'static str, OwnedValue)>) -> OwnedValue {
    obj(entries)
}

/// The model's proposed digest, when a reviewer amended the task's action to another one.
pub(crate) fn amended_from(t: &TaskRow) -> Option<Digest> {
    t.proposed_digest.filter(|p| !p.ct_eq(&t.action_digest))
}

/// `detail` entries plus the model's proposed digest when the action was amended, so that
/// events after an amendment carry both digests.
pub(crate) fn detail_of(t: &TaskRow, mut entries: Vec<(&'static str, OwnedValue)>) -> OwnedValue {
    if let Some(p) = amended_from(t) {
        entries.push(("proposed_digest", crate::json::s(&p.to_string())));
    }
    obj(entries)
}

/// Records a refusal (its code as the event's outcome) and ends the operation with it.
pub(crate) fn refuse<T>(tx: &mut dyn Tx, mut ev: Event, e: Error) -> Result<Done<T>> {
    ev.outcome = Some(e.code().as_str().to_owned());
    tx.append(ev);
    Ok(Done::Refused(e))
}

/// The task, locked for the rest of the transaction.
pub(crate) fn locked_task(tx: &mut dyn Tx, id: &str) -> Result<TaskRow> {
    tx.task(id)?
        .ok_or_else(|| Error::new(Code::TaskNotFound, format!("no task {id:?}")))
}

/// Writes `t`, which was read in `before` under the lock.
pub(crate) fn save(tx: &mut dyn Tx, t: &TaskRow, before: &Snapshot) -> Result<()> {
    if tx.update_task(t, before.state, before.fence)? {
        Ok(())
    } else {
        Err(storage(
            "task update",
            format!("{} changed while locked", t.id),
        ))
    }
}

/// Moves a claimed task whose lease ran out to `unknown` (never back to claimable: only a
/// reconciliation does that). Returns whether it did.
pub(crate) fn expire_if_due(tx: &mut dyn Tx, t: &mut TaskRow, now: i64) -> Result<bool> {
    expire_with(tx, t, now, Vec::new())
}

/// [`expire_if_due`], with `extra` in the `lease_expired` event's detail (a batch item's
/// lineage and breaker, issue 28).
pub(crate) fn expire_with(
    tx: &mut dyn Tx,
    t: &mut TaskRow,
    now: i64,
    extra: Vec<(&'static str, OwnedValue)>,
) -> Result<bool> {
    let before = snapshot(t);
    if !before.lease_expired(now) {
        return Ok(false);
    }
    t.state = next(&before, Op::ExpireLease, now)?;
    // A lease is kept only while its claim holds (the sweeper's index covers just those).
    let lease = t.lease_until.take();
    t.updated_at = now;
    save(tx, t, &before)?;
    let mut ev = event(t, now, EventKind::LeaseExpired, LEDGER_ACTOR);
    ev.outcome = Some(State::Unknown.as_str().to_owned());
    let mut entries = vec![
        ("executor", crate::json::opt_s(t.executor.as_deref())),
        ("lease_until", crate::json::opt_n(lease)),
    ];
    entries.extend(extra);
    ev.detail = detail(entries);
    tx.append(ev);
    Ok(true)
}

/// The task as returned to callers (with its current approval record, which its row holds).
pub(crate) fn view(t: TaskRow) -> Result<Task> {
    view_parsed(t, Parsed::default())
}

/// Which of a task's stored texts the operation has itself parsed, or written from a value,
/// in this transaction: those need no second parse to prove that they still parse.
#[derive(Clone, Copy, Default)]
pub(crate) struct Parsed {
    pub action: bool,
    pub approval: bool,
    pub result: bool,
}

/// [`view`], checking only the texts the operation has not already parsed or written.
pub(crate) fn view_parsed(t: TaskRow, parsed: Parsed) -> Result<Task> {
    let task = Task::from_row(t)?;
    let texts = [
        (Some(&task.action), parsed.action),
        (task.proposed_action.as_ref(), false),
        (task.approval.as_ref(), parsed.approval),
        (task.result.as_ref(), parsed.result),
    ];
    for (j, k) in texts {
        if let (Some(j), false) = (j, k) {
            j.check()?;
        }
    }
    Ok(task)
}

/// A result that carries a task as the ledger returns it.
pub(crate) trait WithTask {
    fn task_mut(&mut self) -> &mut Task;
}

impl WithTask for Task {
    fn task_mut(&mut self) -> &mut Task {
        self
    }
}

impl WithTask for Amended {
    fn task_mut(&mut self) -> &mut Task {
        &mut self.task
    }
}

impl WithTask for Decided {
    fn task_mut(&mut self) -> &mut Task {
        &mut self.task
    }
}

impl WithTask for ClaimOutcome {
    fn task_mut(&mut self) -> &mut Task {
        match self {
            ClaimOutcome::Claimed(_, task)
            | ClaimOutcome::Drift { task, .. }
            | ClaimOutcome::Reapproval { task, .. }
            | ClaimOutcome::Rejected { task, .. } => task,
        }
    }
}

/// An operation's result with its task's quorum filled in, in the operation's transaction.
pub(crate) fn with_quorum<T: WithTask>(
    tx: &mut dyn Tx,
    contracts: &Contracts,
    done: Done<T>,
) -> Result<Done<T>> {
    match done {
        Done::Ok(mut v) => {
            fill_quorum(tx, contracts, v.task_mut())?;
            Ok(Done::Ok(v))
        }
        refused => Ok(refused),
    }
}

/// Fills in where the task's current round stands, unless the operation already did: only a
/// task whose kept contract has a quorum reads its round (every other task costs nothing).
pub(crate) fn fill_quorum(tx: &mut dyn Tx, contracts: &Contracts, task: &mut Task) -> Result<()> {
    let (None, Some(doc), Some(apr)) = (
        &task.quorum,
        task.kept_contract.as_deref(),
        task.approval_id.as_deref(),
    ) else {
        return Ok(());
    };
    let contract = contracts.load(&stored(doc)?)?;
    if contract.quorum().is_none() {
        return Ok(());
    }
    let rows = tx.round_decisions(apr)?;
    task.quorum = quorum::state_of(&contract, &rows)?;
    Ok(())
}
