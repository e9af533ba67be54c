//! The shared backend: one PostgreSQL database for many executors on many machines.
//!
//! Every operation is one READ COMMITTED transaction that first locks its task row
//! (`SELECT ... FOR UPDATE`), so operations on one task run one after another and each sees the
//! last one's commit; single use is then also enforced by the conditional
//! `UPDATE ... WHERE state = $expected AND fence = $expected`. Locks are always taken in the
//! same order (task, budget, audit head), the audit head last and only for the inserts and the
//! commit. Serialization failures and deadlocks are retried inside the operation a bounded
//! number of times. A trigger refuses UPDATE, DELETE and TRUNCATE on the events table.

use crate::clock::Clock;
use crate::store::{
    amendment_from, approval_from, budget_from, by_chain, digest_from, seal, storage, task_from,
    too_new, AmendmentRow, ApprovalRow, BudgetRow, Cols, Done, TaskRow, Tx, AMENDMENT_COLUMNS,
    APPROVAL_COLUMNS, MAX_ATTEMPTS, SCHEMA, SCHEMA_VERSION, TASK_COLUMNS, UPGRADES,
};
use actionseal_core::ledger::{Event, State, CHAINS};
use actionseal_core::Digest;
use actionseal_core::{Code, Error, Result};
use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Client, Config, IsolationLevel, NoTls, Statement};
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Duration;

/// An arbitrary constant: the advisory lock that serialises schema creation between
/// processes opening a fresh database at once.
const MIGRATION_LOCK: i64 = 0x6163_7469_6f6e;

pub(crate) struct Postgres {
    config: Config,
    idle: Mutex<Vec<Conn>>,
}

struct Conn {
    client: Client,
    statements: HashMap<String, Statement>,
}

/// Why an operation failed, and whether running it again may succeed.
fn pg_error(what: &str, e: &postgres::Error) -> Error {
    let io = std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>());
    if e.is_closed() || io {
        return Error::new(Code::LedgerUnavailable, format!("{what}: {e}"));
    }
    match e.as_db_error() {
        Some(db) => storage(what, format!("{} ({})", db.message(), db.code().code())),
        None => storage(what, e),
    }
}

fn retryable(e: &postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED
    )
}

/// An error inside a transaction: either coded already, or the driver's (kept for retry).
enum Failure {
    Coded(Error),
    Driver(postgres::Error),
}

impl Postgres {
    pub(crate) fn open(url: &str) -> Result<Postgres> {
        let mut config = Config::from_str(url).map_err(|e| {
            Error::new(
                Code::InvalidLedgerUrl,
                format!("{url:?} is not a PostgreSQL URL: {e}"),
            )
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        let pg = Postgres {
            config,
            idle: Mutex::new(Vec::new()),
        };
        let mut conn = pg.connect()?;
        migrate(&mut conn.client)?;
        pg.give_back(conn);
        Ok(pg)
    }

    fn connect(&self) -> Result<Conn> {
        let client = self.config.connect(NoTls).map_err(|e| {
            Error::new(
                Code::LedgerUnavailable,
                format!("cannot reach PostgreSQL: {e}"),
            )
        })?;
        Ok(Conn {
            client,
            statements: HashMap::new(),
        })
    }

    fn take(&self) -> Result<Conn> {
        let idle = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        match idle {
            Some(c) if !c.client.is_closed() => Ok(c),
            _ => self.connect(),
        }
    }

    fn give_back(&self, c: Conn) {
        if !c.client.is_closed() {
            self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(c);
        }
    }

    /// Runs one operation in one transaction, re-running it after a serialization failure or
    /// a deadlock (at most [`MAX_ATTEMPTS`] times).
    pub(crate) fn write<T>(
        &self,
        clock: &dyn Clock,
        mut f: impl FnMut(&mut dyn Tx, i64) -> Result<Done<T>>,
    ) -> Result<T> {
        let mut conn = self.take()?;
        let mut attempt = 0;
        let out = loop {
            attempt += 1;
            match attempt_write(&mut conn, clock, &mut f) {
                Ok(Done::Ok(v)) => break Ok(v),
                Ok(Done::Refused(e)) => break Err(e),
                Err(Failure::Driver(e)) if retryable(&e) && attempt < MAX_ATTEMPTS => continue,
                Err(Failure::Driver(e)) => break Err(pg_error("transaction", &e)),
                Err(Failure::Coded(e)) => break Err(e),
            }
        };
        self.give_back(conn);
        out
    }

    /// Runs reads in one consistent snapshot.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&mut dyn Tx) -> Result<T>) -> Result<T> {
        let mut conn = self.take()?;
        let out = (|| {
            let tx = conn
                .client
                .build_transaction()
                .isolation_level(IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()
                .map_err(|e| pg_error("begin", &e))?;
            let mut ptx = PgTx {
                tx,
                statements: &mut conn.statements,
                events: Vec::new(),
                locking: false,
                failed: None,
            };
            let out = f(&mut ptx);
            if let Some(e) = ptx.failed.take() {
                return Err(pg_error("read", &e));
            }
            let out = out?;
            ptx.tx.commit().map_err(|e| pg_error("end read", &e))?;
            Ok(out)
        })();
        self.give_back(conn);
        out
    }
}

fn attempt_write<T>(
    conn: &mut Conn,
    clock: &dyn Clock,
    f: &mut impl FnMut(&mut dyn Tx, i64) -> Result<Done<T>>,
) -> std::result::Result<Done<T>, Failure> {
    let tx = conn.client.transaction().map_err(Failure::Driver)?;
    let now = clock.now_ms();
    let mut ptx = PgTx {
        tx,
        statements: &mut conn.statements,
        events: Vec::new(),
        locking: true,
        failed: None,
    };
    let done = f(&mut ptx, now);
    // A driver error seen inside the operation decides whether to retry it.
    if let Some(e) = ptx.failed.take() {
        return Err(Failure::Driver(e));
    }
    let done = done.map_err(Failure::Coded)?;
    ptx.flush()?;
    ptx.tx.commit().map_err(Failure::Driver)?;
    Ok(done)
}

fn migrate(client: &mut Client) -> Result<()> {
    let mut tx = client.transaction().map_err(|e| pg_error("migrate", &e))?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(|e| pg_error("migrate", &e))?;
    let exists: bool = tx
        .query_one("SELECT to_regclass('ledger_schema') IS NOT NULL", &[])
        .and_then(|r| r.try_get(0))
        .map_err(|e| pg_error("migrate", &e))?;
    if exists {
        let version: Option<i64> = tx
            .query_one("SELECT MAX(version) FROM ledger_schema", &[])
            .and_then(|r| r.try_get(0))
            .map_err(|e| pg_error("schema version", &e))?;
        let version = version.unwrap_or(0);
        if version > SCHEMA_VERSION {
            return Err(too_new(version));
        }
        for (to, ddl) in UPGRADES.iter().filter(|(to, _)| *to > version) {
            tx.batch_execute(&ddl.replace("{int}", "BIGINT"))
                .and_then(|()| {
                    tx.execute("INSERT INTO ledger_schema (version) VALUES ($1)", &[to])
                        .map(|_| ())
                })
                .map_err(|e| pg_error("upgrade schema", &e))?;
        }
        return tx.commit().map_err(|e| pg_error("migrate", &e));
    }
    let ddl = SCHEMA.replace("{int}", "BIGINT");
    tx.batch_execute(&ddl)
        .and_then(|()| {
            tx.batch_execute(
                "CREATE FUNCTION ledger_events_append_only() RETURNS trigger LANGUAGE plpgsql AS
                 $$ BEGIN RAISE EXCEPTION 'ledger_events is append-only'; END $$;
                 CREATE TRIGGER ledger_events_no_change BEFORE UPDATE OR DELETE ON ledger_events
                   FOR EACH ROW EXECUTE FUNCTION ledger_events_append_only();
                 CREATE TRIGGER ledger_events_no_truncate BEFORE TRUNCATE ON ledger_events
                   FOR EACH STATEMENT EXECUTE FUNCTION ledger_events_append_only();
                 CREATE TABLE ledger_schema (version BIGINT NOT NULL);",
            )
        })
        .and_then(|()| {
            tx.execute(
                "INSERT INTO ledger_schema (version) VALUES ($1)",
                &[&SCHEMA_VERSION],
            )
            .map(|_| ())
        })
        .and_then(|()| {
            tx.execute(
                "INSERT INTO ledger_head SELECT c, 0, NULL FROM generate_series(0, $1::bigint - 1) AS c",
                &[&CHAINS],
            )
            .map(|_| ())
        })
        .map_err(|e| pg_error("create schema", &e))?;
    tx.commit().map_err(|e| pg_error("create schema", &e))
}

struct PgTx<'a> {
    tx: postgres::Transaction<'a>,
    statements: &'a mut HashMap<String, Statement>,
    events: Vec<Event>,
    /// Whether reads of a task or a budget lock the row (writes) or not (reads).
    locking: bool,
    /// The first driver error: the transaction is aborted, and the caller decides whether to
    /// run the operation again.
    failed: Option<postgres::Error>,
}

struct PgRow(postgres::Row);

impl Cols for PgRow {
    fn text(&self, i: usize) -> Result<String> {
        self.0.try_get(i).map_err(|e| pg_error("read", &e))
    }
    fn opt_text(&self, i: usize) -> Result<Option<String>> {
        self.0.try_get(i).map_err(|e| pg_error("read", &e))
    }
    fn int(&self, i: usize) -> Result<i64> {
        self.0.try_get(i).map_err(|e| pg_error("read", &e))
    }
    fn opt_int(&self, i: usize) -> Result<Option<i64>> {
        self.0.try_get(i).map_err(|e| pg_error("read", &e))
    }
}

impl PgTx<'_> {
    fn fail(&mut self, e: postgres::Error) -> Error {
        let coded = pg_error("query", &e);
        if self.failed.is_none() {
            self.failed = Some(e);
        }
        coded
    }

    fn statement(&mut self, sql: &str) -> Result<Statement> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        match self.tx.prepare(sql) {
            Ok(s) => {
                self.statements.insert(sql.to_owned(), s.clone());
                Ok(s)
            }
            Err(e) => Err(self.fail(e)),
        }
    }

    fn rows(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<PgRow>> {
        let st = self.statement(sql)?;
        match self.tx.query(&st, params) {
            Ok(rows) => Ok(rows.into_iter().map(PgRow).collect()),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn exec(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64> {
        let st = self.statement(sql)?;
        match self.tx.execute(&st, params) {
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

    fn flush(&mut self) -> std::result::Result<(), Failure> {
        let coded = |this: &mut Self, e: Error| match this.failed.take() {
            Some(d) => Failure::Driver(d),
            None => Failure::Coded(e),
        };
        for (chain, mut events) in by_chain(std::mem::take(&mut self.events)) {
            // Lock this chain's head last and hold it only for the inserts and the commit.
            let head = match self.rows(
                "SELECT seq, digest FROM ledger_head WHERE chain = $1 FOR UPDATE",
                &[&chain],
            ) {
                Ok(rows) => match rows
                    .first()
                    .map(|r| Ok::<_, Error>((r.int(0)?, r.opt_text(1)?)))
                {
                    Some(Ok((seq, d))) => match d.as_deref().map(digest_from).transpose() {
                        Ok(d) => (seq, d),
                        Err(e) => return Err(coded(self, e)),
                    },
                    Some(Err(e)) => return Err(coded(self, e)),
                    None => return Err(coded(self, storage("audit head", "missing"))),
                },
                Err(e) => return Err(coded(self, e)),
            };
            let (sealed, _) = seal(&mut events, head);
            let n = sealed.len();
            for (i, (e, (seq, text, digest))) in events.iter().zip(&sealed).enumerate() {
                let kind = e.kind.as_str();
                let digest = digest.to_string();
                // The last insert moves the head in the same statement: one round trip fewer
                // while the head is locked.
                let sql = if i + 1 == n {
                    "WITH e AS (INSERT INTO ledger_events \
                     (chain, seq, at, tenant, task, kind, body, digest) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)) \
                     UPDATE ledger_head SET seq = $2, digest = $8 WHERE chain = $1"
                } else {
                    "INSERT INTO ledger_events (chain, seq, at, tenant, task, kind, body, digest) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
                };
                if let Err(err) = self.exec(
                    sql,
                    &[&chain, seq, &e.at, &e.tenant, &e.task, &kind, text, &digest],
                ) {
                    return Err(coded(self, err));
                }
            }
        }
        Ok(())
    }
}

impl Tx for PgTx<'_> {
    fn task(&mut self, id: &str) -> Result<Option<TaskRow>> {
        let sql = format!(
            "SELECT {TASK_COLUMNS} FROM ledger_tasks WHERE id = $1{}",
            self.lock()
        );
        self.rows(&sql, &[&id])?
            .pop()
            .map(|r| task_from(&r))
            .transpose()
    }

    fn insert_task(&mut self, t: &TaskRow) -> Result<bool> {
        let sql = format!(
            "INSERT INTO ledger_tasks ({TASK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, \
             $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24) \
             ON CONFLICT DO NOTHING"
        );
        let state = t.state.as_str();
        let digest = t.action_digest.to_string();
        let required = i64::from(t.approval_required);
        let proposed_digest = t.proposed_digest.map(|d| d.to_string());
        let n = self.exec(
            &sql,
            &[
                &t.id,
                &t.tenant,
                &t.job_id,
                &t.request_id,
                &state,
                &t.action,
                &digest,
                &required,
                &t.cost_minor,
                &t.idempotency_key,
                &t.proposer,
                &t.fence,
                &t.round,
                &t.approval_id,
                &t.executor,
                &t.lease_until,
                &t.budget,
                &t.reserved,
                &t.result,
                &t.created_at,
                &t.updated_at,
                &t.proposed_action,
                &proposed_digest,
                &t.amendments,
            ],
        )?;
        Ok(n == 1)
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
             proposed_digest = $4, amendments = $5, updated_at = $6 \
             WHERE id = $7 AND state = $8 AND action_digest = $9",
            &[
                &t.action,
                &digest,
                &t.proposed_action,
                &proposed_digest,
                &t.amendments,
                &t.updated_at,
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

    fn update_task(&mut self, t: &TaskRow, expect: State, expect_fence: i64) -> Result<bool> {
        let state = t.state.as_str();
        let expect = expect.as_str();
        let n = self.exec(
            "UPDATE ledger_tasks SET state = $1, fence = $2, round = $3, approval_id = $4, \
             executor = $5, lease_until = $6, budget = $7, reserved = $8, result = $9, \
             updated_at = $10 WHERE id = $11 AND state = $12 AND fence = $13",
            &[
                &state,
                &t.fence,
                &t.round,
                &t.approval_id,
                &t.executor,
                &t.lease_until,
                &t.budget,
                &t.reserved,
                &t.result,
                &t.updated_at,
                &t.id,
                &expect,
                &expect_fence,
            ],
        )?;
        Ok(n == 1)
    }

    fn approval(&mut self, approval_id: &str) -> Result<Option<ApprovalRow>> {
        let sql = format!("SELECT {APPROVAL_COLUMNS} FROM ledger_approvals WHERE approval_id = $1");
        self.rows(&sql, &[&approval_id])?
            .pop()
            .map(|r| approval_from(&r))
            .transpose()
    }

    fn put_approval(&mut self, a: &ApprovalRow) -> Result<()> {
        self.exec(
            "INSERT INTO ledger_approvals (approval_id, task_id, round, decision_id, record, \
             revoked_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (approval_id) DO UPDATE \
             SET decision_id = excluded.decision_id, record = excluded.record, \
             revoked_at = excluded.revoked_at",
            &[
                &a.approval_id,
                &a.task_id,
                &a.round,
                &a.decision_id,
                &a.record,
                &a.revoked_at,
            ],
        )
        .map(|_| ())
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
        let n = self.exec(
            "INSERT INTO ledger_decisions (decision_id, approval_id, envelope, recorded_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            &[&decision_id, &approval_id, &envelope, &at],
        )?;
        Ok(n == 1)
    }

    fn budget(&mut self, name: &str) -> Result<Option<BudgetRow>> {
        let sql = format!(
            "SELECT name, limit_minor, spent_minor, reserved_minor FROM ledger_budgets \
             WHERE name = $1{}",
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
            &[&b.name, &b.limit, &b.spent, &b.reserved],
        )
        .map(|_| ())
    }

    fn expired_leases(&mut self, now: i64) -> Result<Vec<String>> {
        self.rows(
            "SELECT id FROM ledger_tasks WHERE state = 'claimed' AND lease_until <= $1 \
             ORDER BY lease_until",
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
        let rows = match task {
            Some(id) => self.rows(
                "SELECT body, digest FROM ledger_events WHERE task = $1 ORDER BY chain, seq",
                &[&id],
            )?,
            None => self.rows(
                "SELECT body, digest FROM ledger_events ORDER BY chain, seq",
                &[],
            )?,
        };
        rows.iter().map(|r| Ok((r.text(0)?, r.text(1)?))).collect()
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

    fn append(&mut self, e: Event) {
        self.events.push(e);
    }
}
