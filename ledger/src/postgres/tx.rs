//! One attempt's transaction on PostgreSQL ([`PgTx`]): the connection it talks through, what
//! it read and deferred, and the [`Tx`] operations run against it. Its first reads are in
//! `first`, its last statement in `flush`.

use super::attempt::{Attempt, Lookup, Retry, TaskBasis, Trust};
use super::in_flight::{InFlight, Learned};
use super::{pg_error, Conn, Schema};
use crate::query::Bounds;
use crate::store::{
    amendment_from, approval_from, audit_round_decisions_sql, audit_rows_sql, budget_from, defer,
    history_of, history_sql, policy_from, put_sign_count_sql, round_decision_from, round_task,
    storage, task_from, AmendmentRow, ApprovalRow, BudgetRow, Cols, Links, PolicyRow,
    RoundDecisionRow, TaskRow, Tx, Write, AFTER_APPROVAL, AMENDMENT_COLUMNS, APPROVAL_COLUMNS,
    BUDGET_COLUMNS, LAST_EVENT_AT, POLICY_COLUMNS, ROUND_DECISION_COLUMNS, TASK_COLUMNS,
};
use actionseal_core::ledger::{Event, State};
use actionseal_core::Digest;
use actionseal_core::{Error, Result};
use postgres::types::ToSql;
use postgres::{Client, Statement};
use std::collections::HashMap;

/// One attempt of an operation: how it reads, locks and writes ([`Attempt`]), and what it has
/// read, deferred and learned so far.
pub(super) struct PgTx<'a> {
    pub(super) attempt: Attempt,
    pub(super) client: &'a mut Client,
    /// Whether the session has prepared the `first::FIRST` statements.
    pub(super) named: &'a mut bool,
    pub(super) transaction: Transaction,
    pub(super) statements: &'a mut HashMap<String, Statement>,
    pub(super) shaped: &'a mut HashMap<Vec<u8>, Statement>,
    pub(super) events: Vec<Event>,
    /// Row writes deferred to the last statement (writes only).
    pub(super) writes: Vec<Write>,
    /// The approval round read with its task in the first round trip of a decision.
    pub(super) round: Option<ApprovalRow>,
    /// Why the attempt must run again whatever it answers: a free attempt that met something
    /// it cannot do without locks ([`Retry::Locks`]).
    pub(super) again: Option<Retry>,
    /// The tasks as this ledger last wrote them, which a free attempt reads instead.
    pub(super) in_flight: &'a InFlight,
    /// What the transaction's commit will teach `in_flight`.
    pub(super) learned: Learned,
    /// The first driver error: the transaction is aborted, and the caller decides whether to
    /// run the operation again.
    pub(super) failed: Option<postgres::Error>,
    /// The last event of each task read or created, for the next event about it to link to.
    pub(super) links: Links,
    pub(super) schema: Schema,
    /// The rows an operation on one item read ahead in its first round trip, each answered
    /// once.
    pub(super) item_ahead: crate::store::ItemAhead,
    /// The item's lineage and batch a free attempt read and decided from, which its one
    /// statement must find unchanged (`item_gate::ItemGate`).
    pub(super) item_gate: Option<super::item_gate::ItemGate>,
}

/// Whether the attempt's transaction is open. A snapshot opens it before its first read, a
/// locked attempt with its first statement, a free attempt never.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Transaction {
    Idle,
    Open,
}

/// Whether `id` is an id the ledger derives: `prefix` and 32 lowercase hex digits (nothing
/// that could end a quoted SQL string).
pub(super) fn derived(id: &str, prefix: &str) -> bool {
    id.strip_prefix(prefix).is_some_and(|hex| {
        hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

impl<'a> PgTx<'a> {
    /// An attempt on `conn`, its transaction not begun yet.
    pub(super) fn new(
        conn: &'a mut Conn,
        attempt: Attempt,
        in_flight: &'a InFlight,
        schema: Schema,
    ) -> PgTx<'a> {
        PgTx {
            attempt,
            client: &mut conn.client,
            named: &mut conn.named,
            transaction: Transaction::Idle,
            statements: &mut conn.statements,
            shaped: &mut conn.shaped,
            events: Vec::new(),
            writes: Vec::new(),
            round: None,
            again: None,
            in_flight,
            learned: Learned::default(),
            failed: None,
            links: Links::default(),
            schema,
            item_ahead: Default::default(),
            item_gate: None,
        }
    }
}

pub(super) struct PgRow(pub(super) postgres::Row);

impl Cols for PgRow {
    fn text(&self, i: usize) -> Result<String> {
        self.0.try_get(i).map_err(|e| pg_error("read", &e))
    }
    fn opt_text(&self, i: usize) -> Result<Option<String>> {
        self.0.try_get(i).map_err(|e| pg_error("read", &e))
    }
    fn stored_int(&self, i: usize) -> Result<Option<i64>> {
        self.0.try_get(i).map_err(|e| pg_error("read", &e))
    }
}

impl PgTx<'_> {
    /// A task from a row of its columns and its last event, which the transaction remembers
    /// (the row is locked: the next event about the task links to it).
    pub(super) fn linked(&mut self, r: &dyn Cols) -> Result<TaskRow> {
        let t = task_from(r)?;
        self.links.set(&t.id, r.int(LAST_EVENT_AT)?);
        Ok(t)
    }

    pub(super) fn fail(&mut self, e: postgres::Error) -> Error {
        let coded = pg_error("query", &e);
        if self.failed.is_none() {
            self.failed = Some(e);
        }
        coded
    }

    /// What a free attempt took on trust so far (nothing, for any other attempt).
    pub(super) fn trust(&self) -> Trust {
        match self.attempt {
            Attempt::Free(trust) => trust,
            Attempt::Snapshot | Attempt::Locked => Trust::default(),
        }
    }

    /// Whether the next read is a write's first, which may begin its transaction with a
    /// `first::FIRST` statement in the same round trip.
    pub(super) fn first_read(&self) -> bool {
        !matches!(self.attempt, Attempt::Snapshot) && self.transaction == Transaction::Idle
    }

    /// Opens a snapshot's transaction, before its first read.
    pub(super) fn begin_snapshot(&mut self) -> Result<()> {
        self.client
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .map_err(|e| pg_error("begin", &e))?;
        self.transaction = Transaction::Open;
        Ok(())
    }

    /// Begins the transaction if it has not begun yet.
    pub(super) fn begin(&mut self) -> Result<()> {
        if let Attempt::Free(_) = self.attempt {
            self.again = Some(Retry::Locks);
            return Err(storage("read", "this operation reads under locks"));
        }
        if self.transaction == Transaction::Idle {
            if let Err(e) = self.client.batch_execute("BEGIN") {
                return Err(self.fail(e));
            }
            self.transaction = Transaction::Open;
        }
        Ok(())
    }

    /// Commits the transaction, if one is open.
    pub(super) fn commit(&mut self) -> std::result::Result<(), postgres::Error> {
        if self.transaction == Transaction::Open {
            self.client.batch_execute("COMMIT")?;
            self.transaction = Transaction::Idle;
        }
        Ok(())
    }

    /// Ends a transaction that was not committed (a failure, or a refusal before any write).
    pub(super) fn end(&mut self) {
        if self.transaction == Transaction::Open {
            let _ = self.client.batch_execute("ROLLBACK");
            self.transaction = Transaction::Idle;
        }
    }

    fn statement(&mut self, sql: &str) -> Result<Statement> {
        self.begin()?;
        self.prepared(sql)
    }

    /// `sql`, prepared once per connection.
    pub(super) fn prepared(&mut self, sql: &str) -> Result<Statement> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        match self.client.prepare(sql) {
            Ok(s) => {
                self.statements.insert(sql.to_owned(), s.clone());
                Ok(s)
            }
            Err(e) => Err(self.fail(e)),
        }
    }

    pub(super) fn rows(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<PgRow>> {
        let st = self.statement(sql)?;
        match self.client.query(&st, params) {
            Ok(rows) => Ok(rows.into_iter().map(PgRow).collect()),
            Err(e) => Err(self.fail(e)),
        }
    }

    pub(super) fn exec(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64> {
        let st = self.statement(sql)?;
        match self.client.execute(&st, params) {
            Ok(n) => Ok(n),
            Err(e) => Err(self.fail(e)),
        }
    }

    /// How a read of a task or a budget locks its row: only a write's reads do (a free
    /// attempt runs again before it sends one).
    pub(super) fn lock(&self) -> &'static str {
        match self.attempt {
            Attempt::Snapshot => "",
            Attempt::Free(_) | Attempt::Locked => " FOR UPDATE",
        }
    }
}

impl Tx for PgTx<'_> {
    fn proposed_task(&mut self, id: &str) -> Result<Option<TaskRow>> {
        if let Attempt::Free(trust) = &mut self.attempt {
            // Most proposals are new: insert without looking (see `flush`).
            trust.task = TaskBasis::NotLooked;
            return Ok(None);
        }
        self.task(id)
    }

    fn task_of_approval(&mut self, approval_id: &str) -> Result<Option<TaskRow>> {
        if let Attempt::Free(trust) = &mut self.attempt {
            if let Some((round, task, last)) = self.in_flight.round_task(approval_id) {
                self.links.set(&task.id, last);
                self.round = Some(round);
                trust.task = TaskBasis::Remembered;
                return Ok(Some(task));
            }
        }
        if self.first_read() && derived(approval_id, "apr_") {
            // The round's task, locked, in the transaction's first round trip, and the round
            // read again after the lock by a statement of its own (so it sees what the task's
            // last holder committed) in the same round trip.
            let mut groups = self.begin_with_all(&[
                ("ledger_round_task", approval_id),
                ("ledger_round", approval_id),
            ])?;
            let round = groups.pop().unwrap_or_default();
            if let Some(r) = groups.pop().unwrap_or_default().first() {
                self.round = round.first().map(|a| approval_from(a)).transpose()?;
                return self.linked(r).map(Some);
            }
        }
        // No such round (or a task missing under its round): say which.
        round_task(self, approval_id)
    }

    fn task(&mut self, id: &str) -> Result<Option<TaskRow>> {
        if let Some(t) = self.item_ahead.task.take_if(|t| t.id == id) {
            return Ok(Some(t));
        }
        if let Attempt::Free(trust) = &mut self.attempt {
            if let Some((task, last)) = self.in_flight.task(id) {
                self.links.set(id, last);
                trust.task = TaskBasis::Remembered;
                return Ok(Some(task));
            }
        }
        if self.first_read() && derived(id, "task_") {
            return self
                .begin_with("ledger_task", id)?
                .pop()
                .map(|r| self.linked(&r))
                .transpose();
        }
        let sql = format!(
            "SELECT {TASK_COLUMNS}, last_event FROM ledger_tasks WHERE id = $1{}",
            self.lock()
        );
        self.rows(&sql, &[&id])?
            .pop()
            .map(|r| self.linked(&r))
            .transpose()
    }

    fn insert_task(&mut self, t: &TaskRow) -> Result<bool> {
        self.links.set(&t.id, 0);
        // Deferred: a task another proposal created first makes the last statement change
        // nothing, and the operation runs again (and then finds it).
        defer(&mut self.writes, Write::InsertTask(t.clone()));
        Ok(true)
    }

    fn update_task(&mut self, t: &TaskRow, expect: State, expect_fence: i64) -> Result<bool> {
        // Deferred, still conditional: the last statement fails if the row changed.
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

    fn amend_task(&mut self, t: &TaskRow, expect: &Digest) -> Result<bool> {
        let (digest, state, expect) = (
            t.action_digest.to_string(),
            t.state.as_str(),
            expect.to_string(),
        );
        let proposed_digest = t.proposed_digest.map(|d| d.to_string());
        let n = self.exec(
            "UPDATE ledger_tasks SET action = $1, action_digest = $2, proposed_action = $3, \
             proposed_digest = $4, amendments = $5, updated_at = $6, round_started_at = $7 \
             WHERE id = $8 AND state = $9 AND action_digest = $10",
            &[
                &t.action,
                &digest,
                &t.proposed_action,
                &proposed_digest,
                &t.amendments,
                &t.updated_at,
                &t.round_started_at,
                &t.id,
                &state,
                &expect,
            ],
        )?;
        Ok(n == 1)
    }

    fn insert_amendment(&mut self, a: &AmendmentRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO ledger_amendments ({AMENDMENT_COLUMNS}) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        );
        let (amends, digest) = (a.amends.to_string(), a.action_digest.to_string());
        self.exec(
            &sql,
            &[
                &a.task_id,
                &a.n,
                &amends,
                &a.action,
                &digest,
                &a.reviewer,
                &a.reason,
                &a.at,
            ],
        )
        .map(|_| ())
    }

    fn amendments(&mut self, task_id: &str) -> Result<Vec<AmendmentRow>> {
        let sql = format!(
            "SELECT {AMENDMENT_COLUMNS} FROM ledger_amendments WHERE task_id = $1 ORDER BY n"
        );
        self.rows(&sql, &[&task_id])?
            .iter()
            .map(|r| amendment_from(r))
            .collect()
    }

    fn approval(&mut self, approval_id: &str) -> Result<Option<ApprovalRow>> {
        if self.first_read() && derived(approval_id, "apr_") {
            return self
                .begin_with("ledger_round", approval_id)?
                .pop()
                .map(|r| approval_from(&r))
                .transpose();
        }
        let sql = format!("SELECT {APPROVAL_COLUMNS} FROM ledger_approvals WHERE approval_id = $1");
        self.rows(&sql, &[&approval_id])?
            .pop()
            .map(|r| approval_from(&r))
            .transpose()
    }

    fn put_approval(&mut self, a: &ApprovalRow) -> Result<()> {
        defer(&mut self.writes, Write::PutApproval(a.clone()));
        Ok(())
    }

    fn approval_and_decision(
        &mut self,
        approval_id: &str,
        decision_id: &str,
    ) -> Result<(Option<ApprovalRow>, Option<String>)> {
        if let Attempt::Free(trust) = &mut self.attempt {
            if let Some(a) = self.round.take().filter(|a| a.approval_id == approval_id) {
                // Most decisions are new: the id is not looked up. Its insert then changes
                // nothing on a recorded id, and any outcome but a new decision runs the
                // operation again, looking (see `attempt_write`).
                trust.decision = Lookup::Skipped;
                return Ok((Some(a), None));
            }
        }
        let rows = self.rows(
            "SELECT a.approval_id, a.task_id, a.round, a.decision_id, a.revoked_at, d.envelope \
             FROM (VALUES (1)) AS one LEFT JOIN ledger_approvals a ON a.approval_id = $1 \
             LEFT JOIN ledger_decisions d ON d.decision_id = $2",
            &[&approval_id, &decision_id],
        )?;
        let Some(r) = rows.first() else {
            return Ok((None, None));
        };
        let approval = match r.opt_text(0)? {
            Some(_) => Some(approval_from(r)?),
            None => None,
        };
        Ok((approval, r.opt_text(AFTER_APPROVAL)?))
    }

    fn decision(&mut self, decision_id: &str) -> Result<Option<String>> {
        self.rows(
            "SELECT envelope FROM ledger_decisions WHERE decision_id = $1",
            &[&decision_id],
        )?
        .pop()
        .map(|r| r.text(0))
        .transpose()
    }

    fn insert_decision(
        &mut self,
        decision_id: &str,
        approval_id: &str,
        envelope: &str,
        at: i64,
    ) -> Result<bool> {
        // Deferred: an id recorded meanwhile makes the operation run again, and it then
        // finds the recorded decision (a duplicate, or a conflict).
        defer(
            &mut self.writes,
            Write::InsertDecision {
                decision_id: decision_id.to_owned(),
                approval_id: approval_id.to_owned(),
                envelope: envelope.to_owned(),
                at,
            },
        );
        Ok(true)
    }

    fn round_decisions(&mut self, approval_id: &str) -> Result<Vec<RoundDecisionRow>> {
        // A read of its own: a free attempt runs again, locked (see `begin`).
        let sql = format!(
            "SELECT {ROUND_DECISION_COLUMNS} FROM ledger_round_decisions \
             WHERE approval_id = $1 ORDER BY n"
        );
        self.rows(&sql, &[&approval_id])?
            .iter()
            .map(|r| round_decision_from(r))
            .collect()
    }

    fn insert_round_decision(&mut self, r: &RoundDecisionRow) -> Result<()> {
        let sql = format!(
            "INSERT INTO ledger_round_decisions ({ROUND_DECISION_COLUMNS}) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
        );
        self.exec(
            &sql,
            &[
                &r.approval_id,
                &r.n,
                &r.decision_id,
                &r.counted_as,
                &r.role,
                &r.decision,
                &r.record,
                &r.proof,
                &r.decided_at,
                &r.recorded_at,
            ],
        )
        .map(|_| ())
    }

    fn budget(&mut self, name: &str) -> Result<Option<BudgetRow>> {
        let sql = format!(
            "SELECT {BUDGET_COLUMNS} FROM ledger_budgets WHERE name = $1{}",
            self.lock()
        );
        self.rows(&sql, &[&name])?
            .pop()
            .map(|r| budget_from(&r))
            .transpose()
    }

    fn put_budget(&mut self, b: &BudgetRow) -> Result<()> {
        self.exec(
            "INSERT INTO ledger_budgets (name, limit_minor, spent_minor, reserved_minor) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO UPDATE SET \
             limit_minor = excluded.limit_minor, spent_minor = excluded.spent_minor, \
             reserved_minor = excluded.reserved_minor",
            &[&b.name, &b.limit_minor, &b.spent_minor, &b.reserved_minor],
        )
        .map(|_| ())
    }

    fn policy(&mut self) -> Result<PolicyRow> {
        let sql = format!("SELECT {POLICY_COLUMNS} FROM ledger_policy WHERE id = 1");
        self.rows(&sql, &[])?
            .pop()
            .map(|r| policy_from(&r))
            .transpose()?
            .ok_or_else(|| storage("policy", "the ledger has no policy row"))
    }

    fn put_policy(&mut self, p: &PolicyRow) -> Result<()> {
        self.exec(
            "UPDATE ledger_policy SET proof = $1, changed_at = $2, changed_by = $3 WHERE id = 1",
            &[&p.proof.as_str(), &p.changed_at, &p.changed_by],
        )
        .map(|_| ())
    }

    fn sign_count(&mut self, credential_id: &str) -> Result<Option<i64>> {
        // Under locks (a free attempt runs again so): the counter row is read and written in
        // the one transaction.
        let sql = format!(
            "SELECT sign_count FROM ledger_passkeys WHERE credential_id = $1{}",
            self.lock()
        );
        self.rows(&sql, &[&credential_id])?
            .pop()
            .map(|r| r.int(0))
            .transpose()
    }

    fn put_sign_count(&mut self, credential_id: &str, count: i64, at: i64) -> Result<bool> {
        let n = self.exec(&put_sign_count_sql('$'), &[&credential_id, &count, &at])?;
        Ok(n == 1)
    }

    fn expired_leases(&mut self, now: i64) -> Result<Vec<String>> {
        self.rows(
            "SELECT id FROM ledger_tasks WHERE lease_until IS NOT NULL AND lease_until <= $1 \
             AND state = 'claimed' ORDER BY lease_until",
            &[&now],
        )?
        .iter()
        .map(|r| r.text(0))
        .collect()
    }

    fn list_tasks(&mut self, b: &Bounds<'_>) -> Result<Vec<TaskRow>> {
        let sql = format!(
            "SELECT {TASK_COLUMNS} FROM ledger_tasks WHERE ($1::text IS NULL OR state = $1) \
             AND ($2::text IS NULL OR tenant = $2) \
             AND ($3::bigint IS NULL OR created_at >= $3) \
             AND ($4::bigint IS NULL OR created_at < $4) \
             AND ($5::bigint IS NULL OR created_at > $5 OR (created_at = $5 AND id > $6::text)) \
             ORDER BY created_at, id LIMIT $7::bigint"
        );
        let state = b.state.map(State::as_str);
        let (after_at, after_id) = b.after_task.as_ref().map(|(at, id)| (at, id)).unzip();
        // A NULL LIMIT is none in PostgreSQL.
        self.rows(
            &sql,
            &[
                &state, &b.tenant, &b.since, &b.until, &after_at, &after_id, &b.fetch,
            ],
        )?
        .iter()
        .map(|r| task_from(r))
        .collect()
    }

    fn events_where(&mut self, b: &Bounds<'_>) -> Result<Vec<(i64, String, String)>> {
        let sql = "SELECT id, body, digest FROM ledger_events \
             WHERE ($1::text IS NULL OR tenant = $1) \
             AND ($2::text IS NULL OR task IN (SELECT id FROM ledger_tasks WHERE state = $2)) \
             AND ($3::bigint IS NULL OR at >= $3) AND ($4::bigint IS NULL OR at < $4) \
             AND ($5::bigint IS NULL OR id > $5) ORDER BY id LIMIT $6::bigint";
        let state = b.state.map(State::as_str);
        self.rows(
            sql,
            &[
                &b.tenant,
                &state,
                &b.since,
                &b.until,
                &b.after_event,
                &b.fetch,
            ],
        )?
        .iter()
        .map(|r| Ok((r.int(0)?, r.text(1)?, r.text(2)?)))
        .collect()
    }

    fn events(&mut self, task: Option<&str>) -> Result<Vec<(String, String)>> {
        let Some(id) = task else {
            let rows = self.rows("SELECT body, digest FROM ledger_events ORDER BY id", &[])?;
            return rows.iter().map(|r| Ok((r.text(0)?, r.text(1)?))).collect();
        };
        let rows = self.rows(&history_sql(self.schema.cutoff, "$1"), &[&id])?;
        let rows = rows
            .iter()
            .map(|r| Ok((r.opt_text(1)?, r.text(2)?, r.text(3)?)))
            .collect::<Result<_>>()?;
        history_of(id, rows)
    }

    fn heads(&mut self) -> Result<Vec<(i64, i64, Option<String>)>> {
        self.rows(
            "SELECT chain, seq, digest FROM ledger_head ORDER BY chain",
            &[],
        )?
        .iter()
        .map(|r| Ok((r.int(0)?, r.int(1)?, r.opt_text(2)?)))
        .collect()
    }

    fn audit_rows(&mut self) -> Result<Vec<(TaskRow, Option<String>)>> {
        self.rows(&audit_rows_sql(self.schema.cutoff), &[])?
            .iter()
            .map(|r| Ok((task_from(r)?, r.opt_text(LAST_EVENT_AT)?)))
            .collect()
    }

    fn audit_round_decisions(&mut self) -> Result<Vec<RoundDecisionRow>> {
        self.rows(&audit_round_decisions_sql(), &[])?
            .iter()
            .map(|r| round_decision_from(r))
            .collect()
    }

    fn append(&mut self, e: Event) {
        self.events.push(e);
    }
}
