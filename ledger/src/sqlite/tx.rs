//! One SQLite transaction: the [`Tx`] the operations run on, and the guard that begins and
//! ends it.

use super::open::sql_error;
use crate::query::Bounds;
use crate::store::{
    amendment_from, approval_from, audit_round_decisions_sql, audit_rows_sql, budget_from, defer,
    history_of, history_sql, policy_from, put_sign_count_sql, round_decision_from, round_task,
    storage, task_from, AmendmentRow, ApprovalRow, BudgetRow, Cols, Head, ItemAhead, Links,
    PolicyRow, RoundDecisionRow, TaskRow, Tx, Write, AFTER_APPROVAL, AMENDMENT_COLUMNS,
    APPROVAL_COLUMNS, BUDGET_COLUMNS, LAST_EVENT_AT, POLICY_COLUMNS, ROUND_DECISION_COLUMNS,
    TASK_COLUMNS,
};
use actionseal_core::ledger::{Event, State};
use actionseal_core::{Digest, Result};
use rusqlite::{params, Connection};
use std::collections::HashMap;
use std::sync::Mutex;

/// An open transaction, begun and ended with prepared statements (rusqlite's own
/// transactions parse BEGIN and COMMIT anew every time); rolled back unless committed.
pub(super) struct Open<'c> {
    conn: &'c Connection,
    done: bool,
}

impl<'c> Open<'c> {
    pub(super) fn begin(conn: &'c Connection, sql: &str) -> rusqlite::Result<Open<'c>> {
        run_cached(conn, sql)?;
        Ok(Open { conn, done: false })
    }

    pub(super) fn commit(mut self) -> rusqlite::Result<()> {
        run_cached(self.conn, "COMMIT")?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        if !self.done {
            // Nothing of the operation is kept; a failure here leaves SQLite's own
            // automatic rollback to finish the job.
            let _ = run_cached(self.conn, "ROLLBACK");
        }
    }
}

/// Runs a statement without parameters or rows, prepared once per connection (BEGIN, COMMIT,
/// savepoints: parsing them anew every time is a measurable part of a short transaction).
pub(super) fn run_cached(c: &Connection, sql: &str) -> rusqlite::Result<()> {
    c.prepare_cached(sql)?.execute([]).map(|_| ())
}

/// What a transaction may do.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Reads in one snapshot; it appends no event.
    Read,
    /// One operation under the write lock (`BEGIN IMMEDIATE`).
    Write,
}

pub(super) struct SqliteTx<'c> {
    /// The connection, inside an open transaction.
    pub(super) tx: &'c Connection,
    pub(super) events: Vec<Event>,
    /// The task rows to write after the events (see [`SqliteTx::flush`]).
    pub(super) writes: Vec<Write>,
    /// The last event of each task read or created, for the next event about it to link to.
    pub(super) links: Links,
    cutoff: i64,
    /// The heads the ledger's last commits left (see `Sqlite::heads`).
    pub(super) heads: &'c Mutex<HashMap<i64, Head>>,
    /// The heads this transaction moved, for the guess once it commits.
    pub(super) moved_heads: Vec<(i64, Head)>,
    /// The rows an operation on one item read in one statement, each answered once
    /// (`batches`).
    pub(super) item_ahead: ItemAhead,
    mode: Mode,
}

impl Cols for rusqlite::Row<'_> {
    fn text(&self, i: usize) -> Result<String> {
        self.get(i).map_err(|e| sql_error("read", e))
    }
    fn opt_text(&self, i: usize) -> Result<Option<String>> {
        self.get(i).map_err(|e| sql_error("read", e))
    }
    fn stored_int(&self, i: usize) -> Result<Option<i64>> {
        self.get(i).map_err(|e| sql_error("read", e))
    }
}

impl<'c> SqliteTx<'c> {
    /// A transaction on `tx`, which the caller has begun in `mode`.
    pub(super) fn new(
        tx: &'c Connection,
        cutoff: i64,
        heads: &'c Mutex<HashMap<i64, Head>>,
        mode: Mode,
    ) -> SqliteTx<'c> {
        SqliteTx {
            tx,
            events: Vec::new(),
            writes: Vec::new(),
            links: Links::default(),
            cutoff,
            heads,
            moved_heads: Vec::new(),
            item_ahead: ItemAhead::default(),
            mode,
        }
    }

    /// Rows of a query, each mapped by `f`.
    pub(super) fn rows<T>(
        &self,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
        f: impl Fn(&rusqlite::Row<'_>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut st = self
            .tx
            .prepare_cached(sql)
            .map_err(|e| sql_error("prepare", e))?;
        let mut rows = st.query(params).map_err(|e| sql_error("query", e))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(|e| sql_error("query", e))? {
            out.push(f(r)?);
        }
        Ok(out)
    }

    /// The row a query by a unique key finds, mapped by `f` (`None`: no row), without
    /// gathering rows in a list first.
    pub(super) fn row<T>(
        &self,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
        f: impl FnOnce(&rusqlite::Row<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        let mut st = self
            .tx
            .prepare_cached(sql)
            .map_err(|e| sql_error("prepare", e))?;
        let mut rows = st.query(params).map_err(|e| sql_error("query", e))?;
        rows.next()
            .map_err(|e| sql_error("query", e))?
            .map(f)
            .transpose()
    }

    pub(super) fn exec(&self, sql: &str, params: &[&dyn rusqlite::ToSql]) -> Result<usize> {
        self.tx
            .prepare_cached(sql)
            .and_then(|mut st| st.execute(params))
            .map_err(|e| sql_error("write", e))
    }

    /// The task a query of its columns and its last event finds (by `key`); its last event is
    /// remembered, for the next event about it to link to.
    fn linked_task(&mut self, sql: &str, key: &str) -> Result<Option<TaskRow>> {
        let read = self.row(sql, params![key], |r| {
            Ok((task_from(r)?, r.int(LAST_EVENT_AT)?))
        })?;
        Ok(read.map(|(t, last_event)| {
            self.links.set(&t.id, last_event);
            t
        }))
    }
}

impl Tx for SqliteTx<'_> {
    fn task(&mut self, id: &str) -> Result<Option<TaskRow>> {
        if let Some(t) = self.item_ahead.task.take_if(|t| t.id == id) {
            return Ok(Some(t));
        }
        let sql = format!("SELECT {TASK_COLUMNS}, last_event FROM ledger_tasks WHERE id = ?1");
        self.linked_task(&sql, id)
    }

    fn task_of_approval(&mut self, approval_id: &str) -> Result<Option<TaskRow>> {
        let sql = format!(
            "SELECT {TASK_COLUMNS}, last_event FROM ledger_tasks \
             WHERE id = (SELECT task_id FROM ledger_approvals WHERE approval_id = ?1)"
        );
        match self.linked_task(&sql, approval_id)? {
            Some(t) => Ok(Some(t)),
            // No such round, or a round whose task is missing: say which.
            None => round_task(self, approval_id),
        }
    }

    fn approval_and_decision(
        &mut self,
        approval_id: &str,
        decision_id: &str,
    ) -> Result<(Option<ApprovalRow>, Option<String>)> {
        // Without the round there is nothing to decide, whatever the decision id holds: the
        // envelope is read only with it.
        let sql = format!(
            "SELECT {APPROVAL_COLUMNS}, (SELECT envelope FROM ledger_decisions \
             WHERE decision_id = ?2) FROM ledger_approvals WHERE approval_id = ?1"
        );
        let read = self.row(&sql, params![approval_id, decision_id], |r| {
            Ok((Some(approval_from(r)?), r.opt_text(AFTER_APPROVAL)?))
        })?;
        Ok(read.unwrap_or((None, None)))
    }

    fn insert_task(&mut self, t: &TaskRow) -> Result<bool> {
        // Deferred until the events are written (see `flush`): under the write lock the
        // proposal has just looked for the task, so the insert cannot find it there.
        self.links.set(&t.id, 0);
        defer(&mut self.writes, Write::InsertTask(t.clone()));
        Ok(true)
    }

    fn amend_task(&mut self, t: &TaskRow, expect: &Digest) -> Result<bool> {
        let n = self.exec(
            "UPDATE ledger_tasks SET action = ?1, action_digest = ?2, proposed_action = ?3, \
             proposed_digest = ?4, amendments = ?5, updated_at = ?6, round_started_at = ?7 \
             WHERE id = ?8 AND state = ?9 AND action_digest = ?10",
            params![
                t.action,
                t.action_digest.to_string(),
                t.proposed_action,
                t.proposed_digest.map(|d| d.to_string()),
                t.amendments,
                t.updated_at,
                t.round_started_at,
                t.id,
                t.state.as_str(),
                expect.to_string()
            ],
        )?;
        Ok(n == 1)
    }

    fn insert_amendment(&mut self, a: &AmendmentRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO ledger_amendments ({AMENDMENT_COLUMNS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
        );
        self.exec(
            &sql,
            params![
                a.task_id,
                a.n,
                a.amends.to_string(),
                a.action,
                a.action_digest.to_string(),
                a.reviewer,
                a.reason,
                a.at
            ],
        )
        .map(|_| ())
    }

    fn amendments(&mut self, task_id: &str) -> Result<Vec<AmendmentRow>> {
        let sql = format!(
            "SELECT {AMENDMENT_COLUMNS} FROM ledger_amendments WHERE task_id = ?1 ORDER BY n"
        );
        self.rows(&sql, params![task_id], |r| amendment_from(r))
    }

    fn update_task(&mut self, t: &TaskRow, expect: State, expect_fence: i64) -> Result<bool> {
        // Deferred until the events are written, still conditional (see `flush`): the task
        // is locked, so the condition cannot fail unless something wrote it without the lock.
        defer(
            &mut self.writes,
            Write::UpdateTask {
                row: t.clone(),
                expect,
                fence: expect_fence,
            },
        );
        Ok(true)
    }

    fn approval(&mut self, approval_id: &str) -> Result<Option<ApprovalRow>> {
        let sql = format!("SELECT {APPROVAL_COLUMNS} FROM ledger_approvals WHERE approval_id = ?1");
        self.row(&sql, params![approval_id], |r| approval_from(r))
    }

    fn put_approval(&mut self, a: &ApprovalRow) -> Result<()> {
        self.exec(
            "INSERT INTO ledger_approvals (approval_id, task_id, round, decision_id, revoked_at) \
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (approval_id) DO UPDATE \
             SET decision_id = excluded.decision_id, revoked_at = excluded.revoked_at",
            params![
                a.approval_id,
                a.task_id,
                a.round,
                a.decision_id,
                a.revoked_at
            ],
        )
        .map(|_| ())
    }

    fn decision(&mut self, decision_id: &str) -> Result<Option<String>> {
        self.row(
            "SELECT envelope FROM ledger_decisions WHERE decision_id = ?1",
            params![decision_id],
            |r| r.text(0),
        )
    }

    fn insert_decision(
        &mut self,
        decision_id: &str,
        approval_id: &str,
        envelope: &str,
        at: i64,
    ) -> Result<bool> {
        let n = self.exec(
            "INSERT INTO ledger_decisions (decision_id, approval_id, envelope, recorded_at) \
             VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
            params![decision_id, approval_id, envelope, at],
        )?;
        Ok(n == 1)
    }

    fn round_decisions(&mut self, approval_id: &str) -> Result<Vec<RoundDecisionRow>> {
        let sql = format!(
            "SELECT {ROUND_DECISION_COLUMNS} FROM ledger_round_decisions \
             WHERE approval_id = ?1 ORDER BY n"
        );
        self.rows(&sql, params![approval_id], |r| round_decision_from(r))
    }

    fn insert_round_decision(&mut self, r: &RoundDecisionRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO ledger_round_decisions ({ROUND_DECISION_COLUMNS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
        );
        self.exec(
            &sql,
            params![
                r.approval_id,
                r.n,
                r.decision_id,
                r.counted_as,
                r.role,
                r.decision,
                r.record,
                r.proof,
                r.decided_at,
                r.recorded_at
            ],
        )
        .map(|_| ())
    }

    fn budget(&mut self, name: &str) -> Result<Option<BudgetRow>> {
        let sql = format!("SELECT {BUDGET_COLUMNS} FROM ledger_budgets WHERE name = ?1");
        self.row(&sql, params![name], |r| budget_from(r))
    }

    fn put_budget(&mut self, b: &BudgetRow) -> Result<()> {
        self.exec(
            "INSERT INTO ledger_budgets (name, limit_minor, spent_minor, reserved_minor) \
             VALUES (?1, ?2, ?3, ?4) ON CONFLICT (name) DO UPDATE SET \
             limit_minor = excluded.limit_minor, spent_minor = excluded.spent_minor, \
             reserved_minor = excluded.reserved_minor",
            params![b.name, b.limit_minor, b.spent_minor, b.reserved_minor],
        )
        .map(|_| ())
    }

    fn expired_leases(&mut self, now: i64) -> Result<Vec<String>> {
        self.rows(
            "SELECT id FROM ledger_tasks WHERE lease_until IS NOT NULL AND lease_until <= ?1 \
             AND state = 'claimed' ORDER BY lease_until",
            params![now],
            |r| r.text(0),
        )
    }

    fn policy(&mut self) -> Result<PolicyRow> {
        let sql = format!("SELECT {POLICY_COLUMNS} FROM ledger_policy WHERE id = 1");
        self.row(&sql, params![], |r| policy_from(r))?
            .ok_or_else(|| storage("policy", "the ledger has no policy row"))
    }

    fn put_policy(&mut self, p: &PolicyRow) -> Result<()> {
        self.exec(
            "UPDATE ledger_policy SET proof = ?1, changed_at = ?2, changed_by = ?3 WHERE id = 1",
            params![p.proof.as_str(), p.changed_at, p.changed_by],
        )
        .map(|_| ())
    }

    fn sign_count(&mut self, credential_id: &str) -> Result<Option<i64>> {
        self.row(
            "SELECT sign_count FROM ledger_passkeys WHERE credential_id = ?1",
            params![credential_id],
            |r| r.int(0),
        )
    }

    fn put_sign_count(&mut self, credential_id: &str, count: i64, at: i64) -> Result<bool> {
        let n = self.exec(&put_sign_count_sql('?'), params![credential_id, count, at])?;
        Ok(n == 1)
    }

    fn list_tasks(&mut self, b: &Bounds<'_>) -> Result<Vec<TaskRow>> {
        let sql = format!(
            "SELECT {TASK_COLUMNS} FROM ledger_tasks WHERE (?1 IS NULL OR state = ?1) \
             AND (?2 IS NULL OR tenant = ?2) AND (?3 IS NULL OR created_at >= ?3) \
             AND (?4 IS NULL OR created_at < ?4) \
             AND (?5 IS NULL OR created_at > ?5 OR (created_at = ?5 AND id > ?6)) \
             ORDER BY created_at, id LIMIT ?7"
        );
        let (after_at, after_id) = b.after_task.as_ref().map(|(at, id)| (at, id)).unzip();
        // A negative LIMIT is none in SQLite.
        let fetch = b.fetch.unwrap_or(-1);
        let params = params![
            b.state.map(State::as_str),
            b.tenant,
            b.since,
            b.until,
            after_at,
            after_id,
            fetch
        ];
        self.rows(&sql, params, |r| task_from(r))
    }

    fn events_where(&mut self, b: &Bounds<'_>) -> Result<Vec<(i64, String, String)>> {
        let sql = "SELECT id, body, digest FROM ledger_events WHERE (?1 IS NULL OR tenant = ?1) \
             AND (?2 IS NULL OR task IN (SELECT id FROM ledger_tasks WHERE state = ?2)) \
             AND (?3 IS NULL OR at >= ?3) AND (?4 IS NULL OR at < ?4) \
             AND (?5 IS NULL OR id > ?5) ORDER BY id LIMIT ?6";
        let params = params![
            b.tenant,
            b.state.map(State::as_str),
            b.since,
            b.until,
            b.after_event,
            b.fetch.unwrap_or(-1)
        ];
        self.rows(sql, params, |r| Ok((r.int(0)?, r.text(1)?, r.text(2)?)))
    }

    fn events(&mut self, task: Option<&str>) -> Result<Vec<(String, String)>> {
        let Some(id) = task else {
            return self.rows(
                "SELECT body, digest FROM ledger_events ORDER BY id",
                params![],
                |r| Ok((r.text(0)?, r.text(1)?)),
            );
        };
        let rows = self.rows(&history_sql(self.cutoff, "?1"), params![id], |r| {
            Ok((r.opt_text(1)?, r.text(2)?, r.text(3)?))
        })?;
        history_of(id, rows)
    }

    fn heads(&mut self) -> Result<Vec<(i64, i64, Option<String>)>> {
        self.rows(
            "SELECT chain, seq, digest FROM ledger_head ORDER BY chain",
            params![],
            |r| Ok((r.int(0)?, r.int(1)?, r.opt_text(2)?)),
        )
    }

    fn audit_rows(&mut self) -> Result<Vec<(TaskRow, Option<String>)>> {
        self.rows(&audit_rows_sql(self.cutoff), params![], |r| {
            Ok((task_from(r)?, r.opt_text(LAST_EVENT_AT)?))
        })
    }

    fn audit_round_decisions(&mut self) -> Result<Vec<RoundDecisionRow>> {
        self.rows(&audit_round_decisions_sql(), params![], |r| {
            round_decision_from(r)
        })
    }

    fn append(&mut self, e: Event) {
        debug_assert!(
            self.mode == Mode::Write,
            "events are appended by writes only"
        );
        self.events.push(e);
    }
}
