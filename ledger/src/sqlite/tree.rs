//! The Merkle log's statements on SQLite ([`Sql`]), and the transactions it runs in: the
//! sequencer's writes and other writes in a `BEGIN IMMEDIATE` transaction (SQLite's one write
//! lock, so also one sequencer at a time), the proofs, verification and the sequencer's plan
//! in a read snapshot.

use super::open::sql_error;
use super::tx::Open;
use super::Sqlite;
use crate::store::Done;
use crate::tree::sql::{Access, Arg, Cell, Row, Sql};
use actionseal_core::Result;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::Connection;

/// A connection inside an open transaction, and the ledger's cutoff.
struct Tree<'c>(&'c Connection, i64);

fn to_sql<'a>(a: &'a Arg<'_>) -> ToSqlOutput<'a> {
    ToSqlOutput::Borrowed(match a {
        Arg::Int(n) => ValueRef::Integer(*n),
        Arg::Bytes(b) => ValueRef::Blob(b),
        Arg::Text(s) => ValueRef::Text(s.as_bytes()),
    })
}

/// `$n` placeholders in SQLite's spelling (`?n`).
fn spelled(sql: &str) -> String {
    sql.replace('$', "?")
}

impl Sql for Tree<'_> {
    fn rows(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<Vec<Cell>>> {
        let mut st = self
            .0
            .prepare_cached(&spelled(sql))
            .map_err(|e| sql_error("Merkle log", e))?;
        let n = st.column_count();
        let args: Vec<ToSqlOutput<'_>> = args.iter().map(to_sql).collect();
        let mut rows = st
            .query(rusqlite::params_from_iter(args))
            .map_err(|e| sql_error("Merkle log", e))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(|e| sql_error("Merkle log", e))? {
            let row = (0..n)
                .map(|i| {
                    Ok(match r.get_ref(i)? {
                        ValueRef::Integer(n) => Cell::Int(n),
                        ValueRef::Blob(b) => Cell::Bytes(b.to_vec()),
                        ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
                        ValueRef::Null | ValueRef::Real(_) => Cell::Null,
                    })
                })
                .collect::<rusqlite::Result<Vec<Cell>>>()
                .map_err(|e| sql_error("Merkle log", e))?;
            out.push(row);
        }
        Ok(out)
    }

    fn exec(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<()> {
        let args: Vec<ToSqlOutput<'_>> = args.iter().map(to_sql).collect();
        self.0
            .prepare_cached(&spelled(sql))
            .and_then(|mut st| st.execute(rusqlite::params_from_iter(args)))
            .map(|_| ())
            .map_err(|e| sql_error("Merkle log", e))
    }

    fn insert(&mut self, into: &str, rows: &[Row<'_>]) -> Result<()> {
        // One prepared statement run per row: SQLite runs in this process, so a row costs no
        // round trip, and binding skips parsing the hashes as text.
        let mut st = self
            .0
            .prepare_cached(&format!("INSERT INTO {into} VALUES (?1, ?2, ?3)"))
            .map_err(|e| sql_error("Merkle log", e))?;
        for (a, b, hash) in rows {
            st.execute(rusqlite::params![a, b, hash])
                .map_err(|e| sql_error("Merkle log", e))?;
        }
        Ok(())
    }

    fn cutoff(&self) -> i64 {
        self.1
    }
}

impl Sqlite {
    /// Runs `f` on the Merkle log, committed when it succeeds: in a read snapshot, or under
    /// SQLite's one write lock.
    pub(crate) fn tree<T>(
        &self,
        access: Access,
        f: impl FnOnce(&mut dyn Sql) -> Result<T>,
    ) -> Result<T> {
        if let (Some(group), Access::Sequence | Access::Write) = (&self.group, access) {
            // With FULL, this ledger's writers queue for their turn, not in SQLite's busy
            // handler (see `group`): the sequencer takes its turn among them, in their batch,
            // instead of waiting for a gap between batches.
            let cutoff = self.cutoff;
            return self.write_grouped(group, |c| {
                Ok((Done::Ok(f(&mut Tree(c, cutoff))?), Vec::new()))
            });
        }
        self.with_conn(|c| {
            let begin = match access {
                Access::Read => "BEGIN",
                Access::Sequence | Access::Write => "BEGIN IMMEDIATE",
            };
            let open = Open::begin(c, begin).map_err(|e| sql_error("begin", e))?;
            let out = f(&mut Tree(c, self.cutoff))?;
            open.commit().map_err(|e| sql_error("commit", e))?;
            Ok(out)
        })
    }
}
