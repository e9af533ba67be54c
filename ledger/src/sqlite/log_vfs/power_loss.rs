//! Power loss under the log VFS: a simulated disk (`power_loss/disk.rs`) below the ledger's
//! log VFS, in the way of SQLite's own crash tests (`test6.c`, `crash.test`): at a random
//! point the power goes off, and every write since its file's last sync is kept, lost or torn.
//!
//! # The disk's model
//! - Each file has the bytes of its last `xSync` (durable) and the writes and truncations
//!   since (pending), in order. A power loss keeps, loses or tears each pending change, a third
//!   each at random: a torn write keeps, loses or fills with garbage each 512-byte sector it
//!   covers, on its own; a torn truncation happens or not. The survivors are applied in order
//!   over the durable bytes, so any subset survives, as from a disk cache that reorders writes
//!   between flushes.
//! - The disk says what the `unix` VFS says on Linux: sectors of 4096 bytes and
//!   `SQLITE_IOCAP_POWERSAFE_OVERWRITE`, which lets SQLite assume that a write changes nothing
//!   outside its own range even when the power fails. The model keeps to that (garbage lands
//!   only where a write was under way) and is otherwise as hostile as it allows. A disk
//!   without the flag makes SQLite pad commits to sectors, a path production does not take.
//! - The directory: creating and deleting files changes the names the system sees; a power
//!   loss leaves the names of the directory's last sync. It is synced where `unix` syncs it:
//!   at the first sync of a log or journal opened to be created (`UNIXFILE_DIRSYNC`), and by a
//!   deletion that asks for it (`xDelete` with `syncDir`). So a log created since vanishes,
//!   and a log deleted since (by the last connection's checkpoint on close) comes back with
//!   its durable bytes.
//! - Shared memory (`-shm`) is memory and does not survive: the first `unix` connection to map
//!   it after a reboot truncates it, and SQLite rebuilds the index from the log.
//! - Locks are those of `unix` between connections of one process. There is no fsync, so a
//!   crash costs memory copies; a sync of the log waits 20 µs outside the disk's lock, so that
//!   threads queue behind a commit and share the next, as they do behind a disk's flush.
//! - The power fails before a changing call (a write, truncation, sync, creation or deletion)
//!   chosen at random. At a world's *stop* every later call fails, and its threads see I/O
//!   errors. At its *snapshots* (11, before the stop) the world goes on and the image is kept:
//!   a crash at that instant could have left it, and one world yields several.
//!
//! # The test
//! Chains of two worlds: the first reopens a new ledger's files (one chain in eight creates
//! the ledger on an empty disk instead), the second the files the first's power loss left, so
//! a crash also strikes during recovery. In a world, [`THREADS`] threads run lifecycles
//! (propose, decide, claim, complete) on one `Ledger` (`synchronous=FULL`), sharing its
//! commits (group commit), while another copies the log back as the ledger's checkpointer
//! does (`PASSIVE`), until the power fails. Each operation that returns is recorded under the
//! disk's lock, so each image knows which had returned when it was taken.
//!
//! Every image is then checked, on a thread beside the worlds: the ledger is reopened on it,
//! and `PRAGMA integrity_check` says ok; the audit verifies; every task an operation returned
//! for is in the state that operation left it in or a later one, with its claim's fence and
//! the audit event of each step that returned. What returned in the first world of a chain
//! must also survive the second's crash. On the image that stopped its world, the ledger then
//! commits a new proposal.
//!
//! The seed is printed, and `ACTIONSEAL_POWER_LOSS_SEED` runs the same draws again (the
//! threads' interleaving is the scheduler's, so a failure recurs often, not always). A failure
//! writes the image's files to a directory it names, for `sqlite3`.

mod disk;
mod ledgers;

use super::{over, register, Order};
use crate::sqlite::Vfs;
use crate::sync::locked;
use actionseal_core::ledger::State;
use actionseal_core::{parse, Options, OwnedValue};
use disk::{Bytes, Disk, Image, Plan, THE_END};
use ledgers::Ledgers;
use std::ffi::CStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::Instant;

/// Simulated power losses in the test of the log VFS as it ships.
const POWER_LOSSES: usize = 10_000;

/// Threads sharing one ledger in a world.
const THREADS: usize = 8;

/// Lifecycles each thread runs in a world, unless the power fails first.
const LIFECYCLES: usize = 2;

/// Crash images taken in a world while it goes on, besides the one that stops it.
const SNAPSHOTS: u64 = 11;

/// Worlds in a chain, each on the files the one before left.
const CHAIN: usize = 2;

/// One chain in this many begins with the ledger's creation; the others with a new ledger's
/// files, so that the files stay small and each crash is cheap to check.
const FROM_NOTHING: usize = 8;

/// The ledger's file on each disk.
const LEDGER: &str = "ledger.db";

/// 2025-11-30 10:00 UTC.
const T0: i64 = 1_764_496_800_000;
const HOUR: i64 = 3_600_000;

/// A small random generator (SplitMix64), so that a seed names a run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// An operation that returned, and what it did to its task.
#[derive(Clone, Debug)]
struct Ack {
    task: String,
    step: Step,
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Proposed,
    Decided,
    /// With the claim's fence.
    Claimed(i64),
    Completed(i64),
}

impl Step {
    /// The states it leaves its task in, or that follow: how far it got.
    fn reached(self) -> u8 {
        match self {
            Step::Proposed => 0,
            Step::Decided => 1,
            Step::Claimed(_) => 2,
            Step::Completed(_) => 3,
        }
    }

    fn fence(self) -> Option<i64> {
        match self {
            Step::Claimed(f) | Step::Completed(f) => Some(f),
            _ => None,
        }
    }

    /// The audit events of this step and the ones before it.
    fn events(self) -> &'static [&'static str] {
        const ALL: [&str; 4] = ["proposed", "decided", "claimed", "completed"];
        &ALL[..=usize::from(self.reached())]
    }
}

fn reached(s: State) -> Option<u8> {
    match s {
        State::AwaitingApproval => Some(0),
        State::Approved => Some(1),
        State::Claimed => Some(2),
        State::Succeeded => Some(3),
        _ => None,
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Kind {
    /// An operation that returned is not in the recovered ledger.
    Lost,
    /// The recovered file is not intact, or not a ledger any more.
    Damaged,
    /// A call failed while the power was on.
    Failed,
}

#[derive(Debug)]
struct Failure {
    kind: Kind,
    detail: String,
}

fn fail(kind: Kind, detail: impl Into<String>) -> Failure {
    Failure {
        kind,
        detail: detail.into(),
    }
}

/// The log VFS (`order`) over the simulated disk, for a ledger's connections, and the disk
/// itself for its checkpointer.
fn stack(order: Order) -> Vfs {
    const SHIPPED: &CStr = c"actionseal-log-powerloss";
    const BROKEN: &CStr = c"actionseal-log-powerloss-sync-then-write";
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        for (name, order) in [
            (SHIPPED, Order::WriteThenSync),
            (BROKEN, Order::SyncThenWrite),
        ] {
            // SAFETY: the disk's VFS is registered; this runs once.
            unsafe {
                let mut v = over(name, disk::vfs()).expect("the disk's VFS opens files");
                v.order = order;
                assert!(register(v), "SQLite refused the log VFS");
            }
        }
    });
    Vfs {
        log: Some(match order {
            Order::WriteThenSync => SHIPPED,
            Order::SyncThenWrite => BROKEN,
        }),
        base: Some(disk::NAME),
    }
}

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

/// What a run counted.
#[derive(Debug, Default)]
struct Counts {
    /// Crash images checked.
    losses: usize,
    worlds: usize,
    acked: usize,
    log_syncs: u64,
}

/// A failure, and the files of the crash image it was found on.
struct Found {
    failure: Failure,
    files: Vec<(String, Bytes)>,
}

/// A crash image to check, every operation that had returned before it, and what to do
/// after.
struct Job {
    image: Image,
    acked: Vec<Ack>,
    then: Then,
}

/// What a check does once the recovered ledger proved intact.
#[derive(Clone, Copy)]
enum Then {
    /// Closes it: an image taken while its world went on.
    Close,
    /// Commits a proposal: the image that stopped its world.
    Propose,
}

/// Runs worlds until `losses` crash images were checked, or one failed. The images are
/// checked on another thread, beside the worlds.
fn run(order: Order, seed: u64, losses: usize) -> (Counts, Option<Found>) {
    let ledgers = Ledgers::new(order);
    let mut counts = Counts::default();
    let found: Mutex<Option<Found>> = Mutex::new(None);
    let report = |f: Found| {
        locked(&found).get_or_insert(f);
    };
    let checked = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let (jobs, queue) = mpsc::sync_channel::<Job>(32);
        s.spawn(|| {
            for job in queue {
                if found.lock().map_or(true, |f| f.is_some()) {
                    continue;
                }
                match ledgers.recover(&job.image.files, &job.acked, job.then) {
                    Ok(()) => {
                        checked.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(f) => report(Found {
                        failure: at(f, &job.image),
                        files: job.image.files,
                    }),
                }
            }
        });
        let mut run = Run {
            ledgers: &ledgers,
            rng: Rng(seed),
            counts: &mut counts,
            length: 300,
            jobs,
            found: &found,
        };
        if let Err(f) = run.worlds(losses) {
            report(f);
        }
    });
    counts.losses = checked.into_inner();
    (
        counts,
        found.into_inner().unwrap_or_else(|p| p.into_inner()),
    )
}

/// The worlds of a run, on one thread.
struct Run<'r> {
    ledgers: &'r Ledgers,
    rng: Rng,
    counts: &'r mut Counts,
    /// Changing calls a world makes when the power holds: where crashes are drawn from.
    length: u64,
    jobs: mpsc::SyncSender<Job>,
    found: &'r Mutex<Option<Found>>,
}

impl Run<'_> {
    /// Chains of worlds, until enough images are queued, or one failed.
    fn worlds(&mut self, losses: usize) -> Result<(), Found> {
        let template = self.ledgers.template().map_err(|failure| Found {
            failure,
            files: Vec::new(),
        })?;
        let mut w = 0;
        let mut queued = 0;
        for chain in 0.. {
            let failed = || self.found.lock().map_or(true, |f| f.is_some());
            if queued >= losses || failed() {
                return Ok(());
            }
            let mut files = match chain % FROM_NOTHING {
                0 => Vec::new(),
                _ => template.clone(),
            };
            let mut acked = Vec::new();
            for _ in 0..CHAIN {
                let disk = Disk::new(&files, self.plan(), self.rng.next());
                self.ledgers.world(&disk, w).map_err(|failure| Found {
                    failure,
                    files: files.clone(),
                })?;
                w += 1;
                let off = disk.power_off();
                let (images, acks) = disk.take();
                let (changes, log_syncs) = disk.counts();
                if off.before == THE_END {
                    self.length = (self.length * 3 + changes) / 4;
                }
                self.counts.worlds += 1;
                self.counts.acked += acks.len();
                self.counts.log_syncs += log_syncs;
                let images_len = images.len();
                for image in images {
                    let mut want = acked.clone();
                    want.extend_from_slice(&acks[..image.acked]);
                    self.queue(image, want, Then::Close);
                }
                acked.extend_from_slice(&acks[..off.acked]);
                files = off.files.clone();
                self.queue(off, acked.clone(), Then::Propose);
                queued += 1 + images_len;
            }
        }
        Ok(())
    }

    fn queue(&self, image: Image, acked: Vec<Ack>, then: Then) {
        // Fails only once the checker stopped, after a failure it reports itself.
        let _ = self.jobs.send(Job { image, acked, then });
    }

    /// Where a world's power fails: its stop, drawn over the length of a world, and
    /// [`SNAPSHOTS`] images before it.
    fn plan(&mut self) -> Plan {
        let stop = 1 + self.rng.below(self.length);
        let mut snapshots: Vec<u64> = (0..SNAPSHOTS)
            .map(|_| 1 + self.rng.below(stop - 1))
            .filter(|&s| s < stop)
            .collect();
        snapshots.sort_unstable();
        snapshots.dedup();
        Plan {
            snapshots,
            stop: Some(stop),
        }
    }
}

/// Where an image's power loss struck, added to its failure.
fn at(mut f: Failure, image: &Image) -> Failure {
    f.detail = format!(
        "{} (a power loss before change {}, a {})",
        f.detail, image.at, image.before
    );
    f
}

fn seed() -> u64 {
    let seed = std::env::var("ACTIONSEAL_POWER_LOSS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    eprintln!("power-loss seed {seed} (ACTIONSEAL_POWER_LOSS_SEED={seed} runs it again)");
    seed
}

/// Writes a failing image's files where `sqlite3` can open them; returns the directory.
fn keep(seed: u64, files: &[(String, Bytes)]) -> String {
    let dir = std::env::temp_dir().join(format!("actionseal-power-loss-{seed}"));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::create_dir_all(&dir);
    for (name, bytes) in files {
        let _ = std::fs::write(dir.join(name), bytes.to_vec());
    }
    dir.display().to_string()
}

#[test]
fn every_operation_that_returned_survives_ten_thousand_power_losses() {
    let seed = seed();
    let started = Instant::now();
    let (c, found) = run(Order::WriteThenSync, seed, POWER_LOSSES);
    if let Some(Found { failure, files }) = found {
        panic!(
            "seed {seed}, after {} power losses: {:?}: {}; the files are in {}",
            c.losses,
            failure.kind,
            failure.detail,
            keep(seed, &files)
        );
    }
    eprintln!(
        "{} power losses in {} worlds, {:.1?}: {} operations returned, {:.1} a log sync",
        c.losses,
        c.worlds,
        started.elapsed(),
        c.acked,
        c.acked as f64 / c.log_syncs.max(1) as f64
    );
    assert!(c.losses >= POWER_LOSSES, "{} power losses", c.losses);
    assert!(
        c.acked as u64 > c.log_syncs * 3 / 2,
        "threads hardly shared commits: {} operations, {} log syncs",
        c.acked,
        c.log_syncs
    );
}

#[test]
fn a_log_that_acknowledges_commits_before_their_sync_is_caught() {
    let seed = seed();
    let (c, found) = run(Order::SyncThenWrite, seed, POWER_LOSSES);
    let Some(Found { failure, .. }) = found else {
        panic!(
            "seed {seed}: {} power losses missed commits acknowledged before their sync",
            c.losses
        );
    };
    assert_eq!(failure.kind, Kind::Lost, "seed {seed}: {}", failure.detail);
    eprintln!(
        "caught within {} power losses: {}",
        c.losses + 1,
        failure.detail
    );
}
