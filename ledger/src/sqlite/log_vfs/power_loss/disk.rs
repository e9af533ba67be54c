//! The simulated disk below the log VFS: a SQLite VFS (`disk/vfs.rs`) whose files live in
//! memory, and which knows for each file the bytes a power loss would leave (the model is in
//! `power_loss.rs`).
//!
//! Every disk is one directory, `/powerloss-ID/`, and one lock: SQLite's calls on a disk take
//! turns, so that a crash image is taken between two of them. Locks and shared memory behave
//! as the `unix` VFS's do between connections of one process.

mod vfs;

pub(super) use vfs::{vfs, NAME};

use super::{Ack, Rng};
use crate::sync::locked;
use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// A torn write keeps, loses or garbles each sector it covers on its own: 512 bytes, the
/// smallest sector disks write.
const SECTOR: usize = 512;

/// A file's bytes as the system sees them (`now`), as a power loss would certainly leave
/// them (`durable`: as of its last sync), and the changes in between, in order.
#[derive(Default)]
struct Content {
    now: Bytes,
    durable: Bytes,
    pending: Vec<Change>,
}

enum Change {
    Write(usize, Vec<u8>),
    Truncate(usize),
}

impl Change {
    fn apply(&self, bytes: &mut Bytes) {
        match self {
            Change::Write(at, data) => bytes.write(*at, data),
            Change::Truncate(size) => bytes.resize(*size),
        }
    }
}

/// A page of [`Bytes`].
const PAGE: usize = 4096;

/// A file's bytes in pages shared until written, so that a crash image, or a disk made from
/// one, copies only the pages that differ.
#[derive(Clone, Default)]
pub(super) struct Bytes {
    len: usize,
    pages: Vec<Arc<[u8; PAGE]>>,
}

impl Bytes {
    fn len(&self) -> usize {
        self.len
    }

    fn write(&mut self, at: usize, data: &[u8]) {
        self.resize(self.len.max(at + data.len()));
        let mut done = 0;
        while done < data.len() {
            let (page, from) = ((at + done) / PAGE, (at + done) % PAGE);
            let n = (PAGE - from).min(data.len() - done);
            Arc::make_mut(&mut self.pages[page])[from..from + n]
                .copy_from_slice(&data[done..done + n]);
            done += n;
        }
    }

    /// Copies what lies at `at` into `out`; returns how many bytes there were.
    fn read(&self, at: usize, out: &mut [u8]) -> usize {
        let n = out.len().min(self.len.saturating_sub(at));
        let mut done = 0;
        while done < n {
            let (page, from) = ((at + done) / PAGE, (at + done) % PAGE);
            let k = (PAGE - from).min(n - done);
            out[done..done + k].copy_from_slice(&self.pages[page][from..from + k]);
            done += k;
        }
        n
    }

    /// Grows with zeros, or shrinks (zeroing what it cut off a page, for a later growth).
    fn resize(&mut self, len: usize) {
        static ZERO: OnceLock<Arc<[u8; PAGE]>> = OnceLock::new();
        if len < self.len && !len.is_multiple_of(PAGE) {
            let last = &mut self.pages[len / PAGE];
            if last[len % PAGE..].iter().any(|&b| b != 0) {
                Arc::make_mut(last)[len % PAGE..].fill(0);
            }
        }
        let zero = ZERO.get_or_init(|| Arc::new([0; PAGE]));
        self.pages.resize(len.div_ceil(PAGE), zero.clone());
        self.len = len;
    }

    pub(super) fn to_vec(&self) -> Vec<u8> {
        let mut v = vec![0; self.len];
        self.read(0, &mut v);
        v
    }
}

/// Where the disk crashes: before the changing calls (writes, truncations, syncs, creations,
/// deletions) of these numbers, counted from 1. At `snapshots` the world goes on; at `stop`
/// the power is off and every later call fails.
#[derive(Default)]
pub(super) struct Plan {
    pub(super) snapshots: Vec<u64>,
    pub(super) stop: Option<u64>,
}

/// What [`Image::before`] says of the power failing after the last call.
pub(super) const THE_END: &str = "the end";

/// The files a power loss left, and how many operations had returned when it struck.
#[derive(Clone)]
pub(super) struct Image {
    /// Names in the disk's directory, and their bytes.
    pub(super) files: Vec<(String, Bytes)>,
    /// How many of the disk's acknowledged operations had returned.
    pub(super) acked: usize,
    /// The changing call it struck before, and its number.
    pub(super) before: &'static str,
    pub(super) at: u64,
}

pub(super) struct Disk {
    id: u64,
    state: Mutex<State>,
}

struct State {
    files: Vec<Content>,
    /// The directory as the system sees it.
    names: HashMap<String, usize>,
    /// The directory as a power loss would leave it: as of its last sync.
    durable_names: HashMap<String, usize>,
    /// Each file's lock level, by handle.
    locks: HashMap<usize, HashMap<u64, c_int>>,
    /// Shared memory, by database file.
    shm: HashMap<usize, Shm>,
    next_handle: u64,
    /// Changing calls so far.
    changes: u64,
    plan: Plan,
    /// Draws each pending change's fate.
    rng: Rng,
    /// What the power loss that stopped the disk left.
    off: Option<Image>,
    /// What the snapshots left.
    images: Vec<Image>,
    /// Operations that returned, in order.
    acked: Vec<Ack>,
    /// Syncs of a log that had unsynced writes: its commits (and its header's syncs).
    log_syncs: u64,
}

fn registry() -> &'static Mutex<HashMap<u64, Weak<Disk>>> {
    static DISKS: OnceLock<Mutex<HashMap<u64, Weak<Disk>>>> = OnceLock::new();
    DISKS.get_or_init(Mutex::default)
}

impl Disk {
    /// A disk holding `files` (names in its directory), durable, crashing as `plan` says.
    pub(super) fn new(files: &[(String, Bytes)], plan: Plan, seed: u64) -> Arc<Disk> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let mut state = State {
            files: Vec::new(),
            names: HashMap::new(),
            durable_names: HashMap::new(),
            locks: HashMap::new(),
            shm: HashMap::new(),
            next_handle: 1,
            changes: 0,
            plan,
            rng: Rng(seed),
            off: None,
            images: Vec::new(),
            acked: Vec::new(),
            log_syncs: 0,
        };
        for (name, bytes) in files {
            state
                .names
                .insert(format!("/powerloss-{id}/{name}"), state.files.len());
            state.files.push(Content {
                now: bytes.clone(),
                durable: bytes.clone(),
                pending: Vec::new(),
            });
        }
        state.durable_names = state.names.clone();
        let disk = Arc::new(Disk {
            id,
            state: Mutex::new(state),
        });
        let mut r = locked(registry());
        r.retain(|_, d| d.strong_count() > 0);
        r.insert(id, Arc::downgrade(&disk));
        disk
    }

    /// The path of `name` in this disk's directory.
    pub(super) fn path(&self, name: &str) -> String {
        format!("/powerloss-{}/{name}", self.id)
    }

    /// Records an operation that returned, for the crash images taken after it.
    pub(super) fn ack(&self, a: Ack) {
        locked(&self.state).acked.push(a);
    }

    pub(super) fn is_off(&self) -> bool {
        locked(&self.state).off.is_some()
    }

    /// Turns the power off now, if the plan has not; returns the files it left.
    pub(super) fn power_off(&self) -> Image {
        let mut s = locked(&self.state);
        if s.off.is_none() {
            s.off = Some(s.image(THE_END));
        }
        s.off.clone().expect("just set")
    }

    /// The crash images taken while the world went on, and every acknowledged operation.
    pub(super) fn take(&self) -> (Vec<Image>, Vec<Ack>) {
        let mut s = locked(&self.state);
        (std::mem::take(&mut s.images), std::mem::take(&mut s.acked))
    }

    /// Changing calls made, and the log's syncs of unsynced writes.
    pub(super) fn counts(&self) -> (u64, u64) {
        let s = locked(&self.state);
        (s.changes, s.log_syncs)
    }
}

impl State {
    /// Counts a changing call and crashes before it where the plan says; false once the power
    /// is off.
    fn change(&mut self, what: &'static str) -> bool {
        if self.off.is_some() {
            return false;
        }
        self.changes += 1;
        if self.plan.snapshots.contains(&self.changes) {
            let image = self.image(what);
            self.images.push(image);
        }
        if self.plan.stop == Some(self.changes) {
            self.off = Some(self.image(what));
            return false;
        }
        true
    }

    /// What a power loss now leaves: each file named in the durable directory, with its
    /// durable bytes and each change since its last sync, in order, kept, lost or torn.
    fn image(&mut self, before: &'static str) -> Image {
        let mut names: Vec<(&String, &usize)> = self.durable_names.iter().collect();
        names.sort();
        let rng = &mut self.rng;
        let files = names
            .into_iter()
            .map(|(name, &id)| {
                let c = &self.files[id];
                let mut bytes = c.durable.clone();
                for change in &c.pending {
                    match rng.below(3) {
                        0 => change.apply(&mut bytes),
                        1 => {}
                        _ => tear(change, &mut bytes, rng),
                    }
                }
                let short = name.rsplit_once('/').map_or(name.as_str(), |(_, n)| n);
                (short.to_owned(), bytes)
            })
            .collect();
        Image {
            files,
            acked: self.acked.len(),
            before,
            at: self.changes,
        }
    }

    /// Syncs the directory: its names as they are now are the ones a power loss leaves.
    fn sync_directory(&mut self) {
        self.durable_names = self.names.clone();
    }
}

/// Applies part of a change: a truncation or not, each sector of a write kept, lost or
/// filled with garbage.
fn tear(change: &Change, bytes: &mut Bytes, rng: &mut Rng) {
    let Change::Write(at, data) = change else {
        if rng.below(2) == 0 {
            change.apply(bytes);
        }
        return;
    };
    let mut start = *at;
    let end = at + data.len();
    while start < end {
        let stop = ((start / SECTOR + 1) * SECTOR).min(end);
        let piece = &data[start - at..stop - at];
        match rng.below(3) {
            0 => bytes.write(start, piece),
            1 => {}
            _ => {
                let garbage: Vec<u8> = (0..piece.len()).map(|_| rng.next() as u8).collect();
                bytes.write(start, &garbage);
            }
        }
        start = stop;
    }
}

/// Shared memory of one database file: regions of SQLite's size, 8-aligned, and its 8 locks.
struct Shm {
    regions: Vec<(*mut u64, usize)>,
    users: usize,
    shared: [u32; 8],
    exclusive: [Option<u64>; 8],
}

// SAFETY: the regions are plain memory, freed only when the last user unmaps them.
unsafe impl Send for Shm {}

impl Drop for Shm {
    fn drop(&mut self) {
        for &(p, words) in &self.regions {
            // SAFETY: allocated by `shm_map` as a boxed slice of `words` words.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, words)) });
        }
    }
}
