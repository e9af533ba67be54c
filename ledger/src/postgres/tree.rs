//! The Merkle log's statements on PostgreSQL ([`Sql`]), and the transactions it runs in: the
//! settled event id by waiting for the writers in flight (see [`Postgres::settled`]), the
//! sequencer's writes in a `READ COMMITTED` transaction that
//! locks the tree, the proofs, verification and the sequencer's plan in a `REPEATABLE READ
//! READ ONLY` snapshot.

use super::{pg_error, Postgres};
use crate::tree::sql::{hex, Access, Arg, Cell, Row, Sql};
use actionseal_core::Result;
use postgres::types::{ToSql, Type};
use postgres::{IsolationLevel, Transaction};
use std::time::Duration;

/// How many rows one insert statement carries.
const CHUNK: usize = 500;

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

    fn insert(&mut self, into: &str, rows: &[Row<'_>]) -> Result<()> {
        // Many rows a statement, as literals: one round trip for each CHUNK rows.
        for chunk in rows.chunks(CHUNK) {
            let values: Vec<String> = chunk
                .iter()
                .map(|(a, b, hash)| format!("({a}, {b}, '\\x{}'::bytea)", hex(hash)))
                .collect();
            self.exec(
                &format!("INSERT INTO {into} VALUES {}", values.join(", ")),
                &[],
            )?;
        }
        Ok(())
    }

    fn cutoff(&self) -> i64 {
        self.1
    }
}

/// The longest pause between two looks at the writers in flight (doubling from 1 ms): a few
/// writers' transactions.
const SETTLE_PAUSE: Duration = Duration::from_millis(50);

impl Postgres {
    /// The largest event id below which no event can still commit (`Ledger::settled`),
    /// without a lock that writers wait for.
    ///
    /// Ids come from a sequence when each event is inserted, so they commit out of order:
    /// reading the events after the tree's tip, the sequencer could miss one with a lower id
    /// that commits later, which would then never become a leaf (the race test in
    /// tests/checkpoint.rs finds that). An id is taken by `nextval` inside the statement that
    /// inserts the event (`last.rs`), which holds `ROW EXCLUSIVE` on the table from its start
    /// to its transaction's end, and ids given later are larger (the sequence's cache is 1).
    /// So once every transaction that held that lock when the largest committed id was read
    /// has ended, no id up to it can still commit: they are listed from `pg_locks` (which
    /// shows fast-path locks too) and waited for, as PostgreSQL's own `CREATE INDEX
    /// CONCURRENTLY` waits for lockers. (Locking the table against them instead can close a
    /// cycle with a writer that holds a row one of them waits for, and is queued behind the
    /// lock: only the deadlock check, after a second, ends it, and every writer waits.)
    pub(crate) fn settled(&self) -> Result<i64> {
        let mut conn = self.take()?;
        let out = (|| {
            let c = &mut conn.client;
            let max: i64 = c
                .query_one("SELECT coalesce(max(id), 0)::int8 FROM ledger_events", &[])
                .and_then(|r| r.try_get(0))
                .map_err(|e| pg_error("settled event id", &e))?;
            let lockers: Vec<String> = c
                .query(
                    "SELECT virtualtransaction FROM pg_locks WHERE locktype = 'relation' \
                     AND relation = 'ledger_events'::regclass AND mode = 'RowExclusiveLock' \
                     AND pid <> pg_backend_pid()",
                    &[],
                )
                .and_then(|rows| rows.iter().map(|r| r.try_get(0)).collect())
                .map_err(|e| pg_error("writers in flight", &e))?;
            let mut pause = Duration::from_millis(1);
            while !lockers.is_empty() {
                let left: i64 = c
                    .query_one(
                        "SELECT count(*) FROM pg_locks WHERE virtualtransaction = ANY($1)",
                        &[&lockers],
                    )
                    .and_then(|r| r.try_get(0))
                    .map_err(|e| pg_error("writers in flight", &e))?;
                if left == 0 {
                    break;
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(SETTLE_PAUSE);
            }
            Ok(max)
        })();
        self.give_back(conn);
        out
    }

    /// Runs `f` on the Merkle log, committed when it succeeds: in a read-only snapshot, as the
    /// sequencer, or as a plain `READ COMMITTED` write (cosignatures, contracts).
    ///
    /// The sequencer locks the tree's leaves `EXCLUSIVE`: one sequencer at a time, while
    /// readers (proofs) and writers of events (which never touch the tree) go on.
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
                    tx.batch_execute("LOCK TABLE ledger_leaves IN EXCLUSIVE MODE")
                        .map_err(|e| pg_error("lock the tree", &e))?;
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
