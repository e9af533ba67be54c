//! The first round trip of a write: the reads that begin it ([`FIRST`], prepared by name once
//! per session) and the rows they return.

use super::attempt::Attempt;
use super::pg_error;
use super::tx::{derived, PgTx, Transaction};
use crate::store::{storage, Cols, APPROVAL_COLUMNS, TASK_COLUMNS};
use actionseal_core::Result;
use postgres::SimpleQueryMessage;

/// The reads that begin a write, prepared by name once per session (SQL `PREPARE`), so that
/// `BEGIN; EXECUTE name('id')` is one round trip and is not planned each time.
const FIRST: &str = "
PREPARE ledger_task(text) AS SELECT {TASK_COLUMNS}, last_event FROM ledger_tasks WHERE id = $1
  FOR UPDATE;
PREPARE ledger_round_task(text) AS SELECT {TASK_COLUMNS}, last_event FROM ledger_tasks
  WHERE id = (SELECT task_id FROM ledger_approvals WHERE approval_id = $1) FOR UPDATE;
PREPARE ledger_round(text) AS SELECT {APPROVAL_COLUMNS} FROM ledger_approvals
  WHERE approval_id = $1;
PREPARE ledger_task_free(text) AS SELECT {TASK_COLUMNS}, last_event FROM ledger_tasks
  WHERE id = $1;
PREPARE ledger_round_task_free(text) AS SELECT {TASK_COLUMNS}, last_event FROM ledger_tasks
  WHERE id = (SELECT task_id FROM ledger_approvals WHERE approval_id = $1);
";

/// A row of a simple query: every column as text (or NULL).
pub(super) struct SimpleRow(postgres::SimpleQueryRow);

impl SimpleRow {
    fn get(&self, i: usize) -> Result<Option<&str>> {
        self.0.try_get(i).map_err(|e| pg_error("read", &e))
    }
}

impl Cols for SimpleRow {
    fn text(&self, i: usize) -> Result<String> {
        self.opt_text(i)?
            .ok_or_else(|| storage("read", format!("column {i} is NULL")))
    }
    fn opt_text(&self, i: usize) -> Result<Option<String>> {
        Ok(self.get(i)?.map(str::to_owned))
    }
    fn stored_int(&self, i: usize) -> Result<Option<i64>> {
        self.get(i)?
            .map(|s| {
                s.parse()
                    .map_err(|_| storage("read", format!("column {i} is not an integer")))
            })
            .transpose()
    }
}

impl PgTx<'_> {
    /// Begins the transaction with one of the [`FIRST`] statements, sent in the same round
    /// trip as `BEGIN` (a simple query, so without parameters: the caller passes only an id
    /// it has checked to be one the ledger derives, hex digits behind a fixed prefix, which
    /// goes into the text).
    pub(super) fn begin_with(&mut self, name: &str, id: &str) -> Result<Vec<SimpleRow>> {
        Ok(self
            .begin_with_all(&[(name, id)])?
            .pop()
            .unwrap_or_default())
    }

    /// [`PgTx::begin_with`] for several of the [`FIRST`] statements, run in order in the one
    /// round trip, each with a snapshot of its own (read committed): the rows of each.
    pub(super) fn begin_with_all(
        &mut self,
        statements: &[(&str, &str)],
    ) -> Result<Vec<Vec<SimpleRow>>> {
        debug_assert!(self.transaction == Transaction::Idle);
        debug_assert!(statements
            .iter()
            .all(|(_, id)| derived(id, "task_") || derived(id, "apr_")));
        if !*self.named {
            let first = FIRST
                .replace("{TASK_COLUMNS}", TASK_COLUMNS)
                .replace("{APPROVAL_COLUMNS}", APPROVAL_COLUMNS)
                + &crate::store::batch_sql::item_ahead();
            if let Err(e) = self.client.batch_execute(&first) {
                return Err(self.fail(e));
            }
            *self.named = true;
        }
        // A free read takes no lock and begins no transaction.
        let is_free = matches!(self.attempt, Attempt::Free(_));
        let (mut query, free) = if is_free {
            (String::new(), "_free")
        } else {
            ("BEGIN; ".to_owned(), "")
        };
        for (i, (name, id)) in statements.iter().enumerate() {
            let free = if *name == "ledger_round" { "" } else { free };
            let sep = if i == 0 { "" } else { "; " };
            query += &format!("{sep}EXECUTE {name}{free}('{id}')");
        }
        let sent = self.client.simple_query(&query);
        // BEGIN ran (perhaps before a SELECT failed) unless the read is free.
        self.transaction = if is_free {
            Transaction::Idle
        } else {
            Transaction::Open
        };
        match sent {
            Ok(messages) => {
                // One group per statement, BEGIN's (empty) first.
                let mut groups = vec![Vec::new()];
                for m in messages {
                    match m {
                        SimpleQueryMessage::Row(r) => {
                            if let Some(g) = groups.last_mut() {
                                g.push(SimpleRow(r));
                            }
                        }
                        SimpleQueryMessage::CommandComplete(_) => groups.push(Vec::new()),
                        _ => {}
                    }
                }
                groups.truncate(statements.len() + usize::from(!is_free));
                if !is_free {
                    groups.remove(0);
                }
                if groups.len() != statements.len() {
                    return Err(storage(
                        "begin",
                        "a statement of the first round trip is missing",
                    ));
                }
                Ok(groups)
            }
            Err(e) => Err(self.fail(e)),
        }
    }
}
