//! The shared backend: one PostgreSQL database for many executors on many machines.
//!
//! An operation decides in Rust from what it read, and sends everything it writes (its task,
//! approval and budget rows, its audit events and the move of their chain head) in its last
//! statement (`last`, sent by `flush`). It runs as a series of attempts: the write loop
//! (`Postgres::write`) chooses each one's [`Attempt`], and an attempt that cannot answer
//! gives a [`Retry`], which is logged at debug level and counted ([`Postgres::retries`]).
//!
//! | [`Attempt`] | reads | locks | writes | falls back to |
//! |---|---|---|---|---|
//! | `Snapshot` (a read) | all in one `REPEATABLE READ READ ONLY` transaction | nothing | nothing | nothing: an error is the answer |
//! | `Free` (a write's first attempt) | its task without a lock or transaction (`first`), or from memory when this ledger wrote it last (`in_flight`); a proposal does not look for its task, a decision not for its id ([`Trust`]) | nothing until its last statement, which locks the task's row (the gate) and the chain head | one statement, its own transaction, only if the task's last event is as read (a proposal's: ungated, failing on an existing task) | `Locked`, on any `Retry` |
//! | `Locked` (every later attempt) | in one `READ COMMITTED` transaction whose `BEGIN` goes with its first read; a task, budget or passkey counter `FOR UPDATE` | task, budget, chain head, always in that order (the head only for the last statement and the commit) | one statement per chain, then `COMMIT` | `Locked` again on `race_lost`, `serialization` or `deadlock`, at most `MAX_ATTEMPTS` attempts in all |
//!
//! | [`Retry`] | ends | why |
//! |---|---|---|
//! | `locks` | `Free` | it needed a transaction: a read of its own, a budget, a passkey counter, a second statement |
//! | `ungated` | `Free` | its writes were not all about its one task in one chain |
//! | `moved` | `Free` | its gated statement wrote nothing: the task (an item's lineage or batch) moved since read or remembered (or its decision was recorded meanwhile) |
//! | `unproved` | `Free` | it answered from a remembered task that no gated statement proved current |
//! | `remembered_failed` | `Free` | it failed on a remembered task, which may be out of date |
//! | `decision_unchecked` | `Free` | a decision that did not look up its id answered other than with a new decision |
//! | `proposal_exists` | `Free` | a proposal that did not look for its task found it created |
//! | `race_lost` | any write | a task or decision it inserts was created first by another transaction |
//! | `serialization` | any write | serialization failure (SQLSTATE 40001) |
//! | `deadlock` | any write | deadlock detected (SQLSTATE 40P01) |
//!
//! Under locks, operations on one task run one after another and each sees the last one's
//! commit; single use is also enforced by the conditional
//! `UPDATE ... WHERE state = $expected AND fence = $expected`. The first read of a write is a
//! simple query (`BEGIN; EXECUTE name('id')`, or without `BEGIN` when free) of statements the
//! session prepared once: only ids the ledger derives, checked to be a prefix and hex digits,
//! are written into its text. So a free attempt is two round trips (read, write), a locked
//! claim or completion three (begin with the locked read, write, commit), a locked decision
//! four (its round's task locked, then its round and decision id; write; commit). An
//! operation on a batch's item reads its lineage, that lineage's current batch's head, its
//! item row and its task in its first round trip (`batches`). Free, it reads them without
//! locks, and its one statement locks the lineage (shared, unless it writes the lineage's
//! totals or breaker), the batch and the task in that order and writes only if each is
//! still as read (`last`): a claim is two round trips. Locked, it takes them in that order,
//! and its lineage's write goes with its last statement: three (that read, the last
//! statement, commit). A trigger refuses UPDATE, DELETE and TRUNCATE on the events table.

mod attempt;
mod batches;
mod disclosures;
mod first;
mod flush;
mod in_flight;
mod item_gate;
mod last;
mod migrate;
mod scrub;
mod tree;
mod tx;
mod wake;

use crate::sync::locked;
use attempt::{Attempt, Lookup, Retries, Retry, TaskBasis, Trust};
use in_flight::InFlight;
use migrate::migrate;
use tx::PgTx;
pub(crate) use wake::Watch;

use crate::clock::Clock;
use crate::store::{storage, Done, Tx, MAX_ATTEMPTS};
use actionseal_core::{Code, Error, Result};
use postgres::error::SqlState;
use postgres::{Client, Config, NoTls, Statement};
use std::collections::{BTreeMap, HashMap};
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Duration;

pub(crate) struct Postgres {
    config: Config,
    idle: Mutex<Vec<Conn>>,
    /// The schema's facts every transaction needs, read once at open.
    schema: Schema,
    /// The tasks in flight as this ledger last wrote them.
    in_flight: InFlight,
    /// How many attempts ran again, by reason.
    retries: Retries,
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
    /// Whether this session has prepared the `first::FIRST` statements.
    named: bool,
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

/// The reason to run an attempt again that a driver error gives, if any.
fn retry_of(e: &postgres::Error) -> Option<Retry> {
    match e.code() {
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE => Some(Retry::Serialization),
        Some(c) if *c == SqlState::T_R_DEADLOCK_DETECTED => Some(Retry::Deadlock),
        _ => None,
    }
}

/// An error inside a transaction: either coded already, or the driver's (kept for retry), or
/// a reason to run the operation again.
enum Failure {
    Coded(Error),
    Driver(postgres::Error),
    Again(Retry),
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
            in_flight: InFlight::default(),
            retries: Retries::default(),
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
        let idle = locked(&self.idle).pop();
        match idle {
            Some(c) if !c.client.is_closed() => Ok(c),
            _ => self.connect(),
        }
    }

    fn give_back(&self, c: Conn) {
        if !c.client.is_closed() {
            locked(&self.idle).push(c);
        }
    }

    /// How many attempts ran again since this ledger opened, by reason ([`Retry`]'s names).
    pub(crate) fn retries(&self) -> BTreeMap<&'static str, u64> {
        self.retries.by_name()
    }

    /// Runs one operation, first as an [`Attempt::Free`], then as [`Attempt::Locked`] for as
    /// long as an attempt gives a [`Retry`] (at most [`MAX_ATTEMPTS`] attempts in all).
    pub(crate) fn write<T>(
        &self,
        clock: &dyn Clock,
        mut f: impl FnMut(&mut dyn Tx, i64) -> Result<Done<T>>,
    ) -> Result<T> {
        let mut conn = self.take()?;
        let mut n = 0;
        let out = loop {
            n += 1;
            let attempt = if n == 1 {
                Attempt::Free(Trust::default())
            } else {
                Attempt::Locked
            };
            let ptx = PgTx::new(&mut conn, attempt, &self.in_flight, self.schema);
            let retry = match attempt_write(ptx, clock, &mut f) {
                Ok(Done::Ok(v)) => break Ok(v),
                Ok(Done::Refused(e)) => break Err(e),
                Err(Failure::Coded(e)) => break Err(e),
                Err(Failure::Driver(e)) => match retry_of(&e) {
                    Some(retry) if n < MAX_ATTEMPTS => retry,
                    _ => break Err(pg_error("transaction", &e)),
                },
                Err(Failure::Again(retry)) if n < MAX_ATTEMPTS => retry,
                Err(Failure::Again(_)) => {
                    break Err(storage(
                        "insert",
                        "lost the race to create a row every time",
                    ))
                }
            };
            self.retries.count(retry);
            log::debug!(
                "attempt {n} of a ledger operation runs again: {}",
                retry.name()
            );
        };
        self.give_back(conn);
        out
    }

    /// Runs reads in one consistent snapshot ([`Attempt::Snapshot`]).
    pub(crate) fn read<T>(&self, f: impl FnOnce(&mut dyn Tx) -> Result<T>) -> Result<T> {
        let mut conn = self.take()?;
        let mut ptx = PgTx::new(&mut conn, Attempt::Snapshot, &self.in_flight, self.schema);
        let out = (|| {
            ptx.begin_snapshot()?;
            let out = f(&mut ptx);
            if let Some(e) = ptx.failed.take() {
                return Err(pg_error("read", &e));
            }
            let out = out?;
            ptx.commit().map_err(|e| pg_error("end read", &e))?;
            Ok(out)
        })();
        ptx.end();
        self.give_back(conn);
        out
    }
}

/// Runs one attempt of an operation, and decides from what it took on trust whether its
/// answer stands, or why it runs again.
fn attempt_write<T>(
    mut ptx: PgTx<'_>,
    clock: &dyn Clock,
    f: &mut impl FnMut(&mut dyn Tx, i64) -> Result<Done<T>>,
) -> std::result::Result<Done<T>, Failure> {
    let now = clock.now_ms();
    let out = (|| {
        let done = f(&mut ptx, now);
        if let Some(retry) = ptx.again {
            // Nothing was written: run it again, under locks.
            return Err(Failure::Again(retry));
        }
        // A driver error seen inside the operation decides whether to retry it.
        if let Some(e) = ptx.failed.take() {
            return Err(Failure::Driver(e));
        }
        let trust = ptx.trust();
        if trust.decision == Lookup::Skipped && !matches!(done, Ok(Done::Ok(_))) {
            // A decision that did not look for its id may have met a recorded one (a
            // duplicate or a conflict, which come before every other answer): run it again,
            // looking; nothing of this attempt is kept.
            return Err(Failure::Again(Retry::DecisionUnchecked));
        }
        if matches!(trust.task, TaskBasis::Remembered | TaskBasis::Proved) && done.is_err() {
            // An error from a remembered task (written nothing): run it again, reading.
            return Err(Failure::Again(Retry::RememberedFailed));
        }
        let done = done.map_err(Failure::Coded)?;
        ptx.flush()?;
        if ptx.trust().task == TaskBasis::Remembered {
            return Err(Failure::Again(Retry::Unproved));
        }
        ptx.commit().map_err(Failure::Driver)?;
        ptx.in_flight.learn(std::mem::take(&mut ptx.learned));
        Ok(done)
    })();
    ptx.end();
    out
}
