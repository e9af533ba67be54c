//! propose a batch: each item becomes a task (its own identity, idempotency key and state
//! machine), awaiting the batch's one decision; the batch row freezes core's batch document,
//! and a new lineage starts with empty totals and a closed breaker.

use super::{event, ids_text, items_digest, locked_items, text_digest, view};
use crate::json::{canon, n, s};
use crate::model::Batch as BatchView;
use crate::ops::propose::{self, Proposal};
use crate::store::{BatchRow, Done, ItemRow, LineageRow, Lock, Tx};
use actionseal_core::batch::{Batch, Breaker, Totals};
use actionseal_core::ledger::{approval_id, task_id, EventKind, State};
use actionseal_core::{Code, Error, Result};

/// A batch proposal, read and built by core before the transaction.
pub(crate) struct BatchProposal {
    pub id: String,
    pub batch: Batch,
    /// Each item's proposal (approval required, naming the batch), in the batch's order.
    pub items: Vec<Proposal>,
    pub tenant: String,
    pub proposer: String,
}

pub(crate) fn run(tx: &mut dyn Tx, now: i64, p: &BatchProposal) -> Result<Done<BatchView>> {
    if let Some(b) = tx.batch(&p.id, Lock::None)? {
        // The same batch again (the model retrying): the same batch, as it is now.
        let (l, b) = super::lock(tx, &b.id)?;
        let items = locked_items(tx, &b)?;
        tx.append(event(
            &b,
            now,
            EventKind::BatchProposeDuplicate,
            &p.proposer,
            vec![],
        ));
        return Ok(Done::Ok(view(&b, &l, &items)?));
    }
    let mut ids = Vec::with_capacity(p.items.len());
    for (i, item) in p.items.iter().enumerate() {
        let a = &item.action;
        let id = task_id(a.field("tenant"), a.field("job_id"), a.field("request_id"));
        if tx.proposed_task(&id)?.is_some() {
            // A task proposed on its own (or in another batch) is decided on its own.
            return Err(Error::new(
                Code::InvalidBatch,
                format!("item {i} is task {id}, which was proposed already"),
            )
            .in_key(&i.to_string())
            .in_key("actions"));
        }
        ids.push(id);
    }
    let mut tasks = Vec::with_capacity(ids.len());
    for (i, (item, id)) in p.items.iter().zip(&ids).enumerate() {
        let Done::Ok(task) = propose::run(tx, now, item)? else {
            return Err(crate::store::storage(
                "batch item",
                "a new item was refused",
            ));
        };
        tasks.push(task);
        tx.put_item(&ItemRow {
            task_id: id.clone(),
            lineage: p.id.clone(),
            idx: i64::try_from(i).unwrap_or(i64::MAX),
            batch: None,
            proof: None,
        })?;
    }
    let header = canon(p.batch.header_value());
    let b = BatchRow {
        id: p.id.clone(),
        lineage: p.id.clone(),
        tenant: p.tenant.clone(),
        semantics: p.batch.header().semantics.as_str().to_owned(),
        header,
        digest: p.batch.digest(),
        proposed_digest: p.batch.digest(),
        items: ids_text(&ids),
        proposed_items: ids_text(&ids),
        amendments: 0,
        state: State::AwaitingApproval,
        approval_id: approval_id(&p.id, 1),
        decision_id: None,
        record: None,
        proof: None,
        contract: canon(p.items[0].contract.document()),
        proposer: p.proposer.clone(),
        created_at: now,
        updated_at: now,
    };
    let l = LineageRow {
        id: p.id.clone(),
        current: p.id.clone(),
        generation: 1,
        totals: canon(&Totals::default().to_value()),
        breaker: canon(&Breaker::default().to_value()),
        updated_at: now,
    };
    tx.put_batch(&b)?;
    tx.put_lineage(&l)?;
    tx.append(proposed_event(&b, &l, now, &ids, None));
    let items: Vec<_> = tasks.into_iter().map(|t| (t.id, t.state)).collect();
    let mut v = BatchView::from_rows(&b, &l, &[])?;
    v.items = items;
    Ok(Done::Ok(v))
}

/// The `batch_proposed` event of `b`, the `generation`-th batch of lineage `l`, over the
/// tasks `ids`; `remainder_of` the batch whose tripped remainder it is.
pub(crate) fn proposed_event(
    b: &BatchRow,
    l: &LineageRow,
    now: i64,
    ids: &[String],
    remainder_of: Option<&str>,
) -> actionseal_core::ledger::Event {
    event(
        b,
        now,
        EventKind::BatchProposed,
        &b.proposer,
        vec![
            ("lineage", s(&l.id)),
            ("generation", n(l.generation)),
            ("semantics", s(&b.semantics)),
            ("size", n(i64::try_from(ids.len()).unwrap_or(i64::MAX))),
            // The contract's fingerprint: its canonical text's digest.
            ("contract", text_digest(&b.contract)),
            ("approval_id", s(&b.approval_id)),
            ("items_digest", s(&items_digest(ids).to_string())),
            ("totals_digest", text_digest(&l.totals)),
            ("breaker_digest", text_digest(&l.breaker)),
            ("remainder_of", crate::json::opt_s(remainder_of)),
        ],
    )
}
