//! The tasks in flight as this ledger's own commits left them, with their last event: a guess
//! that the first attempt of an operation uses instead of reading its task (a claim after this
//! process's decision, a completion after its claim). The attempt's last statement is gated on
//! the task's last event (see `last::statement`), so a task another process or connection moved
//! since only makes that attempt write nothing; the operation then runs again under locks,
//! reading, and the guess is dropped.
//!
//! A task's last event names one version of its row: every write of a task appends an event
//! about it in the same statement, and event ids are never reused.

use crate::store::{ApprovalRow, TaskRow};
use parking_lot::Mutex;
use std::collections::HashMap;

/// The most tasks (and rounds) kept; past it the guesses start over. Tasks leave when they end.
const CAP: usize = 1024;

#[derive(Default)]
pub(super) struct InFlight(Mutex<Inner>);

#[derive(Default)]
struct Inner {
    /// A task's row as written, and its last event.
    tasks: HashMap<String, (TaskRow, i64)>,
    /// Approval rounds as written, by approval id.
    rounds: HashMap<String, ApprovalRow>,
}

/// What one transaction's commit teaches (applied only once it committed).
#[derive(Default)]
pub(super) struct Learned {
    tasks: Vec<(TaskRow, i64)>,
    rounds: Vec<ApprovalRow>,
    forget: Vec<String>,
}

impl Learned {
    /// A task's row as the transaction wrote it, and the event that is now its last.
    pub(super) fn task(&mut self, row: TaskRow, last_event: i64) {
        self.tasks.push((row, last_event));
    }

    pub(super) fn round(&mut self, round: ApprovalRow) {
        self.rounds.push(round);
    }

    /// A task the transaction changed in a way not learned (its guess goes).
    pub(super) fn forget(&mut self, task: &str) {
        self.forget.push(task.to_owned());
    }
}

impl InFlight {
    pub(super) fn task(&self, id: &str) -> Option<(TaskRow, i64)> {
        self.0.lock().tasks.get(id).cloned()
    }

    /// An approval round and its task, both as last written here.
    pub(super) fn round_task(&self, approval_id: &str) -> Option<(ApprovalRow, TaskRow, i64)> {
        let inner = self.0.lock();
        let round = inner.rounds.get(approval_id)?;
        let (task, last) = inner.tasks.get(&round.task_id)?;
        Some((round.clone(), task.clone(), *last))
    }

    pub(super) fn forget(&self, task: &str) {
        self.0.lock().tasks.remove(task);
    }

    pub(super) fn learn(&self, l: Learned) {
        let mut inner = self.0.lock();
        for task in l.forget {
            inner.tasks.remove(&task);
        }
        // Rounds first, so that a task that ended takes its rounds with it.
        for round in l.rounds {
            if inner.rounds.len() >= CAP && !inner.rounds.contains_key(&round.approval_id) {
                inner.rounds.clear();
            }
            inner.rounds.insert(round.approval_id.clone(), round);
        }
        for (row, last) in l.tasks {
            if row.state.is_final() {
                inner.tasks.remove(&row.id);
                inner.rounds.retain(|_, r| r.task_id != row.id);
                continue;
            }
            if inner.tasks.len() >= CAP && !inner.tasks.contains_key(&row.id) {
                inner.tasks.clear();
            }
            inner.tasks.insert(row.id.clone(), (row, last));
        }
    }
}
