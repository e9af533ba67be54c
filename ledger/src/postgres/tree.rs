//! The Merkle log's statements on PostgreSQL ([`Sql`]), and the transactions it runs in: the
//! sequencer in a `READ COMMITTED` transaction that first locks the events table against
//! writers (see [`Postgres::tree`]), the proofs and verification in a `REPEATABLE READ READ
//! ONLY` snapshot.

use super::{pg_error, Postgres};
use crate::tree::sql::{hex, Access, Arg, Cell, Sql};
use actionseal_core::Result;
use postgres::types::{ToSql, Type};
use postgres::{IsolationLevel, Transaction};

/// A transaction on one connection, and the ledger's cutoff.
struct Tree<'c, 't>(&'t mut Transaction<'c>, i64);

fn params<'a>(args: &'a [Arg<'_>]) -> Vec<&'a (dyn ToSql + Sync)> {
    args.iter()
        .map(|a| -> &(dyn ToSql + Sync) {
            match a {
                Arg::Int(n) => n,
                Arg::Bytes(b) => b,
                Arg::Text(s) => s,
            }
        })
        .collect()
}

fn cell(r: &postgres::Row, i: usize) -> std::result::Result<Cell, postgres::Error> {
    let t = r.columns().get(i).map(|c| c.type_().clone());
    Ok(match t {
        Some(Type::INT8) => r
            .try_get::<_, Option<i64>>(i)?
            .map_or(Cell::Null, Cell::Int),
        Some(Type::INT4) => r
            .try_get::<_, Option<i32>>(i)?
            .map_or(Cell::Null, |n| Cell::Int(n.into())),
        Some(Type::BYTEA) => r
            .try_get::<_, Option<Vec<u8>>>(i)?
            .map_or(Cell::Null, Cell::Bytes),
        _ => r
            .try_get::<_, Option<String>>(i)?
            .map_or(Cell::Null, Cell::Text),
    })
}

impl Sql for Tree<'_, '_> {
    fn rows(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<Vec<Cell>>> {
        let rows = self
            .0
            .query(sql, &params(args))
            .map_err(|e| pg_error("Merkle log", &e))?;
        rows.iter()
            .map(|r| (0..r.len()).map(|i| cell(r, i)).collect())
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| pg_error("Merkle log", &e))
    }

    fn exec(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<()> {
        self.0
            .execute(sql, &params(args))
            .map(|_| ())
            .map_err(|e| pg_error("Merkle log", &e))
    }

    fn bytes_literal(&self, b: &[u8]) -> String {
        format!("'\\x{}'::bytea", hex(b))
    }

    fn cutoff(&self) -> i64 {
        self.1
    }
}

impl Postgres {
    /// Runs `f` on the Merkle log, committed when it succeeds: in a read-only snapshot, as the
    /// sequencer, or as a plain `READ COMMITTED` write (cosignatures) that writers need not
    /// wait for.
    ///
    /// The sequencer gives every event after the last one in the tree the next leaf, in id
    /// order. Ids come from a sequence when each event is inserted, so they commit out of
    /// order: without a lock, an event with a lower id could commit after the sequencer read
    /// the events, and never become a leaf (the race test in tests/checkpoint.rs finds that).
    /// An id is taken by `nextval` inside the statement that inserts the event (`last.rs`),
    /// which holds `ROW EXCLUSIVE` on the table from its start. `SHARE ROW EXCLUSIVE`
    /// conflicts with that lock and with itself: taking it waits for every transaction that
    /// inserted events to end, keeps new inserts (and so new ids) out until the sequencer
    /// commits, and keeps a second sequencer out, so that in `READ COMMITTED` every statement
    /// after it sees every event that will ever have a lower id. Writers wait for as long as
    /// the sequencer runs, which is why it is a separate, short call.
    pub(crate) fn tree<T>(
        &self,
        access: Access,
        f: impl FnOnce(&mut dyn Sql) -> Result<T>,
    ) -> Result<T> {
        let mut conn = self.take()?;
        let out = (|| {
            let mut tx = if access != Access::Read {
                let mut tx = conn
                    .client
                    .transaction()
                    .map_err(|e| pg_error("begin", &e))?;
                if access == Access::Sequence {
                    tx.batch_execute("LOCK TABLE ledger_events IN SHARE ROW EXCLUSIVE MODE")
                        .map_err(|e| pg_error("lock events", &e))?;
                }
                tx
            } else {
                conn.client
                    .build_transaction()
                    .isolation_level(IsolationLevel::RepeatableRead)
                    .read_only(true)
                    .start()
                    .map_err(|e| pg_error("begin", &e))?
            };
            let out = f(&mut Tree(&mut tx, self.schema.cutoff))?;
            tx.commit().map_err(|e| pg_error("commit", &e))?;
            Ok(out)
        })();
        self.give_back(conn);
        out
    }
}
