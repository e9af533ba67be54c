//! The sequencer: the one writer of the Merkle log. It gives every event after the tree's
//! last one the next leaf in event id order, stores the perfect subtrees that completes, and
//! signs and stores the checkpoint of the new tree.
//!
//! It runs in two steps so that writers wait for as little of it as possible:
//! - [`plan`], in a read snapshot while events commit: read the events up to a settled id
//!   (one below which no event can still commit, see `Ledger::settled`), hash their leaves
//!   and the subtrees they complete;
//! - [`write`], in the engine's sequencer transaction (one sequencer at a time): insert the
//!   rows, and sign the new root. When another sequencer grew the tree after the plan read
//!   it, the plan is made again there, under the lock: it then holds only what the other
//!   left out, and no sequencer retries or starves another.

use super::sign;
use super::sql::{Arg, Row, Sql};
use super::stored::{self, int, Stored};
use super::Checkpoint;
use actionseal_core::tlog::merkle::{self, leaf_hash, Hash};
use actionseal_core::tlog::note::SignerKey;
use actionseal_core::Result;

/// What the events written since the tree's tip add to it.
pub(crate) struct Plan {
    /// The tree's size and last event id when planned.
    tip: (u64, i64),
    /// Each new leaf's event id, in leaf order.
    ids: Vec<i64>,
    /// Each new leaf's hash.
    leaves: Vec<Hash>,
    /// The perfect subtrees above the leaves (level >= 1) they complete.
    nodes: Vec<(u32, u64, Hash)>,
}

/// Plans the leaves of the events after the tree's tip with ids at most `settled`.
pub(crate) fn plan(sql: &mut dyn Sql, settled: i64) -> Result<Plan> {
    let tip = stored::tip(sql)?;
    let rows = sql.rows(
        "SELECT id, body FROM ledger_events WHERE id > $1 AND id <= $2 ORDER BY id",
        &[Arg::Int(tip.1), Arg::Int(settled)],
    )?;
    let mut ids = Vec::with_capacity(rows.len());
    let mut leaves = Vec::with_capacity(rows.len());
    for row in &rows {
        let [id, body] = row.as_slice() else {
            return Err(crate::store::storage("Merkle log", "an event row"));
        };
        ids.push(id.int()?);
        leaves.push(leaf_hash(body.text()?.as_bytes()));
    }
    let mut nodes = merkle::append(&mut Stored(sql), tip.0, &leaves)?;
    nodes.retain(|(level, _, _)| *level >= 1);
    Ok(Plan {
        tip,
        ids,
        leaves,
        nodes,
    })
}

/// Writes `plan` (of the events up to `settled`) and the checkpoint of the tree it makes,
/// made at `now` and signed with `signer`: the latest checkpoint when the plan adds nothing
/// and one exists.
pub(crate) fn write(
    sql: &mut dyn Sql,
    plan: Plan,
    settled: i64,
    now: i64,
    signer: &SignerKey,
) -> Result<Checkpoint> {
    let plan = match stored::tip(sql)? == plan.tip {
        true => plan,
        false => self::plan(sql, settled)?,
    };
    let (size, _) = plan.tip;
    if plan.leaves.is_empty() {
        if let Some(c) = stored::latest(sql)?.filter(|c| c.size == size) {
            return Ok(c);
        }
    }
    let leaves = plan
        .ids
        .iter()
        .zip(&plan.leaves)
        .enumerate()
        .map(|(i, (id, hash))| Ok((int(size + i as u64)?, *id, &hash[..])))
        .collect::<Result<Vec<Row<'_>>>>()?;
    sql.insert("ledger_leaves (leaf, event_id, hash)", &leaves)?;
    let nodes = plan
        .nodes
        .iter()
        .map(|(level, idx, hash)| Ok((i64::from(*level), int(*idx)?, &hash[..])))
        .collect::<Result<Vec<Row<'_>>>>()?;
    sql.insert("ledger_nodes (level, idx, hash)", &nodes)?;
    let size = size + plan.leaves.len() as u64;
    let root = merkle::root_at(&mut Stored(sql), size)?;
    let note = sign::sign(signer, size, &root)?;
    sql.exec(
        "INSERT INTO ledger_checkpoints (size, root, note, at) VALUES ($1, $2, $3, $4)",
        &[
            Arg::Int(int(size)?),
            Arg::Bytes(&root),
            Arg::Text(&note),
            Arg::Int(now),
        ],
    )?;
    Ok(Checkpoint {
        size,
        root,
        note,
        at: now,
        timestamp: None,
        cosignatures: Vec::new(),
    })
}
