//! The ledger's clock: `now` comes from the ledger, never from the caller.

use actionseal_core::{Code, Error, Result, MAX_SAFE_INTEGER};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of the current time in milliseconds since the Unix epoch.
pub trait Clock: Send + Sync {
    /// Now, in ms since the epoch. Called inside the ledger's write transactions, so it must
    /// not call the ledger itself: that waits for the transaction it is part of.
    fn now_ms(&self) -> i64;
}

/// The system's wall clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    }
}

/// A clock that only moves when told to (tests, demos). Clones share the time.
#[derive(Clone, Debug)]
pub struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    /// A clock standing at `ms`.
    pub fn new(ms: i64) -> ManualClock {
        ManualClock(Arc::new(AtomicI64::new(ms)))
    }

    /// Moves the clock forward by `ms`. A time past 2^53 − 1 ms, which the ledger would write
    /// and then refuse to read (no runtime holds it exactly), is [`Code::InvalidRequest`] at
    /// `ms`, and the clock stays where it was.
    pub fn advance(&self, ms: i64) -> Result<()> {
        let moved = |now: i64| {
            now.checked_add(ms)
                .filter(|t| (0..=MAX_SAFE_INTEGER).contains(t))
        };
        self.0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, moved)
            .map(|_| ())
            .map_err(|now| {
                Error::new(
                    Code::InvalidRequest,
                    format!("a clock at {now} ms moved {ms} ms would pass 2^53 - 1 ms"),
                )
                .in_key("ms")
            })
    }

    /// Sets the clock to `ms`.
    pub fn set(&self, ms: i64) {
        self.0.store(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_stops_short_of_what_no_runtime_reads_exactly() {
        let clock = ManualClock::new(MAX_SAFE_INTEGER - 10);
        let e = clock.advance(11).unwrap_err();
        assert_eq!((e.code(), e.path()), (Code::InvalidRequest, "/ms"));
        assert_eq!(clock.now_ms(), MAX_SAFE_INTEGER - 10);
        assert!(
            clock.advance(i64::MAX).is_err(),
            "an i64 overflow is refused too"
        );
        clock.advance(10).unwrap();
        assert_eq!(clock.now_ms(), MAX_SAFE_INTEGER);
    }
}
