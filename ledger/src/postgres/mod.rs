//! The shared backend: one PostgreSQL database for many executors on many machines.
//!
//! Every operation is one READ COMMITTED transaction. Its first attempt reads its task
//! without a lock and outside a transaction, decides in Rust, and sends everything it writes
//! in one statement that is its own transaction and writes only if the task is still as read
//! (its last event unchanged, checked under the row's lock; see `last::statement`): all or
//! nothing. A task this ledger itself wrote last is not even read: its row as written is
//! kept (see `known`), and the gate proves it current. When the task moved meanwhile, or the
//! operation needs more (a budget, a read of its own), it runs again the locking way: the transaction first locks its task row
//! (`SELECT ... FOR UPDATE`), so operations on one task run one after another and each sees the
//! last one's commit; single use is then also enforced by the conditional
//! `UPDATE ... WHERE state = $expected AND fence = $expected`. The task, approval and budget
//! rows an operation writes go to the server in its last statement, with its audit events and
//! the move of their chain head (see `last`). The transaction's BEGIN travels with its first
//! read (a simple query `BEGIN; EXECUTE name('id')` of a statement the session prepared once,
//! which takes no parameters: only ids the ledger derives, checked to be a prefix and hex
//! digits, are written into its text), so that a locking claim or completion is three round
//! trips (begin with the locked read of the task, write, commit) and a locking decision four
//! (its round's task, locked, then the round and the decision id, write, commit); a free
//! attempt is two (the read, without BEGIN; the write, without COMMIT). A proposal
//! first inserts without looking, in one statement that is its own transaction (one round
//! trip); when the task exists that insert fails as a whole, and the proposal runs again,
//! looking. Locks are always taken in the same
//! order (task, budget, audit head), the audit head last and only for that statement and the
//! commit. Serialization failures and deadlocks are retried inside the operation a bounded
//! number of times, and so is a proposal that loses the race to create its task. A trigger
//! refuses UPDATE, DELETE and TRUNCATE on the events table.

mod known;
mod last;
mod migrate;
mod tx;

use known::Known;
use migrate::migrate;
use tx::PgTx;

use crate::clock::Clock;
use crate::store::{storage, Done, Links, Tx, MAX_ATTEMPTS};
use actionseal_core::{Code, Error, Result};
use known::Learned;
use postgres::error::SqlState;
use postgres::{Client, Config, NoTls, Statement};
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Duration;

pub(crate) struct Postgres {
    config: Config,
    idle: Mutex<Vec<Conn>>,
    /// The schema's facts every transaction needs, read once at open.
    schema: Schema,
    /// The tasks in flight as this ledger last wrote them.
    known: Known,
}

/// What the schema fixed at open: the last event from before the events were linked per
/// task (see `schema/link_events.sql`), and the oid of the events' identity sequence (an event
/// takes its id in the statement that inserts it, so that its task's row can name it).
#[derive(Clone, Copy, Default)]
struct Schema {
    cutoff: i64,
    sequence: u32,
}

struct Conn {
    client: Client,
    statements: HashMap<String, Statement>,
    /// The last statements prepared, by shape (see [`last::shape`]).
    shaped: HashMap<Vec<u8>, Statement>,
    /// Whether this session has prepared the [`FIRST`] statements.
    named: bool,
}

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

/// An error inside a transaction: either coded already, or the driver's (kept for retry), or
/// a task or decision another transaction created first (run it again: it now finds it).
enum Failure {
    Coded(Error),
    Driver(postgres::Error),
    Again,
}

impl Postgres {
    /// Opens (creating or migrating) the ledger at `url`; `now` dates what opening records.
    pub(crate) fn open(url: &str, now: i64) -> Result<Postgres> {
        let mut config = Config::from_str(url).map_err(|e| {
            Error::new(
                Code::InvalidLedgerUrl,
                format!("{url:?} is not a PostgreSQL URL: {e}"),
            )
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        let mut pg = Postgres {
            config,
            idle: Mutex::new(Vec::new()),
            schema: Schema::default(),
            known: Known::default(),
        };
        let mut conn = pg.connect()?;
        pg.schema = migrate(&mut conn.client, now)?;
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
            shaped: HashMap::new(),
            named: false,
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
            match attempt_write(
                &mut conn,
                self.schema,
                &self.known,
                clock,
                &mut f,
                attempt == 1,
            ) {
                Ok(Done::Ok(v)) => break Ok(v),
                Ok(Done::Refused(e)) => break Err(e),
                Err(Failure::Driver(e)) if retryable(&e) && attempt < MAX_ATTEMPTS => continue,
                Err(Failure::Driver(e)) => break Err(pg_error("transaction", &e)),
                Err(Failure::Coded(e)) => break Err(e),
                Err(Failure::Again) if attempt < MAX_ATTEMPTS => continue,
                Err(Failure::Again) => {
                    break Err(storage(
                        "insert",
                        "lost the race to create a row every time",
                    ))
                }
            }
        };
        self.give_back(conn);
        out
    }

    /// Runs reads in one consistent snapshot.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&mut dyn Tx) -> Result<T>) -> Result<T> {
        let mut conn = self.take()?;
        let out = (|| {
            conn.client
                .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                .map_err(|e| pg_error("begin", &e))?;
            let mut ptx = PgTx {
                client: &mut conn.client,
                named: &mut conn.named,
                begun: true,
                statements: &mut conn.statements,
                shaped: &mut conn.shaped,
                events: Vec::new(),
                writes: Vec::new(),
                locking: false,
                optimistic: false,
                unseen: false,
                round: None,
                decision_unseen: false,
                free: false,
                relock: false,
                known: &self.known,
                guessed: false,
                proved: false,
                learned: Learned::default(),
                failed: None,
                links: Links::default(),
                schema: self.schema,
            };
            let out = (|| {
                let out = f(&mut ptx);
                if let Some(e) = ptx.failed.take() {
                    return Err(pg_error("read", &e));
                }
                let out = out?;
                ptx.client
                    .batch_execute("COMMIT")
                    .map_err(|e| pg_error("end read", &e))?;
                ptx.begun = false;
                Ok(out)
            })();
            ptx.end();
            out
        })();
        self.give_back(conn);
        out
    }
}

fn attempt_write<T>(
    conn: &mut Conn,
    schema: Schema,
    known: &Known,
    clock: &dyn Clock,
    f: &mut impl FnMut(&mut dyn Tx, i64) -> Result<Done<T>>,
    first: bool,
) -> std::result::Result<Done<T>, Failure> {
    let now = clock.now_ms();
    // The transaction begins with the operation's first statement (see `PgTx::begin`).
    let mut ptx = PgTx {
        client: &mut conn.client,
        named: &mut conn.named,
        begun: false,
        statements: &mut conn.statements,
        shaped: &mut conn.shaped,
        events: Vec::new(),
        writes: Vec::new(),
        locking: true,
        optimistic: first,
        unseen: false,
        round: None,
        decision_unseen: false,
        free: first,
        relock: false,
        known,
        guessed: false,
        proved: false,
        learned: Learned::default(),
        failed: None,
        links: Links::default(),
        schema,
    };
    let out = (|| {
        let done = f(&mut ptx, now);
        if ptx.relock {
            // Nothing was written: run it again, under locks.
            return Err(Failure::Again);
        }
        // A driver error seen inside the operation decides whether to retry it.
        if let Some(e) = ptx.failed.take() {
            return Err(Failure::Driver(e));
        }
        if ptx.decision_unseen && !matches!(done, Ok(Done::Ok(_))) {
            // A decision that did not look for its id may have met a recorded one (a
            // duplicate or a conflict, which come before every other answer): run it again,
            // looking; nothing of this attempt is kept.
            return Err(Failure::Again);
        }
        if ptx.guessed && done.is_err() {
            // An error from a guessed task (written nothing): run it again, reading.
            return Err(Failure::Again);
        }
        let done = done.map_err(Failure::Coded)?;
        ptx.flush()?;
        if ptx.guessed && !ptx.proved {
            return Err(Failure::Again);
        }
        if ptx.begun {
            ptx.client
                .batch_execute("COMMIT")
                .map_err(Failure::Driver)?;
            ptx.begun = false;
        }
        known.learn(std::mem::take(&mut ptx.learned));
        Ok(done)
    })();
    ptx.end();
    out
}
