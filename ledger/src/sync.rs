//! Locks shared by a ledger's handles and threads.

use std::sync::{Mutex, MutexGuard};

/// `m`'s guard, poisoned or not: every value the ledger keeps behind a lock (caches, idle
/// connections, chain-head guesses, wake counters) is replaced or extended in one step, so a
/// thread that panicked while holding it left nothing half-written.
pub(crate) fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
