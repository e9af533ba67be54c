//! The Merkle log's statements on PostgreSQL ([`Sql`]), and the transactions it runs in: the
//! settled event id in a moment's lock of the events table against writers (see
//! [`Postgres::settled`]), the sequencer's writes in a `READ COMMITTED` transaction that
//! locks the tree, the proofs, verification and the sequencer's plan in a `REPEATABLE READ
//! READ ONLY` snapshot.

use super::{pg_error, Postgres};
use crate::tree::sql::{hex, Access, Arg, Cell, Row, Sql};
use actionseal_core::Result;
use postgres::error::SqlState;
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

/// How long the settled event id waits for the events' lock before it gives way: writers'
/// transactions take milliseconds, so a longer wait is a long one or a cycle (see
/// [`Postgres::settled`]).
const SETTLE_WAIT: &str = "20ms";

/// The longest pause between two tries (doubling from 1 ms): a few writers' transactions.
const SETTLE_PAUSE: Duration = Duration::from_millis(50);

/// What one try at the settled event id gave.
enum Settle {
    /// The largest event id, with no insert in flight.
    Settled(i64),
    /// The lock was not given within [`SETTLE_WAIT`]: given up, so the writers queued behind
    /// it go on; asked again.
    GaveWay,
}

impl Postgres {
    /// The largest event id below which no event can still commit (`Ledger::settled`).
    ///
    /// Ids come from a sequence when each event is inserted, so they commit out of order:
    /// reading the events after the tree's tip, the sequencer could miss one with a lower id
    /// that commits later, which would then never become a leaf (the race test in
    /// tests/checkpoint.rs finds that). An id is taken by `nextval` inside the statement that
    /// inserts the event (`last.rs`), which holds `ROW EXCLUSIVE` on the table from its start
    /// to its transaction's end. `SHARE ROW EXCLUSIVE` conflicts with it: taking it waits for
    /// every transaction that inserted events to end, so every id up to the largest one then
    /// has committed or never will, and ids given after it are larger (the sequence's cache
    /// is 1). The lock is held for that one read: writers wait for the transactions in flight
    /// when it is asked, never for the sequencing itself.
    ///
    /// Queued, the lock keeps new inserts behind it; a writer that holds a row (a task, a
    /// chain head) that a writer with events inserted waits for, and is itself queued behind
    /// the lock, closes a cycle that only PostgreSQL's deadlock check would end, after
    /// `deadlock_timeout` (1 s), by failing one of them. So the lock is asked with a short
    /// `lock_timeout` and given up to let such a writer through ([`Settle::GaveWay`]), then
    /// asked again after a pause, for as long as a writer holds the table: never queued for
    /// longer than [`SETTLE_WAIT`], so never in a cycle.
    pub(crate) fn settled(&self) -> Result<i64> {
        let mut pause = Duration::from_millis(1);
        loop {
            match self.settle()? {
                Settle::Settled(max) => return Ok(max),
                Settle::GaveWay => {
                    log::debug!("Merkle log: the settled event id gave way to writers");
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(SETTLE_PAUSE);
                }
            }
        }
    }

    /// One try at the settled event id, waiting at most [`SETTLE_WAIT`] for the lock.
    fn settle(&self) -> Result<Settle> {
        let mut conn = self.take()?;
        let out = (|| {
            let mut tx = conn
                .client
                .transaction()
                .map_err(|e| pg_error("begin", &e))?;
            tx.batch_execute(&format!("SET LOCAL lock_timeout = '{SETTLE_WAIT}'"))
                .map_err(|e| pg_error("lock timeout", &e))?;
            match tx.batch_execute("LOCK TABLE ledger_events IN SHARE ROW EXCLUSIVE MODE") {
                Err(e) if e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE) => {
                    return Ok(Settle::GaveWay)
                }
                other => other.map_err(|e| pg_error("lock events", &e))?,
            }
            let max: i64 = tx
                .query_one("SELECT coalesce(max(id), 0)::int8 FROM ledger_events", &[])
                .and_then(|r| r.try_get(0))
                .map_err(|e| pg_error("settled event id", &e))?;
            tx.commit().map_err(|e| pg_error("commit", &e))?;
            Ok(Settle::Settled(max))
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
