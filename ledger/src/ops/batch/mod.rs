//! Batches (issue 28): a list of actions, each its own task, that one decision covers.
//!
//! Every operation on a batch locks, in this order, its lineage (the caps' totals and the
//! breaker a batch shares with its re-approved remainders), then the batch, then its items in
//! the batch's order; the plain task operations refuse a batch's items (they would skip the
//! caps and the breaker), and a single task is never locked before a lineage, so no two
//! transactions wait for each other. Batch events are about the batch (chain 0, no task);
//! each item keeps its own events, which name the batch.

pub(crate) mod amend;
pub(crate) mod claim;
pub(crate) mod decide;
pub(crate) mod outcome;
pub(crate) mod propose;
pub(crate) mod revoke;

use crate::contracts::Contracts;
use crate::json::{canon, obj, s, stored};
use crate::model::Batch as BatchView;
use crate::store::{storage, BatchRow, LineageRow, Lock, TaskRow, Tx};
use actionseal_core::batch::{policy_of, Batch, Policy, Semantics};
use actionseal_core::ledger::{chain_of, Event, EventKind};
use actionseal_core::{Code, Contract, Digest, Duty, Error, OwnedValue, Result, Value};

/// Whether `t` is a batch's item, whose claims and outcomes go through the batch operations:
/// its record is a batch decision's (an item awaiting its batch's decision has none, and no
/// plain operation applies to it).
pub(crate) fn is_item(t: &TaskRow) -> Result<bool> {
    let Some(record) = t.approval.as_deref() else {
        return Ok(false);
    };
    Ok(stored(record)?
        .as_object()
        .is_some_and(|o| o.get("batch_digest").is_some()))
}

/// The refusal of a plain task operation on a batch's item.
pub(crate) fn item_only(op: &str) -> Error {
    let instead = match op {
        "amend" => "deselect it from its batch (amend_batch) instead".to_owned(),
        _ => format!("{op} it with {op}_item, which holds it to the batch's caps and breaker"),
    };
    Error::new(
        Code::BatchItem,
        format!("the task is an item of a batch: {instead}"),
    )
}

/// Whether a contract's approval can be given to a batch by this ledger: not with a
/// separation of duties that excludes the amender (a batch's deselecting reviewer is kept in
/// its events only). A quorum counts each member's decision of the batch as a task's.
pub(crate) fn check_decidable(contract: &Contract) -> Result<()> {
    if contract.separation().contains(&Duty::Amender) {
        return Err(amender_not_allowed().in_key("contract"));
    }
    Ok(())
}

/// The refusal of a batch under a contract that separates the amender.
pub(crate) fn amender_not_allowed() -> Error {
    Error::new(
        Code::BatchNotAllowed,
        "the contract's separation of duties excludes the amender, whom this ledger does not \
         record for a batch's deselection: decide its calls one at a time",
    )
}

fn not_found(what: &str) -> Error {
    Error::new(Code::BatchNotFound, format!("no batch {what}"))
}

/// A batch, locked (its lineage must be locked already).
pub(crate) fn locked_batch(tx: &mut dyn Tx, id: &str) -> Result<BatchRow> {
    tx.batch(id, Lock::Row)?
        .ok_or_else(|| not_found(&format!("{id:?}")))
}

/// A batch's lineage, then the batch, locked in that order.
pub(crate) fn lock(tx: &mut dyn Tx, id: &str) -> Result<(LineageRow, BatchRow)> {
    let b = tx
        .batch(id, Lock::None)?
        .ok_or_else(|| not_found(&format!("{id:?}")))?;
    let l = locked_lineage(tx, &b.lineage)?;
    Ok((l, locked_batch(tx, id)?))
}

/// The batch a decision's approval id names, and its lineage, locked in that order.
pub(crate) fn lock_by_approval(
    tx: &mut dyn Tx,
    approval_id: &str,
) -> Result<(LineageRow, BatchRow)> {
    let missing = || not_found(&format!("awaits approval {approval_id:?}")).in_key("approval_id");
    let b = tx
        .batch_of_approval(approval_id, Lock::None)?
        .ok_or_else(missing)?;
    let l = locked_lineage(tx, &b.lineage)?;
    let b = tx
        .batch_of_approval(approval_id, Lock::Row)?
        .ok_or_else(missing)?;
    Ok((l, b))
}

/// A lineage, locked (the ledger wrote it with its first batch).
pub(crate) fn locked_lineage(tx: &mut dyn Tx, id: &str) -> Result<LineageRow> {
    tx.lineage(id)?
        .ok_or_else(|| storage("batch lineage", format!("{id:?} is missing")))
}

/// An event about batch `b` as it is now, by `actor`: its detail names the batch first.
pub(crate) fn event(
    b: &BatchRow,
    now: i64,
    kind: EventKind,
    actor: &str,
    mut entries: Vec<(&'static str, OwnedValue)>,
) -> Event {
    entries.insert(0, ("batch_id", s(&b.id)));
    Event {
        chain: chain_of(None),
        seq: 0,
        at: now,
        tenant: b.tenant.clone(),
        task: None,
        kind,
        actor: actor.to_owned(),
        action_digest: Some(b.digest),
        approved_digest: None,
        decision_id: None,
        fence: None,
        outcome: None,
        reasons: Vec::new(),
        drift: Vec::new(),
        state: Some(b.state),
        detail: obj(entries),
        prev: None,
    }
}

/// Records a refusal about a batch and ends the operation with it.
pub(crate) fn refuse<T>(tx: &mut dyn Tx, mut ev: Event, e: Error) -> Result<crate::store::Done<T>> {
    ev.outcome = Some(e.code().as_str().to_owned());
    tx.append(ev);
    Ok(crate::store::Done::Refused(e))
}

/// The task ids a batch row lists (canonical JSON array).
pub(crate) fn ids(text: &str) -> Result<Vec<String>> {
    crate::json::strings(text)
}

/// Task ids as a batch row lists them.
pub(crate) fn ids_text(ids: &[String]) -> String {
    canon(&Value::Array(ids.iter().map(|i| s(i)).collect()))
}

/// The digest of a batch row's items, as its events carry it.
pub(crate) fn items_digest(ids: &[String]) -> Digest {
    Digest::of(ids_text(ids).as_bytes())
}

/// The digest of a stored text (a lineage's totals or breaker), as events carry it.
pub(crate) fn text_digest(text: &str) -> OwnedValue {
    s(&Digest::of(text.as_bytes()).to_string())
}

/// A batch's semantics as stored.
pub(crate) fn semantics(b: &BatchRow) -> Result<Semantics> {
    Semantics::parse(&b.semantics).map_err(|_| storage("batch", "unknown semantics"))
}

/// What the batch operations read besides the database: the contracts, and the server's
/// batch policy (from its configuration), which narrows every contract's.
#[derive(Clone, Copy)]
pub(crate) struct Server<'a> {
    pub contracts: &'a Contracts,
    pub policy: Option<&'a Policy>,
}

impl Server<'_> {
    /// A batch's contract as stored (canonical).
    pub(crate) fn contract(&self, b: &BatchRow) -> Result<Contract> {
        self.contracts.load_canonical(&b.contract)
    }

    /// The batch policy in force for `b`: its contract's, narrowed by the server's.
    pub(crate) fn policy(&self, b: &BatchRow) -> Result<Policy> {
        policy_of(&self.contract(b)?, self.policy)
    }
}

/// The batch `b` is, built again by core from its items' frozen actions (the tasks `items`,
/// locked, in the batch's order): the same digest, or the stored batch was changed.
pub(crate) fn rebuild(b: &BatchRow, contract: &Contract, items: &[TaskRow]) -> Result<Batch> {
    let actions = items
        .iter()
        .map(|t| stored(&t.action).map(Value::into_owned))
        .collect::<Result<Vec<_>>>()?;
    // Without the server's policy: a stored batch passed it when it was proposed, and its
    // digest does not depend on it.
    let batch = Batch::build(contract, semantics(b)?, &actions, None)?;
    if !batch.digest().ct_eq(&b.digest) {
        return Err(storage(
            "batch",
            format!("{} no longer has its items' digest", b.id),
        ));
    }
    Ok(batch)
}

/// The items of `b`, locked, in its order.
pub(crate) fn locked_items(tx: &mut dyn Tx, b: &BatchRow) -> Result<Vec<TaskRow>> {
    ids(&b.items)?
        .iter()
        .map(|id| super::locked_task(tx, id))
        .collect()
}

/// A batch as returned to callers, with its lineage's totals and breaker and each item's
/// state.
pub(crate) fn view(b: &BatchRow, l: &LineageRow, items: &[TaskRow]) -> Result<BatchView> {
    BatchView::from_rows(b, l, items)
}
