//! A SQLite ledger file's background checkpointer.
//!
//! In WAL mode every commit appends pages to the log, and a checkpoint copies them back into
//! the database file and syncs it. SQLite runs that checkpoint inside whichever commit finds
//! the log long enough, so one operation in a few hundred pays for all of them (and, with
//! `synchronous=NORMAL`, waits for the database file's fsync). A ledger file instead gets a
//! thread of its own that checkpoints every few milliseconds, on its own connection, without
//! blocking writers or readers (`PASSIVE`). The commits' own automatic checkpoint stays on as a
//! bound on the log's length, and then has little left to copy. Durability is unchanged: a
//! checkpoint only moves committed pages from the log to the database.

use crate::sync::locked;
use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the log is copied back.
const EVERY: Duration = Duration::from_millis(25);

pub(crate) struct Checkpointer {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts checkpointing `path` (a ledger file that exists and is in WAL mode) through
    /// `vfs` (`None`: SQLite's default). Without a thread (the system refused one), the
    /// commits' automatic checkpoints do the work.
    pub(crate) fn start(path: PathBuf, vfs: Option<&'static CStr>) -> Checkpointer {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("actionseal-checkpoint".into())
            .spawn(move || run(&path, vfs, &flag))
            .ok();
        Checkpointer { stop, thread }
    }
}

fn run(path: &Path, vfs: Option<&CStr>, stop: &(Mutex<bool>, Condvar)) {
    let Ok(c) = super::connect(path, vfs) else {
        return;
    };
    let (lock, wake) = stop;
    let mut stopped = locked(lock);
    while !*stopped {
        stopped = wake
            .wait_timeout(stopped, EVERY)
            .map(|(g, _)| g)
            .unwrap_or_else(|p| p.into_inner().0);
        if *stopped {
            break;
        }
        drop(stopped);
        // Busy (another checkpoint runs) or failing: the next round, or the commits' own
        // checkpoint, will do it.
        let _ = c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        stopped = locked(lock);
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        let (lock, wake) = &*self.stop;
        *locked(lock) = true;
        wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
