//! One attempt's transaction on PostgreSQL: its reads, its deferred writes and their last
//! statement, and the rows it reads.

use super::known::{Known, Learned};
use super::{last, pg_error, Failure, Schema, FIRST};
use crate::store::{
    amendment_from, approval_from, audit_rows_sql, budget_from, by_chain, defer, history_of,
    history_sql, policy_from, put_sign_count_sql, round_task, storage, task_from, AmendmentRow,
    ApprovalRow, BudgetRow, Cols, Links, PolicyRow, TaskRow, Tx, Write, AFTER_APPROVAL,
    AMENDMENT_COLUMNS, APPROVAL_COLUMNS, BUDGET_COLUMNS, LAST_EVENT_AT, POLICY_COLUMNS,
    TASK_COLUMNS,
};
use actionseal_core::ledger::{Event, State};
use actionseal_core::Digest;
use actionseal_core::{Error, Result};
use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Client, SimpleQueryMessage, Statement};
use std::collections::HashMap;

pub(super) struct PgTx<'a> {
    pub(super) client: &'a mut Client,
    /// Whether the session has prepared the [`FIRST`] statements.
    pub(super) named: &'a mut bool,
    /// Whether the transaction has begun: a write begins it with its first statement.
    pub(super) begun: bool,
    pub(super) statements: &'a mut HashMap<String, Statement>,
    pub(super) shaped: &'a mut HashMap<Vec<u8>, Statement>,
    pub(super) events: Vec<Event>,
    /// Row writes deferred to the last statement (writes only).
    pub(super) writes: Vec<Write>,
    /// Whether reads of a task or a budget lock the row (writes) or not (reads).
    pub(super) locking: bool,
    /// Whether a proposal may skip looking for its task (the first attempt of a write): its
    /// insert then fails on an existing task, and the operation runs again and looks.
    pub(super) optimistic: bool,
    /// Whether the proposal skipped looking: its task is inserted without `ON CONFLICT`.
    pub(super) unseen: bool,
    /// The approval round read with its task in the first round trip of a decision.
    pub(super) round: Option<ApprovalRow>,
    /// Whether a decision skipped looking for its decision id (the first attempt): only a new
    /// decision may then commit; any other outcome runs the operation again, looking.
    pub(super) decision_unseen: bool,
    /// Whether the operation reads its task without a lock and outside a transaction (the
    /// first attempt of a write): its last statement then writes only if the task is still
    /// as read, and is its own transaction (see `last::statement`'s gate). An operation that
    /// needs more (a budget, several tasks, a read of its own) runs again under locks.
    pub(super) free: bool,
    /// Whether a free attempt met something it cannot do without locks.
    pub(super) relock: bool,
    /// The tasks as this ledger last wrote them, which a free attempt reads instead.
    pub(super) known: &'a Known,
    /// Whether the attempt took a task from `known`, and whether a gated statement then
    /// proved it current: an answer from a guess that nothing proved is not given (the
    /// operation runs again, reading).
    pub(super) guessed: bool,
    pub(super) proved: bool,
    /// What the transaction's commit will teach `known`.
    pub(super) learned: Learned,
    /// The first driver error: the transaction is aborted, and the caller decides whether to
    /// run the operation again.
    pub(super) failed: Option<postgres::Error>,
    /// The last event of each task read or created, for the next event about it to link to.
    pub(super) links: Links,
    pub(super) schema: Schema,
}

struct PgRow(postgres::Row);

/// A row of a simple query: every column as text (or NULL).
struct SimpleRow(postgres::SimpleQueryRow);

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

/// Whether `id` is an id the ledger derives: `prefix` and 32 lowercase hex digits (nothing
/// that could end a quoted SQL string).
fn derived(id: &str, prefix: &str) -> bool {
    id.strip_prefix(prefix).is_some_and(|hex| {
        hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

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
    fn linked(&mut self, r: &dyn Cols) -> Result<TaskRow> {
        let t = task_from(r)?;
        self.links.set(&t.id, r.int(LAST_EVENT_AT)?);
        Ok(t)
    }

    fn fail(&mut self, e: postgres::Error) -> Error {
        let coded = pg_error("query", &e);
        if self.failed.is_none() {
            self.failed = Some(e);
        }
        coded
    }

    /// Begins the transaction if it has not begun yet.
    fn begin(&mut self) -> Result<()> {
        if self.free {
            self.relock = true;
            return Err(storage("read", "this operation reads under locks"));
        }
        if !self.begun {
            if let Err(e) = self.client.batch_execute("BEGIN") {
                return Err(self.fail(e));
            }
            self.begun = true;
        }
        Ok(())
    }

    /// Begins the transaction with one of the [`FIRST`] statements, sent in the same round
    /// trip as `BEGIN` (a simple query, so without parameters: the caller passes only an id
    /// it has checked to be one the ledger derives, hex digits behind a fixed prefix, which
    /// goes into the text).
    fn begin_with(&mut self, name: &str, id: &str) -> Result<Vec<SimpleRow>> {
        Ok(self
            .begin_with_all(&[(name, id)])?
            .pop()
            .unwrap_or_default())
    }

    /// [`PgTx::begin_with`] for several of the [`FIRST`] statements, run in order in the one
    /// round trip, each with a snapshot of its own (read committed): the rows of each.
    fn begin_with_all(&mut self, statements: &[(&str, &str)]) -> Result<Vec<Vec<SimpleRow>>> {
        debug_assert!(!self.begun);
        debug_assert!(statements
            .iter()
            .all(|(_, id)| derived(id, "task_") || derived(id, "apr_")));
        if !*self.named {
            let first = FIRST
                .replace("{TASK_COLUMNS}", TASK_COLUMNS)
                .replace("{APPROVAL_COLUMNS}", APPROVAL_COLUMNS);
            if let Err(e) = self.client.batch_execute(&first) {
                return Err(self.fail(e));
            }
            *self.named = true;
        }
        // A free read takes no lock and begins no transaction.
        let (mut query, free) = if self.free {
            (String::new(), "_free")
        } else {
            ("BEGIN; ".to_owned(), "")
        };
        for (i, (name, id)) in statements.iter().enumerate() {
            let free = if *name == "ledger_round" { "" } else { free };
            let sep = if i == 0 { "" } else { "; " };
            query += &format!("{sep}EXECUTE {name}{free}('{id}')");
        }
        match self.client.simple_query(&query) {
            Ok(messages) => {
                self.begun = !self.free;
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
                groups.truncate(statements.len() + usize::from(self.begun));
                if self.begun {
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
            Err(e) => {
                // BEGIN may have run before the SELECT failed.
                self.begun = !self.free;
                Err(self.fail(e))
            }
        }
    }

    /// Ends a transaction that was not committed (a failure, or a refusal before any write).
    pub(super) fn end(&mut self) {
        if self.begun {
            let _ = self.client.batch_execute("ROLLBACK");
            self.begun = false;
        }
    }

    fn statement(&mut self, sql: &str) -> Result<Statement> {
        self.begin()?;
        self.prepared(sql)
    }

    /// `sql`, prepared once per connection.
    fn prepared(&mut self, sql: &str) -> Result<Statement> {
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

    fn rows(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<PgRow>> {
        let st = self.statement(sql)?;
        match self.client.query(&st, params) {
            Ok(rows) => Ok(rows.into_iter().map(PgRow).collect()),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn exec(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64> {
        let st = self.statement(sql)?;
        match self.client.execute(&st, params) {
            Ok(n) => Ok(n),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn lock(&self) -> &'static str {
        if self.locking {
            " FOR UPDATE"
        } else {
            ""
        }
    }

    /// Sends the deferred writes and the events, one statement per chain (the writes go with
    /// the first), and checks what each write changed.
    pub(super) fn flush(&mut self) -> std::result::Result<(), Failure> {
        let coded = |this: &mut Self, e: Error| match this.failed.take() {
            Some(d) => Failure::Driver(d),
            None => Failure::Coded(e),
        };
        let mut writes = std::mem::take(&mut self.writes);
        let chains = by_chain(std::mem::take(&mut self.events));
        // A task with events but no other write of its row still moves its last event.
        for e in chains.iter().flat_map(|(_, events)| events) {
            if let Some(task) = &e.task {
                if !writes.iter().any(|w| w.task_id() == Some(task)) {
                    writes.push(Write::Link(task.clone()));
                }
            }
        }
        // A free operation writes about the one task it read, with its events, in one
        // statement gated on the task being as read; anything else runs again under locks.
        // (A proposal that did not look for its task inserts it in a statement of its own,
        // which fails on an existing one.)
        let gate = if self.free && !self.unseen {
            let gate = self.links.only().filter(|(task, _)| {
                chains.len() == 1
                    && writes.iter().all(|w| {
                        !matches!(w, Write::InsertTask(_)) && w.task_id().is_none_or(|t| t == *task)
                    })
            });
            match gate {
                Some((task, version)) => Some((task.to_owned(), version)),
                None => return Err(Failure::Again),
            }
        } else {
            None
        };
        // An operation that read nothing (a proposal that did not look for its task) or read
        // freely, and writes in one statement, needs no BEGIN and COMMIT: that statement is
        // its transaction. Anything longer runs in one.
        let alone = !self.begun && chains.len() <= 1;
        // One statement per chain. A task's row goes with its events (the statement that
        // gives them their ids), the other writes with the first statement.
        let mut statements: Vec<(Option<last::Chain>, Vec<Write>)> =
            chains.into_iter().map(|c| (Some(c), Vec::new())).collect();
        if statements.is_empty() {
            statements.push((None, Vec::new()));
        }
        for w in writes {
            let home = w.task_id().and_then(|task| {
                statements.iter().position(|(chain, _)| {
                    chain.as_ref().is_some_and(|(_, events)| {
                        events.iter().any(|e| e.task.as_deref() == Some(task))
                    })
                })
            });
            statements[home.unwrap_or(0)].1.push(w);
        }
        for (chain, writes) in statements {
            if chain.is_none() && writes.is_empty() {
                return Ok(());
            }
            // What its commit will teach: a task row it writes whole, with the statement's
            // last event about it; any other task it touches is forgotten.
            let last_about = chain
                .as_ref()
                .and_then(|(_, events)| events.last())
                .and_then(|e| e.task.clone());
            let mut rows: Vec<TaskRow> = Vec::new();
            for w in &writes {
                match w {
                    Write::UpdateTask { row, .. } | Write::InsertTask(row) => {
                        rows.push(row.clone())
                    }
                    Write::PutApproval(a) => self.learned.round(a.clone()),
                    Write::Link(task) => self.learned.forget(task),
                    Write::InsertDecision { .. } => {}
                }
            }
            let shape = last::shape(&writes, chain.as_ref(), self.unseen, gate.is_some());
            let known = self.shaped.get(&shape).cloned();
            // The text is built and prepared once per shape and session.
            let last = match last::statement(
                writes,
                chain,
                self.unseen,
                gate.as_ref()
                    .map(|(task, version)| (task.as_str(), *version)),
                known.is_none(),
                &self.links,
                self.schema.sequence,
            ) {
                Ok(last) => last,
                Err(e) => return Err(coded(self, e)),
            };
            let params: Vec<&(dyn ToSql + Sync)> = last
                .params
                .iter()
                .map(|p| &**p as &(dyn ToSql + Sync))
                .collect();
            let st = match known {
                Some(st) => Ok(st),
                None => self.prepared(&last.sql).inspect(|st| {
                    self.shaped.insert(shape, st.clone());
                }),
            };
            let sent = st
                .and_then(|st| {
                    if alone {
                        Ok(st)
                    } else {
                        self.begin().map(|()| st)
                    }
                })
                .and_then(|st| {
                    self.client
                        .query(&st, &params)
                        .map(|rows| rows.into_iter().map(PgRow).collect::<Vec<_>>())
                        .map_err(|e| self.fail(e))
                });
            let result = match sent {
                Ok(rows) => rows,
                Err(_) if self.unseen && self.failed.as_ref().is_some_and(exists) => {
                    // The proposal's task exists: run it again, looking this time.
                    return Err(Failure::Again);
                }
                Err(e) => return Err(coded(self, e)),
            };
            let Some(row) = result.first() else {
                if let Some((task, _)) = &gate {
                    // The task changed since it was read (or guessed), and nothing was written.
                    self.known.forget(task);
                    return Err(Failure::Again);
                }
                return Err(coded(self, storage("audit head", "missing")));
            };
            for (i, expect) in last.expect.iter().enumerate() {
                match (row.int(i), expect) {
                    (Ok(1), _) => {}
                    (Ok(0), last::Expect::New) => return Err(Failure::Again),
                    (Ok(n), _) => {
                        return Err(coded(
                            self,
                            storage("write", format!("{n} rows changed where 1 was locked")),
                        ))
                    }
                    (Err(e), _) => return Err(coded(self, e)),
                }
            }
            self.proved |= gate.is_some();
            let last_event = match (&last_about, row.int(last.expect.len())) {
                (Some(_), Ok(id)) => Some(id),
                _ => None,
            };
            match (rows.as_slice(), last_event) {
                ([one], Some(id)) if last_about.as_deref() == Some(one.id.as_str()) => {
                    self.learned.task(rows.swap_remove(0), id)
                }
                _ => rows.iter().for_each(|r| self.learned.forget(&r.id)),
            }
        }
        Ok(())
    }
}

/// Whether an insert failed on a key that exists.
fn exists(e: &postgres::Error) -> bool {
    e.code() == Some(&SqlState::UNIQUE_VIOLATION)
}

impl Tx for PgTx<'_> {
    fn proposed_task(&mut self, id: &str) -> Result<Option<TaskRow>> {
        if self.optimistic && !self.begun {
            // Most proposals are new: insert without looking (see `flush`).
            self.unseen = true;
            return Ok(None);
        }
        self.task(id)
    }

    fn task_of_approval(&mut self, approval_id: &str) -> Result<Option<TaskRow>> {
        if self.free {
            if let Some((round, task, last)) = self.known.round_task(approval_id) {
                self.links.set(&task.id, last);
                self.round = Some(round);
                self.guessed = true;
                return Ok(Some(task));
            }
        }
        if self.locking && !self.begun && derived(approval_id, "apr_") {
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
        if self.free {
            if let Some((task, last)) = self.known.task(id) {
                self.links.set(id, last);
                self.guessed = true;
                return Ok(Some(task));
            }
        }
        if self.locking && !self.begun && derived(id, "task_") {
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
        if self.locking && !self.begun && derived(approval_id, "apr_") {
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
        if self.optimistic {
            if let Some(a) = self.round.take().filter(|a| a.approval_id == approval_id) {
                // Most decisions are new: the id is not looked up. Its insert then changes
                // nothing on a recorded id, and any outcome but a new decision runs the
                // operation again, looking (see `attempt_write`).
                self.decision_unseen = true;
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

    fn list_tasks(&mut self, state: Option<State>, tenant: Option<&str>) -> Result<Vec<TaskRow>> {
        let sql = format!(
            "SELECT {TASK_COLUMNS} FROM ledger_tasks WHERE ($1::text IS NULL OR state = $1) \
             AND ($2::text IS NULL OR tenant = $2) ORDER BY created_at, id"
        );
        let state = state.map(State::as_str);
        self.rows(&sql, &[&state, &tenant])?
            .iter()
            .map(|r| task_from(r))
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

    fn append(&mut self, e: Event) {
        self.events.push(e);
    }
}
