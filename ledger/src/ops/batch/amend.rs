//! amend a batch: the reviewer deselects items before deciding. The remainder is a new batch
//! document with a new digest (core's `deselect`, order kept), which the decision must name;
//! the model's proposed digest stays beside it. The deselected items stay as they are until
//! the batch is decided, when they end `rejected` (each with a `deselected` event). Under a
//! quorum, only before the round's first decision.

use super::{
    event, ids, ids_text, items_digest, lock, locked_items, rebuild, refuse, view, Server,
};
use crate::json::{canon, n, s};
use crate::model::Batch as BatchView;
use crate::store::{Done, Tx};
use actionseal_core::ledger::{next, EventKind, Op, Snapshot};
use actionseal_core::{Code, Digest, Error, Result, Value};

/// A reviewer's deselection, read before the transaction.
pub(crate) struct Deselection {
    pub batch_id: String,
    /// The batch digest the reviewer saw.
    pub amends: Digest,
    /// Positions in that batch's items, each once.
    pub deselect: Vec<u64>,
    pub reviewer: String,
    pub reason: String,
}

pub(crate) fn run(
    tx: &mut dyn Tx,
    now: i64,
    a: &Deselection,
    srv: &Server<'_>,
) -> Result<Done<BatchView>> {
    let (l, mut b) = lock(tx, &a.batch_id)?;
    let positions = Value::Array(
        a.deselect
            .iter()
            .map(|i| n(i64::try_from(*i).unwrap_or(i64::MAX)))
            .collect(),
    );
    let reason = Digest::of(a.reason.as_bytes()).to_string();
    let mut ev = event(
        &b,
        now,
        EventKind::BatchAmendRefused,
        &a.reviewer,
        vec![
            ("amends", s(&a.amends.to_string())),
            ("deselected", positions.clone()),
            ("reason_digest", s(&reason)),
        ],
    );
    let before = Snapshot {
        state: b.state,
        fence: 0,
        lease_until: None,
    };
    if let Err(e) = next(&before, Op::Amend, now) {
        return refuse(tx, ev, e);
    }
    if !a.amends.ct_eq(&b.digest) {
        let e = Error::new(
            Code::AmendConflict,
            format!(
                "the batch is now {}, not {}: review it again",
                b.digest, a.amends
            ),
        )
        .in_key("amends");
        return refuse(tx, ev, e);
    }
    let contract = srv.contract(&b)?;
    // Under a quorum the members decided this selection, under the batch's one approval id:
    // another would void their decisions, so the round must end first (a rejection).
    if contract.quorum().is_some() && !tx.round_decisions(&b.approval_id)?.is_empty() {
        let e = Error::new(
            Code::AmendConflict,
            "members of the batch's quorum already decided this selection: deselect before \
             the first decision, or reject the batch",
        )
        .in_key("amends");
        return refuse(tx, ev, e);
    }
    let items = locked_items(tx, &b)?;
    let remainder = match rebuild(&b, &contract, &items)?.deselect(&a.deselect) {
        Ok(r) => r,
        Err(e) => return refuse(tx, ev, e.in_key("deselect")),
    };
    let kept: Vec<String> = ids(&b.items)?
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !a.deselect.contains(&(*i as u64)))
        .map(|(_, id)| id)
        .collect();
    let amends = b.digest;
    b.digest = remainder.digest();
    b.header = canon(remainder.header_value());
    b.items = ids_text(&kept);
    b.amendments = crate::store::increment(b.amendments, "batch amendments")?;
    b.updated_at = now;
    tx.put_batch(&b)?;
    ev.kind = EventKind::BatchAmended;
    ev.action_digest = Some(b.digest);
    ev.detail = crate::json::obj(vec![
        ("batch_id", s(&b.id)),
        ("amends", s(&amends.to_string())),
        ("proposed_digest", s(&b.proposed_digest.to_string())),
        ("deselected", positions),
        ("items_digest", s(&items_digest(&kept).to_string())),
        ("reason_digest", s(&reason)),
    ]);
    tx.append(ev);
    let kept_rows: Vec<_> = items.into_iter().filter(|t| kept.contains(&t.id)).collect();
    Ok(Done::Ok(view(&b, &l, &kept_rows)?))
}
