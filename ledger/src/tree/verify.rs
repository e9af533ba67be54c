//! Verifying the database against a checkpoint kept elsewhere. Every leaf hash is computed
//! again from its event's canonical text, in leaf order, and never read from the stored ones:
//! a database whose events were truncated, edited and sealed again, rewound, or taken out of
//! the leaf order cannot give the checkpoint's root at its size. The database's own latest
//! checkpoint must then be its events' root too, and consistent with the given one through
//! the stored nodes, which the proofs it serves are read from.

use super::sql::{Arg, Sql};
use super::stored::{self, Stored};
use super::CheckpointVerified;
use actionseal_core::tlog::merkle::{self, leaf_hash, Hash, MemoryTree};
use actionseal_core::{Code, Error, Result};

fn broken(message: String) -> Error {
    Error::new(Code::AuditChainBroken, message)
}

/// Checks the database against the checkpoint of `size` leaves with `root`, and against the
/// database's own latest checkpoint; `signed` holds whether a stored note is signed by a
/// trusted key.
pub(crate) fn verify(
    sql: &mut dyn Sql,
    size: u64,
    root: &Hash,
    signed: impl Fn(&str) -> Result<(u64, Hash)>,
) -> Result<CheckpointVerified> {
    let rows = sql.rows(
        "SELECT l.leaf, l.event_id, e.body FROM ledger_leaves l \
         LEFT JOIN ledger_events e ON e.id = l.event_id ORDER BY l.leaf",
        &[],
    )?;
    let mut tree = MemoryTree::new();
    let mut last = 0;
    for row in &rows {
        let [leaf, id, body] = row.as_slice() else {
            return Err(crate::store::storage("Merkle log", "a leaf row"));
        };
        let (leaf, id) = (leaf.count()?, id.int()?);
        let at = tree.size();
        let index = usize::try_from(at).unwrap_or(usize::MAX);
        if leaf != at {
            return Err(broken(format!(
                "the leaves skip from {at} to {leaf}: leaves were removed from the log"
            ))
            .in_index(index));
        }
        if id <= last {
            return Err(broken(format!(
                "leaf {leaf} holds event {id}, which does not follow event {last}: the leaves \
                 are out of event order"
            ))
            .in_index(index));
        }
        let Some(body) = body.opt_text()? else {
            return Err(broken(format!(
                "leaf {leaf}'s event {id} is gone: the audit was truncated or an event deleted"
            ))
            .in_index(index));
        };
        tree.push(leaf_hash(body.as_bytes()));
        last = id;
    }
    let events = sql.rows(
        "SELECT count(*) FROM ledger_events WHERE id <= $1",
        &[Arg::Int(last)],
    )?;
    let events = events
        .first()
        .and_then(|r| r.first())
        .map(|c| c.count())
        .transpose()?
        .unwrap_or_default();
    if events != tree.size() {
        return Err(broken(format!(
            "{} of the events up to the last leaf's are not leaves: events were taken out of \
             the leaf order",
            events.abs_diff(tree.size())
        )));
    }
    if tree.size() < size {
        return Err(broken(format!(
            "the log holds {} leaves, fewer than the checkpoint's {size}: the audit was \
             truncated or rewound",
            tree.size()
        )));
    }
    if merkle::root_at(&mut tree, size)? != *root {
        return Err(broken(format!(
            "the events' root at {size} leaves is not the checkpoint's: an event among them \
             was changed, removed, reordered or rewound"
        )));
    }
    let latest = stored::latest(sql)?;
    let Some(latest) = latest.filter(|l| l.size >= size) else {
        return Err(broken(format!(
            "the database keeps no checkpoint of {size} leaves or more: its checkpoints were \
             rewound"
        )));
    };
    if signed(&latest.note)? != (latest.size, latest.root) {
        return Err(broken(format!(
            "the database's latest checkpoint ({} leaves) is not the one its note signs",
            latest.size
        )));
    }
    if latest.size > tree.size() || merkle::root_at(&mut tree, latest.size)? != latest.root {
        return Err(broken(format!(
            "the database's latest checkpoint ({} leaves) is not its events' root",
            latest.size
        )));
    }
    let proof = merkle::consistency_proof(&mut Stored(sql), size, latest.size)?;
    merkle::verify_consistency(size, latest.size, &proof, root, &latest.root)?;
    Ok(CheckpointVerified {
        size,
        leaves: tree.size(),
        latest: latest.size,
    })
}
