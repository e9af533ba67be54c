//! What an operation needs from a backend inside one transaction. The operations
//! (`ops/`) are written once against this trait; SQLite and PostgreSQL implement it.

mod disclosures;
mod rows;

pub(crate) use disclosures::{disclosure_sql, DisclosureTx};
pub(crate) use rows::{
    amendment_from, approval_from, batch_from, budget_from, columns, disclosure_from, item_from,
    lineage_from, policy_from, retention_from, round_decision_from, task_from, AmendmentRow,
    ApprovalRow, BatchRow, BudgetRow, Cols, DisclosureRow, ItemRow, LineageRow, PolicyRow,
    RetentionRow, RoundDecisionRow, Shifted, TaskRow, AFTER_APPROVAL, AMENDMENT_COLUMNS,
    APPROVAL_COLUMNS, BATCH_COLUMNS, BUDGET_COLUMNS, ITEM_COLUMNS, LAST_EVENT_AT, LINEAGE_COLUMNS,
    POLICY_COLUMNS, ROUND_DECISION_COLUMNS, TASK_COLUMNS,
};

use crate::query::Bounds;
use actionseal_core::ledger::{Event, State};
use actionseal_core::{Code, Digest, Error, Result};

/// How an operation ends inside its transaction. Both commit: a refusal keeps the audit event
/// that records it.
pub(crate) enum Done<T> {
    Ok(T),
    Refused(Error),
}

/// A row write deferred to the end of the transaction: on PostgreSQL every one goes in the
/// operation's last statement; on SQLite the task's go after its events, so that the row
/// names its last event (see `schema/link_events.sql`).
pub(crate) enum Write {
    /// Compare-and-set: applied only if the task is still in `expect` with `fence`.
    UpdateTask {
        row: TaskRow,
        expect: State,
        fence: i64,
    },
    /// A new task; not applied if the id exists (another proposal committed first).
    InsertTask(TaskRow),
    /// An approval round, created or updated.
    PutApproval(ApprovalRow),
    /// A decision; not applied if its id was recorded meanwhile (by another task's decision).
    InsertDecision {
        decision_id: String,
        approval_id: String,
        envelope: String,
        at: i64,
    },
    /// Only the task's last event moves (the operation appended events about a task whose
    /// row it did not otherwise write: a refusal, a duplicate, a drift).
    Link(String),
    /// A batch lineage, created or replaced (PostgreSQL: with the last statement, so that an
    /// item's claim adds no round trip for its caps' totals and breaker).
    PutLineage(LineageRow),
}

impl Write {
    pub(crate) fn task_id(&self) -> Option<&str> {
        match self {
            Write::UpdateTask { row, .. } | Write::InsertTask(row) => Some(&row.id),
            Write::Link(id) => Some(id),
            Write::PutApproval(_) | Write::InsertDecision { .. } | Write::PutLineage(_) => None,
        }
    }
}

/// Adds `w` to the writes, folding it into an earlier write of the same row: the row is
/// written once, as it ends, under the first write's condition.
pub(crate) fn defer(writes: &mut Vec<Write>, w: Write) {
    let same = writes.iter_mut().find(|x| match (&**x, &w) {
        (Write::PutApproval(a), Write::PutApproval(b)) => a.approval_id == b.approval_id,
        (Write::PutLineage(a), Write::PutLineage(b)) => a.id == b.id,
        (x, w) => x.task_id().is_some() && x.task_id() == w.task_id(),
    });
    match (same, w) {
        (Some(Write::UpdateTask { row, .. }), Write::UpdateTask { row: new, .. })
        | (Some(Write::InsertTask(row)), Write::UpdateTask { row: new, .. }) => *row = new,
        (Some(Write::PutApproval(a)), Write::PutApproval(b)) => *a = b,
        (Some(Write::PutLineage(a)), Write::PutLineage(b)) => *a = b,
        (_, w) => writes.push(w),
    }
}

/// The last event of each task a transaction read or created (0 for none), as the task's row
/// holds it: a new event about the task links to it (see `schema/link_events.sql`). The task
/// is locked from that read to the commit, so no other transaction links to the same event.
#[derive(Default)]
pub(crate) struct Links(Vec<(String, i64)>);

impl Links {
    /// Records the task's last event as read (or 0 for a task being created).
    pub(crate) fn set(&mut self, task: &str, last: i64) {
        match self.0.iter_mut().find(|(t, _)| t == task) {
            Some((_, l)) => *l = last,
            None => self.0.push((task.to_owned(), last)),
        }
    }

    /// The one task read or created, and its last event, when there is exactly one.
    pub(crate) fn only(&self) -> Option<(&str, i64)> {
        match self.0.as_slice() {
            [(task, last)] => Some((task, *last)),
            _ => None,
        }
    }

    /// The task's last event; an error if the transaction never read the task (its events
    /// could not be linked).
    pub(crate) fn last(&self, task: &str) -> Result<i64> {
        self.0
            .iter()
            .find(|(t, _)| t == task)
            .map(|(_, l)| *l)
            .ok_or_else(|| {
                storage(
                    "audit link",
                    format!("an event about {task:?}, which the operation did not read"),
                )
            })
    }
}

/// Checks that every event of a task's history is about that task (a link that leads
/// elsewhere is damage), and returns their bodies and digests.
pub(crate) fn history_of(
    task: &str,
    rows: Vec<(Option<String>, String, String)>,
) -> Result<Vec<(String, String)>> {
    rows.into_iter()
        .map(|(t, body, digest)| match t.as_deref() {
            Some(t) if t == task => Ok((body, digest)),
            other => Err(storage(
                "task history",
                format!("the events of {task:?} link to one about {other:?}"),
            )),
        })
        .collect()
}

/// The task of an approval round, read through its round (what [`Tx::task_of_approval`] does
/// unless a backend has a quicker way): `None` when there is no such round, an error when the
/// round names a task that is missing.
pub(crate) fn round_task<T: Tx + ?Sized>(tx: &mut T, approval_id: &str) -> Result<Option<TaskRow>> {
    let Some(a) = tx.approval(approval_id)? else {
        return Ok(None);
    };
    match tx.task(&a.task_id)? {
        Some(t) => Ok(Some(t)),
        None => Err(Error::new(
            Code::TaskNotFound,
            format!("no task {:?}", a.task_id),
        )),
    }
}

/// What an operation on a batch needs from a backend, inside the same transaction as its
/// tasks. Reads lock the row until the end of the transaction (`FOR UPDATE` on PostgreSQL),
/// and every operation on a batch locks its lineage before any of its tasks, so that two
/// never wait for each other.
pub(crate) trait BatchTx {
    /// A batch.
    fn batch(&mut self, id: &str, lock: Lock) -> Result<Option<BatchRow>>;
    /// A batch without its item lists (`items` and `proposed_items` empty), for an operation
    /// on one item; never written back ([`BatchTx::put_batch`] refuses it).
    fn batch_head(&mut self, id: &str, lock: Lock) -> Result<Option<BatchRow>>;
    /// The batch a decision's approval id names.
    fn batch_of_approval(&mut self, approval_id: &str, lock: Lock) -> Result<Option<BatchRow>>;
    /// Creates or replaces a batch; a row read without its item lists is refused.
    fn put_batch(&mut self, b: &BatchRow) -> Result<()>;
    /// A lineage, locked.
    fn lineage(&mut self, id: &str) -> Result<Option<LineageRow>>;
    /// Creates or replaces a lineage.
    fn put_lineage(&mut self, l: &LineageRow) -> Result<()>;
    /// An item task's row (`None`: the task is no batch's item). Not locked: its lineage
    /// never changes, and its batch and proof change only under the lineage's lock.
    fn item(&mut self, task_id: &str) -> Result<Option<ItemRow>>;
    /// Creates or replaces an item's row.
    fn put_item(&mut self, i: &ItemRow) -> Result<()>;
    /// Every batch and every lineage, for the audit to hold to their events.
    fn audit_batches(&mut self) -> Result<(Vec<BatchRow>, Vec<LineageRow>)>;
    /// Before an operation on item `task_id` reads its item row, its lineage and that
    /// lineage's current batch's head, and its task, locked in that order: a backend may read
    /// them all at once here and answer those reads from what it read ([`ItemAhead`]:
    /// PostgreSQL in its first round trip, SQLite in one statement). Nothing by default.
    fn read_item_ahead(&mut self, _task_id: &str) -> Result<()> {
        Ok(())
    }
}

/// The rows an operation on one item read ahead ([`BatchTx::read_item_ahead`]), each taken
/// by the first read that asks for that row.
#[derive(Default)]
pub(crate) struct ItemAhead {
    pub(crate) lineage: Option<LineageRow>,
    pub(crate) head: Option<BatchRow>,
    pub(crate) item: Option<ItemRow>,
    pub(crate) task: Option<TaskRow>,
}

/// Whether a read of a batch locks its row: a batch's lineage is locked before the batch,
/// so an operation that knows only the batch reads it first without a lock, to learn its
/// lineage.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lock {
    /// Locked until the end of the transaction (`FOR UPDATE` on PostgreSQL).
    Row,
    /// Read as committed, not locked.
    None,
}

/// Refuses to write a batch read without its item lists ([`BatchTx::batch_head`]): its
/// lists would be lost.
pub(crate) fn whole(b: &BatchRow) -> Result<()> {
    if b.items.is_empty() || b.proposed_items.is_empty() {
        return Err(storage(
            "batch",
            format!(
                "{} was read without its items and cannot be written back",
                b.id
            ),
        ));
    }
    Ok(())
}

/// The statements of [`BatchTx`], `$1`.. placeholders (SQLite's spelling replaces `$`), with
/// `lock` after each locking read.
pub(crate) mod batch_sql {
    use super::{BATCH_COLUMNS, ITEM_COLUMNS, LINEAGE_COLUMNS, TASK_COLUMNS};

    fn batch(lock: &str) -> String {
        format!("SELECT {BATCH_COLUMNS} FROM ledger_batches WHERE id = $1{lock}")
    }

    /// [`batch`] without the item lists (read as empty strings): what an operation on one
    /// item needs, without a batch's every task id twice.
    fn batch_head(lock: &str) -> String {
        let head = head_columns("");
        format!("SELECT {head} FROM ledger_batches WHERE id = $1{lock}")
    }

    /// [`BATCH_COLUMNS`] of the table `alias` (`""` or `"b."`) with the item lists read as
    /// empty strings.
    fn head_columns(alias: &str) -> String {
        BATCH_COLUMNS
            .split(", ")
            .map(|c| match c {
                "items" | "proposed_items" => format!("'' AS {c}"),
                c => format!("{alias}{c}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn batch_of_approval(lock: &str) -> String {
        format!("SELECT {BATCH_COLUMNS} FROM ledger_batches WHERE approval_id = $1{lock}")
    }

    fn put_batch() -> String {
        let set = BATCH_COLUMNS
            .split(", ")
            .filter(|c| *c != "id")
            .map(|c| format!("{c} = excluded.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "INSERT INTO ledger_batches ({BATCH_COLUMNS}) VALUES ({}) \
             ON CONFLICT (id) DO UPDATE SET {set}",
            placeholders(BATCH_COLUMNS)
        )
    }

    fn lineage(lock: &str) -> String {
        format!("SELECT {LINEAGE_COLUMNS} FROM ledger_batch_lineages WHERE id = $1{lock}")
    }

    fn put_lineage() -> String {
        format!(
            "INSERT INTO ledger_batch_lineages ({LINEAGE_COLUMNS}) VALUES ({}) \
             ON CONFLICT (id) DO UPDATE SET current = excluded.current, \
             generation = excluded.generation, totals = excluded.totals, \
             breaker = excluded.breaker, updated_at = excluded.updated_at",
            placeholders(LINEAGE_COLUMNS)
        )
    }

    fn item() -> String {
        format!("SELECT {ITEM_COLUMNS} FROM ledger_batch_items WHERE task_id = $1")
    }

    fn put_item() -> String {
        format!(
            "INSERT INTO ledger_batch_items ({ITEM_COLUMNS}) VALUES ({}) \
             ON CONFLICT (task_id) DO UPDATE SET batch = excluded.batch, proof = excluded.proof",
            placeholders(ITEM_COLUMNS)
        )
    }

    /// The statements an operation on a batch runs, in one engine's spelling, written once
    /// (an item's claim runs four of them): each locking read unlocked (`[0]`) and locked
    /// (`[1]`, with the engine's `lock`).
    pub(crate) struct Statements {
        pub batch: [String; 2],
        pub batch_head: [String; 2],
        pub batch_of_approval: [String; 2],
        pub lineage: [String; 2],
        pub put_batch: String,
        pub put_lineage: String,
        pub item: String,
        pub put_item: String,
    }

    impl Statements {
        /// The statements spelled by `spell`, locked reads ending with `lock`.
        pub(crate) fn new(spell: fn(&str) -> String, lock: &str) -> Statements {
            let both = |read: fn(&str) -> String| [spell(&read("")), spell(&read(lock))];
            Statements {
                batch: both(batch),
                batch_head: both(batch_head),
                batch_of_approval: both(batch_of_approval),
                lineage: both(lineage),
                put_batch: spell(&put_batch()),
                put_lineage: spell(&put_lineage()),
                item: spell(&item()),
                put_item: spell(&put_item()),
            }
        }
    }

    /// PostgreSQL's statements, prepared by name, that read ahead for an operation on one
    /// item ([`super::BatchTx::read_item_ahead`]), each from the item's task id: its lineage
    /// and that lineage's current batch's head, locked, and its item row; and the same
    /// without locks (`_free`, a free attempt's).
    pub(crate) fn item_ahead() -> String {
        let lineage_of = "(SELECT lineage FROM ledger_batch_items WHERE task_id = $1)";
        let current =
            format!("(SELECT current FROM ledger_batch_lineages WHERE id = {lineage_of})");
        let mut sql = String::new();
        for (suffix, lock) in [("", " FOR UPDATE"), ("_free", "")] {
            sql += &format!(
                "PREPARE ledger_item_lineage{suffix}(text) AS {};\n\
                 PREPARE ledger_item_head{suffix}(text) AS {};\n\
                 PREPARE ledger_item{suffix}(text) AS {};\n",
                lineage(lock).replace("$1", lineage_of),
                batch_head(lock).replace("$1", &current),
                item(),
            );
        }
        sql
    }

    /// SQLite's one statement that reads ahead for an operation on one item, from its task
    /// id: the lineage's, the current batch head's, the item's and the task's columns, then
    /// the task's `last_event`, in that order. No row when any of them is missing: the reads
    /// one by one then say which.
    pub(crate) fn item_rows() -> String {
        let of = |alias: &str, list: &str| {
            list.split(", ")
                .map(|c| format!("{alias}{c}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "SELECT {}, {}, {}, {}, t.last_event FROM ledger_batch_items i \
             JOIN ledger_batch_lineages l ON l.id = i.lineage \
             JOIN ledger_batches b ON b.id = l.current \
             JOIN ledger_tasks t ON t.id = i.task_id WHERE i.task_id = $1",
            of("l.", LINEAGE_COLUMNS),
            head_columns("b."),
            of("i.", ITEM_COLUMNS),
            of("t.", TASK_COLUMNS),
        )
    }

    pub(crate) fn all_batches() -> String {
        format!("SELECT {BATCH_COLUMNS} FROM ledger_batches ORDER BY id")
    }

    pub(crate) fn all_lineages() -> String {
        format!("SELECT {LINEAGE_COLUMNS} FROM ledger_batch_lineages ORDER BY id")
    }

    /// `$1, $2, ..` for each column of `columns`.
    fn placeholders(columns: &str) -> String {
        (1..=columns.split(", ").count())
            .map(|i| format!("${i}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One transaction. Reads of a task lock it until the end of the transaction (`FOR UPDATE`
/// on PostgreSQL; SQLite's `BEGIN IMMEDIATE` already holds the only write lock), so every
/// operation on a task sees the effect of the one before.
pub(crate) trait Tx: BatchTx + DisclosureTx {
    fn task(&mut self, id: &str) -> Result<Option<TaskRow>>;
    /// The task a proposal is about to create, if it exists already (locked, as [`Tx::task`]).
    /// A backend may answer `None` without looking, as long as [`Tx::insert_task`] then fails
    /// the whole transaction when the task exists, and the operation runs again.
    fn proposed_task(&mut self, id: &str) -> Result<Option<TaskRow>> {
        self.task(id)
    }
    /// The task of an approval round, locked; `None` when there is no such round.
    fn task_of_approval(&mut self, approval_id: &str) -> Result<Option<TaskRow>> {
        round_task(self, approval_id)
    }
    /// Inserts a new task; false when the id already exists (nothing written). A backend may
    /// defer the write to the end of the transaction and answer true, as long as it then runs
    /// the operation again when the task turns out to exist.
    fn insert_task(&mut self, t: &TaskRow) -> Result<bool>;
    /// Compare-and-set: writes `t` only if the stored task is still in `expect` with fence
    /// `expect_fence`; false (nothing written) otherwise. A backend may defer the write to the
    /// end of the transaction (the task is locked, so it cannot change meanwhile) and fail
    /// the transaction there if it did.
    fn update_task(&mut self, t: &TaskRow, expect: State, expect_fence: i64) -> Result<bool>;
    /// Compare-and-set on the action: writes `t`'s action, proposed action, amendment count
    /// and time only if the stored task still holds the action `expect`; false otherwise.
    fn amend_task(&mut self, t: &TaskRow, expect: &Digest) -> Result<bool>;
    fn insert_amendment(&mut self, a: &AmendmentRow) -> Result<()>;
    /// A task's amendments, in order.
    fn amendments(&mut self, task_id: &str) -> Result<Vec<AmendmentRow>>;
    fn approval(&mut self, approval_id: &str) -> Result<Option<ApprovalRow>>;
    /// An approval round and the envelope recorded under a decision id, read together (a
    /// backend may leave out the envelope when there is no such round).
    fn approval_and_decision(
        &mut self,
        approval_id: &str,
        decision_id: &str,
    ) -> Result<(Option<ApprovalRow>, Option<String>)> {
        Ok((self.approval(approval_id)?, self.decision(decision_id)?))
    }
    fn put_approval(&mut self, a: &ApprovalRow) -> Result<()>;
    /// The canonical envelope recorded under this decision id.
    fn decision(&mut self, decision_id: &str) -> Result<Option<String>>;
    /// Records a decision; false when the id is already taken (nothing written).
    fn insert_decision(
        &mut self,
        decision_id: &str,
        approval_id: &str,
        envelope: &str,
        at: i64,
    ) -> Result<bool>;
    /// The decisions of a round under a quorum, in the order recorded. A backend reads them
    /// under the task's lock (on PostgreSQL in a locked attempt).
    fn round_decisions(&mut self, approval_id: &str) -> Result<Vec<RoundDecisionRow>>;
    /// Records a decision of a round under a quorum, in the transaction (the task is locked).
    fn insert_round_decision(&mut self, r: &RoundDecisionRow) -> Result<()>;
    fn budget(&mut self, name: &str) -> Result<Option<BudgetRow>>;
    fn put_budget(&mut self, b: &BudgetRow) -> Result<()>;
    /// The ledger's policy.
    fn policy(&mut self) -> Result<PolicyRow>;
    fn put_policy(&mut self, p: &PolicyRow) -> Result<()>;
    /// A passkey credential's last signature counter, locked for the rest of the transaction.
    fn sign_count(&mut self, credential_id: &str) -> Result<Option<i64>>;
    /// Records a credential's counter; false (nothing written) when the stored one is not
    /// lower (another decision with the credential committed meanwhile), unless both are 0.
    fn put_sign_count(&mut self, credential_id: &str, count: i64, at: i64) -> Result<bool>;
    /// Claimed tasks whose lease ran out by `now`.
    fn expired_leases(&mut self, now: i64) -> Result<Vec<String>>;
    /// The tasks within `b` (state, tenant, proposed since and until, after a cursor),
    /// oldest first (by created_at, then id), at most `b.fetch`.
    fn list_tasks(&mut self, b: &Bounds<'_>) -> Result<Vec<TaskRow>>;
    /// Stored events (row id, canonical body, digest) within `b`, by row id (the export's
    /// order).
    fn events_where(&mut self, b: &Bounds<'_>) -> Result<Vec<(i64, String, String)>>;
    /// Stored events (canonical body, digest) of one task, or of all when `None`, by chain
    /// and seq.
    fn events(&mut self, task: Option<&str>) -> Result<Vec<(String, String)>>;
    /// Every chain's head: (chain, last seq, its digest).
    fn heads(&mut self) -> Result<Vec<(i64, i64, Option<String>)>>;
    /// Every task row, with the digest of the event it names as its last (see
    /// [`audit_rows_sql`]), for the audit to hold to the task's events.
    fn audit_rows(&mut self) -> Result<Vec<(TaskRow, Option<String>)>>;
    /// Every decision of every round under a quorum, by round and position, for the audit to
    /// hold to their `decided` events.
    fn audit_round_decisions(&mut self) -> Result<Vec<RoundDecisionRow>>;
    /// Queues an event; the backend gives it its seq and `prev` and writes it at commit, so
    /// the chain head is held for as short a time as possible.
    fn append(&mut self, e: Event);
}

/// A storage failure: nothing of the operation was kept.
pub(crate) fn storage(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(Code::LedgerStorage, format!("{what}: {e}"))
}

/// How many times an operation is re-run after a serialization failure or deadlock.
pub(crate) const MAX_ATTEMPTS: usize = 8;

pub(crate) fn state_from(s: &str) -> Result<State> {
    State::parse(s).map_err(|_| storage("stored task", format!("unknown state {s:?}")))
}

/// The chain head: the last seq (0 for none) and its digest.
pub(crate) type Head = (i64, Option<Digest>);

/// An event ready to insert: seq, canonical text, digest.
pub(crate) type Sealed = (i64, String, Digest);

/// The queued events of one transaction, grouped by chain in ascending order (the order in
/// which their heads are locked, so that two transactions never wait for each other).
pub(crate) fn by_chain(mut events: Vec<Event>) -> Vec<(i64, Vec<Event>)> {
    events.sort_by_key(|e| e.chain);
    let mut out: Vec<(i64, Vec<Event>)> = Vec::new();
    for e in events {
        match out.last_mut() {
            Some((c, group)) if *c == e.chain => group.push(e),
            _ => out.push((e.chain, vec![e])),
        }
    }
    out
}

/// Gives one chain's queued events their seq and `prev` after `head`, and returns each with
/// its seq, canonical text and digest, plus the new head.
pub(crate) fn seal(events: &mut [Event], head: Head) -> Result<(Vec<Sealed>, Head)> {
    let (mut seq, mut prev) = head;
    let mut out = Vec::with_capacity(events.len());
    for e in events.iter_mut() {
        seq = increment(seq, "audit sequence")?;
        e.seq = seq;
        e.prev = prev;
        let text = e.canonical();
        let digest = Digest::of(text.as_bytes());
        prev = Some(digest);
        out.push((seq, text, digest));
    }
    Ok((out, (seq, prev)))
}

/// `n + 1` for a stored count (a fence, a round, an amendment count, an audit sequence): on a ledger whose data
/// was altered to the end of the range, [`Code::LedgerValueOutOfRange`] rather than a wrap.
pub(crate) fn increment(n: i64, what: &str) -> Result<i64> {
    n.checked_add(1).ok_or_else(|| {
        Error::new(
            Code::LedgerValueOutOfRange,
            format!("the stored {what} {n} cannot grow"),
        )
    })
}

/// A stored digest, which the ledger wrote itself.
pub(crate) fn digest_from(s: &str) -> Result<Digest> {
    s.parse()
        .map_err(|_| storage("stored digest", format!("{s:?} is not a digest")))
}

/// A task's events as (id, task, body, digest), in the order they were written, `$1` (or
/// `?1`) the task's id: the list from the task's last event back (each link must point to an
/// earlier event after the cutoff, so that a damaged list ends), and the events up to the
/// cutoff through their index.
pub(crate) fn history_sql(cutoff: i64, p: &str) -> String {
    let mut sql = format!(
        "WITH RECURSIVE walk (id, task_prev, task, body, digest) AS (\
         SELECT e.id, e.task_prev, e.task, e.body, e.digest FROM ledger_tasks t \
         JOIN ledger_events e ON e.id = t.last_event WHERE t.id = {p} AND t.last_event > {cutoff} \
         UNION ALL SELECT e.id, e.task_prev, e.task, e.body, e.digest FROM walk \
         JOIN ledger_events e ON e.id = walk.task_prev \
         WHERE walk.task_prev > {cutoff} AND walk.task_prev < walk.id) \
         SELECT id, task, body, digest FROM walk"
    );
    if cutoff > 0 {
        sql += &format!(
            " UNION ALL SELECT id, task, body, digest FROM ledger_events \
             WHERE task = {p} AND id <= {cutoff}"
        );
    }
    sql + " ORDER BY 1"
}

/// Every task row ([`TASK_COLUMNS`]) and the digest of the event that the row names as its
/// last, if that event exists and is about the task: the one `last_event` names, or for a
/// task none of whose events are linked (all written before the cutoff, see
/// `schema/link_events.sql`), its last event up to the cutoff.
pub(crate) fn audit_rows_sql(cutoff: i64) -> String {
    format!(
        "SELECT {TASK_COLUMNS}, (SELECT e.digest FROM ledger_events e WHERE e.task = t.id \
         AND e.id = CASE WHEN t.last_event > 0 THEN t.last_event ELSE (SELECT max(o.id) \
         FROM ledger_events o WHERE o.task = t.id AND o.id <= {cutoff}) END) \
         FROM ledger_tasks t"
    )
}

/// Every row of `ledger_round_decisions` ([`ROUND_DECISION_COLUMNS`]), by round and position.
pub(crate) fn audit_round_decisions_sql() -> String {
    format!("SELECT {ROUND_DECISION_COLUMNS} FROM ledger_round_decisions ORDER BY approval_id, n")
}

/// The statement that records a credential's counter only when it goes up (or stays 0 where
/// the authenticator keeps none), `$1`.. or `?1`.. in `p`'s spelling: credential, count, time.
pub(crate) fn put_sign_count_sql(p: char) -> String {
    format!(
        "INSERT INTO ledger_passkeys (credential_id, sign_count, updated_at) \
         VALUES ({p}1, {p}2, {p}3) ON CONFLICT (credential_id) DO UPDATE SET \
         sign_count = excluded.sign_count, updated_at = excluded.updated_at \
         WHERE excluded.sign_count > ledger_passkeys.sign_count \
         OR (excluded.sign_count = 0 AND ledger_passkeys.sign_count = 0)"
    )
}
