//! What the Merkle log's tables hold, read: the perfect subtrees as a [`Nodes`], the tree's
//! tip, the checkpoints, and the leaf of an event.

use super::sql::{Arg, Cell, Sql};
use super::{Checkpoint, EventRef};
use crate::store::{history_sql, storage};
use actionseal_core::tlog::merkle::{Hash, Nodes};
use actionseal_core::{Code, Error, Result};

/// A stored count or index as the integer SQL takes.
pub(crate) fn int(n: u64) -> Result<i64> {
    i64::try_from(n).map_err(|_| storage("Merkle log", format!("{n} is out of range")))
}

/// The first cell of the first row, which every query here answers.
fn first(rows: &[Vec<Cell>]) -> Option<&Cell> {
    rows.first().and_then(|r| r.first())
}

/// The stored perfect subtrees: the leaves' hashes (level 0) and `ledger_nodes` above them.
pub(crate) struct Stored<'a>(pub(crate) &'a mut dyn Sql);

impl Nodes for Stored<'_> {
    fn node(&mut self, level: u32, index: u64) -> Result<Hash> {
        let i = int(index)?;
        let rows = if level == 0 {
            self.0.rows(
                "SELECT hash FROM ledger_leaves WHERE leaf = $1",
                &[Arg::Int(i)],
            )?
        } else {
            self.0.rows(
                "SELECT hash FROM ledger_nodes WHERE level = $1 AND idx = $2",
                &[Arg::Int(level.into()), Arg::Int(i)],
            )?
        };
        match first(&rows) {
            Some(c) => c.hash(),
            None => Err(storage(
                "Merkle log",
                format!("the node at level {level}, index {index} is missing"),
            )),
        }
    }
}

/// How many leaves the tree holds, and the id of the last event among them (0 for none).
pub(crate) fn tip(sql: &mut dyn Sql) -> Result<(u64, i64)> {
    let rows = sql.rows(
        "SELECT coalesce(max(leaf) + 1, 0), coalesce(max(event_id), 0) FROM ledger_leaves",
        &[],
    )?;
    match rows.first().map(Vec::as_slice) {
        Some([size, last]) => Ok((size.count()?, last.int()?)),
        _ => Err(storage("Merkle log", "no tip")),
    }
}

const CHECKPOINT_COLUMNS: &str = "size, root, note, at, timestamp";

fn checkpoint_from(sql: &mut dyn Sql, row: &[Cell]) -> Result<Checkpoint> {
    let [size, root, note, at, timestamp] = row else {
        return Err(storage("Merkle log", "a checkpoint row"));
    };
    let size = size.count()?;
    let cosignatures = sql
        .rows(
            "SELECT line FROM ledger_cosignatures WHERE size = $1 ORDER BY at, witness",
            &[Arg::Int(int(size)?)],
        )?
        .iter()
        .filter_map(|r| r.first())
        .map(|c| c.text().map(str::to_owned))
        .collect::<Result<_>>()?;
    Ok(Checkpoint {
        size,
        root: root.hash()?,
        note: note.text()?.to_owned(),
        at: at.int()?,
        timestamp: timestamp.opt_bytes()?.map(<[u8]>::to_vec),
        cosignatures,
    })
}

/// The latest checkpoint (the largest), if any.
pub(crate) fn latest(sql: &mut dyn Sql) -> Result<Option<Checkpoint>> {
    let rows = sql.rows(
        &format!("SELECT {CHECKPOINT_COLUMNS} FROM ledger_checkpoints ORDER BY size DESC LIMIT 1"),
        &[],
    )?;
    rows.first().map(|r| checkpoint_from(sql, r)).transpose()
}

/// The checkpoint of `size` leaves; [`Code::InvalidRequest`] when there is none.
pub(crate) fn at(sql: &mut dyn Sql, size: u64) -> Result<Checkpoint> {
    let rows = sql.rows(
        &format!("SELECT {CHECKPOINT_COLUMNS} FROM ledger_checkpoints WHERE size = $1"),
        &[Arg::Int(int(size)?)],
    )?;
    match rows.first() {
        Some(r) => checkpoint_from(sql, r),
        None => Err(Error::new(
            Code::InvalidRequest,
            format!("the ledger has no checkpoint of {size} leaves"),
        )),
    }
}

/// Every checkpoint, oldest first.
pub(crate) fn all(sql: &mut dyn Sql) -> Result<Vec<Checkpoint>> {
    let rows = sql.rows(
        &format!("SELECT {CHECKPOINT_COLUMNS} FROM ledger_checkpoints ORDER BY size"),
        &[],
    )?;
    rows.iter().map(|r| checkpoint_from(sql, r)).collect()
}

/// The leaf of an event, its id and its canonical text; [`Code::InclusionProofInvalid`]
/// when there is no such event or it is not a leaf yet.
pub(crate) fn leaf_of(sql: &mut dyn Sql, event: EventRef) -> Result<(u64, i64, String)> {
    const SELECT: &str = "SELECT l.leaf, e.id, e.body FROM ledger_events e \
                          JOIN ledger_leaves l ON l.event_id = e.id";
    let rows = match event {
        EventRef::Id(id) => sql.rows(&format!("{SELECT} WHERE e.id = $1"), &[Arg::Int(id)])?,
        EventRef::Seq { chain, seq } => sql.rows(
            &format!("{SELECT} WHERE e.chain = $1 AND e.seq = $2"),
            &[Arg::Int(chain), Arg::Int(seq)],
        )?,
    };
    match rows.first().map(Vec::as_slice) {
        Some([leaf, id, body]) => Ok((leaf.count()?, id.int()?, body.text()?.to_owned())),
        _ => Err(Error::new(
            Code::InclusionProofInvalid,
            format!(
                "{event} is not in the Merkle log: no such event, or it was written after the \
                 last checkpoint (make one with checkpoint, then ask again)"
            ),
        )),
    }
}

/// A task's events, in order, read through its links (events are not indexed by task): each
/// one's id, canonical text and leaf, `None` when it is not sequenced yet;
/// [`Code::TaskNotFound`] when it has none.
pub(crate) fn task_events(
    sql: &mut dyn Sql,
    task: &str,
) -> Result<Vec<(i64, String, Option<u64>)>> {
    let history = history_sql(sql.cutoff(), "$1");
    let rows = sql.rows(
        &format!(
            "SELECT h.id, h.task, h.body, l.leaf FROM ({history}) h \
             LEFT JOIN ledger_leaves l ON l.event_id = h.id ORDER BY h.id"
        ),
        &[Arg::Text(task)],
    )?;
    let events = rows
        .iter()
        .map(|r| match r.as_slice() {
            [id, about, body, leaf] if about.opt_text()? == Some(task) => {
                let leaf = match leaf {
                    Cell::Null => None,
                    leaf => Some(leaf.count()?),
                };
                Ok((id.int()?, body.text()?.to_owned(), leaf))
            }
            _ => Err(storage(
                "task history",
                format!("the events of {task:?} link to another task's"),
            )),
        })
        .collect::<Result<Vec<_>>>()?;
    if events.is_empty() {
        return Err(Error::new(Code::TaskNotFound, format!("no task {task:?}")));
    }
    Ok(events)
}
