//! The sequencer: the one writer of the Merkle log. In the transaction its engine gives it
//! (where no event can commit meanwhile, see `Sqlite::tree` and `Postgres::tree`), it gives
//! every event after the tree's last one the next leaf in event id order, stores the perfect
//! subtrees that completes, and signs and stores the checkpoint of the new tree.

use super::sign;
use super::sql::{Arg, Sql};
use super::stored::{self, int, Stored};
use super::Checkpoint;
use actionseal_core::tlog::merkle::{self, leaf_hash, Hash};
use actionseal_core::tlog::note::SignerKey;
use actionseal_core::Result;

/// How many rows one insert statement carries.
const CHUNK: usize = 500;

/// Inserts `rows` (each already SQL: integers and byte literals) into `table (columns)`.
fn insert(sql: &mut dyn Sql, table: &str, rows: &[String]) -> Result<()> {
    for chunk in rows.chunks(CHUNK) {
        sql.exec(
            &format!("INSERT INTO {table} VALUES {}", chunk.join(", ")),
            &[],
        )?;
    }
    Ok(())
}

/// Sequences the events not yet in the tree and returns the checkpoint of the tree they make;
/// the latest checkpoint when there are none.
pub(crate) fn sequence(sql: &mut dyn Sql, now: i64, signer: &SignerKey) -> Result<Checkpoint> {
    let (size, last) = stored::tip(sql)?;
    let new = sql.rows(
        "SELECT id, body FROM ledger_events WHERE id > $1 ORDER BY id",
        &[Arg::Int(last)],
    )?;
    if new.is_empty() {
        if let Some(c) = stored::latest(sql)?.filter(|c| c.size == size) {
            return Ok(c);
        }
    }
    let mut ids = Vec::with_capacity(new.len());
    let mut leaves: Vec<Hash> = Vec::with_capacity(new.len());
    for row in &new {
        let [id, body] = row.as_slice() else {
            return Err(crate::store::storage("Merkle log", "an event row"));
        };
        ids.push(id.int()?);
        leaves.push(leaf_hash(body.text()?.as_bytes()));
    }
    let made = merkle::append(&mut Stored(sql), size, &leaves)?;
    let mut rows = Vec::with_capacity(leaves.len());
    for (i, (id, hash)) in ids.iter().zip(&leaves).enumerate() {
        let leaf = int(size + i as u64)?;
        rows.push(format!("({leaf}, {id}, {})", sql.bytes_literal(hash)));
    }
    insert(sql, "ledger_leaves (leaf, event_id, hash)", &rows)?;
    let rows = made
        .iter()
        .filter(|(level, _, _)| *level >= 1)
        .map(|(level, idx, hash)| {
            Ok(format!(
                "({level}, {}, {})",
                int(*idx)?,
                sql.bytes_literal(hash)
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    insert(sql, "ledger_nodes (level, idx, hash)", &rows)?;
    let size = size + leaves.len() as u64;
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
