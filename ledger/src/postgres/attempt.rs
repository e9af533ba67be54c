//! How one attempt of an operation reads, locks and writes ([`Attempt`]), what a free attempt
//! took on trust ([`Trust`]), and why an attempt ran again ([`Retry`], counted in
//! [`Retries`]). The module's table (`postgres`) puts them side by side.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// How one attempt of an operation reads, locks and writes. `Postgres::write` makes the first
/// attempt of a write [`Attempt::Free`] and every later one [`Attempt::Locked`];
/// `Postgres::read` runs in an [`Attempt::Snapshot`].
pub(super) enum Attempt {
    /// A read. Reads: everything in one `REPEATABLE READ READ ONLY` transaction, begun before
    /// the first read. Locks: nothing. Writes: nothing. Falls back to: nothing (an error is
    /// the answer).
    Snapshot,
    /// The first attempt of a write. Reads: its task without a lock and outside a
    /// transaction (the `_free` statements of `first::FIRST`), or not at all when this
    /// ledger wrote it last ([`TaskBasis::Remembered`]) or a proposal creates it
    /// ([`TaskBasis::NotLooked`]); a decision does not look up its id ([`Lookup::Skipped`]).
    /// An item's operation reads the item's lineage and batch with its task. Locks: nothing
    /// before its last statement, which locks the task's row (after an item's lineage and
    /// batch) and the chain head for itself alone. Writes: that one statement, its own
    /// transaction, gated on the task's last event (and an item's lineage and batch) being
    /// as read (all or nothing; a new task without a gate, failing on an existing one).
    /// Falls back to: [`Attempt::Locked`], on any [`Retry`]: when it needs more than that,
    /// or what it took on trust does not hold.
    Free(Trust),
    /// Every later attempt of a write. Reads: in one `READ COMMITTED` transaction whose
    /// `BEGIN` travels with its first read (`first::FIRST`); a task, a budget and a passkey
    /// counter `FOR UPDATE`. Locks: task, then budget, then the chain head (only for the last
    /// statement and the commit). Writes: its deferred rows and events in one statement per
    /// chain (`last::statement`), then `COMMIT`. Falls back to: itself, on a row created
    /// first by another transaction or a serialization failure or deadlock, at most
    /// `MAX_ATTEMPTS` attempts in all.
    Locked,
}

/// What a free attempt did not read, and so must see proved before it answers.
#[derive(Clone, Copy, Default)]
pub(super) struct Trust {
    pub(super) task: TaskBasis,
    pub(super) decision: Lookup,
}

/// Where an attempt's task came from.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum TaskBasis {
    /// Read from the database (freely, under its lock or in the snapshot), or not read yet.
    #[default]
    Read,
    /// Not looked for: a proposal inserts it without `ON CONFLICT`, so an existing task fails
    /// the statement ([`Retry::ProposalExists`]).
    NotLooked,
    /// Taken from the tasks in flight as this ledger last wrote them (`InFlight`); no answer
    /// is given until a gated statement proves it current ([`Retry::Unproved`]).
    Remembered,
    /// Remembered, and proved current by the attempt's gated statement.
    Proved,
}

/// Whether a decision looked up its decision id before deciding.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Lookup {
    #[default]
    Looked,
    /// Not looked up (most decisions are new): only a new decision may commit
    /// ([`Retry::DecisionUnchecked`]).
    Skipped,
}

/// Why an attempt of an operation ran again. The first seven end a free attempt (the next one
/// is locked); the last three end any attempt of a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Retry {
    /// It needed a transaction: a read of its own, a budget, a passkey counter, a second
    /// statement.
    Locks,
    /// Its writes were not all about its one task in one chain, so no gate could make them
    /// all or nothing.
    Ungated,
    /// Its gated statement wrote nothing: the task (an item's lineage or batch) moved since
    /// it was read or remembered, or its decision was recorded meanwhile.
    Moved,
    /// It answered from a remembered task that no gated statement proved current.
    Unproved,
    /// It failed on a remembered task (which may be out of date).
    RememberedFailed,
    /// A decision that did not look up its id answered other than with a new decision (it
    /// may have met a recorded one).
    DecisionUnchecked,
    /// A proposal that did not look for its task found it created.
    ProposalExists,
    /// A row it inserts (a task, a decision) was created by another transaction first.
    RaceLost,
    /// PostgreSQL's serialization failure (SQLSTATE 40001).
    Serialization,
    /// PostgreSQL's deadlock detected (SQLSTATE 40P01).
    Deadlock,
}

impl Retry {
    pub(super) const ALL: [Retry; 10] = [
        Retry::Locks,
        Retry::Ungated,
        Retry::Moved,
        Retry::Unproved,
        Retry::RememberedFailed,
        Retry::DecisionUnchecked,
        Retry::ProposalExists,
        Retry::RaceLost,
        Retry::Serialization,
        Retry::Deadlock,
    ];

    /// The reason's stable snake_case name (logs, counts).
    pub(super) fn name(self) -> &'static str {
        match self {
            Retry::Locks => "locks",
            Retry::Ungated => "ungated",
            Retry::Moved => "moved",
            Retry::Unproved => "unproved",
            Retry::RememberedFailed => "remembered_failed",
            Retry::DecisionUnchecked => "decision_unchecked",
            Retry::ProposalExists => "proposal_exists",
            Retry::RaceLost => "race_lost",
            Retry::Serialization => "serialization",
            Retry::Deadlock => "deadlock",
        }
    }
}

/// How many attempts ran again since the ledger opened, by [`Retry`].
#[derive(Default)]
pub(super) struct Retries([AtomicU64; Retry::ALL.len()]);

impl Retries {
    pub(super) fn count(&self, r: Retry) {
        self.0[r as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// Every reason's name and count (zero included).
    pub(super) fn by_name(&self) -> BTreeMap<&'static str, u64> {
        Retry::ALL
            .into_iter()
            .map(|r| (r.name(), self.0[r as usize].load(Ordering::Relaxed)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Retry;

    #[test]
    fn every_retry_is_counted_in_its_own_place_under_its_own_name() {
        for (i, r) in Retry::ALL.into_iter().enumerate() {
            assert_eq!(r as usize, i, "{r:?} is out of place in Retry::ALL");
            assert_eq!(
                Retry::ALL.iter().filter(|o| o.name() == r.name()).count(),
                1,
                "{r:?}'s name is not its own"
            );
        }
    }
}
