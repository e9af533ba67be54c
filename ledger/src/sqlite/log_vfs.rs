//! A SQLite VFS that writes each commit's log frames with one system call.
//!
//! SQLite writes a WAL frame as two `pwrite`s, its 24-byte header and then its page, so a commit
//! makes two system calls per page and the kernel dirties each page of the log several times over,
//! a large share of a commit's CPU (bench/README.md). This VFS is the default one (`unix`) except
//! for the log file: writes that follow each other in the file are gathered in memory and written
//! at once when the commit frame (the last frame of a transaction, whose header carries the
//! database size) has been written, or before anything else touches the log: a read (the writer
//! reading back its own frames), a sync, a size, a truncation, a file control, a write elsewhere,
//! or closing the file. So the log is written before the commit becomes visible (SQLite publishes
//! it in the shared index only after the frames are written), and before every sync, exactly as
//! without this VFS; only the number of calls changes.
//!
//! Frames written outside a commit (a page cache spilling in the middle of a transaction)
//! would stay gathered if that transaction then rolled back, and could later overwrite another
//! writer's frames: connections that use this VFS turn spilling off (`PRAGMA
//! cache_spill=OFF`, set in `open.rs`), so every frame written belongs to a commit (`tests.rs`
//! finds the file corrupt when spilling is on). Gathered bytes are also written once they pass
//! [`LIMIT`], in order, as SQLite would have.
//!
//! `power_loss.rs` runs ledgers through this VFS over a simulated disk that loses power, and
//! checks that every commit that returned survives.

use rusqlite::ffi;
use std::ffi::{c_int, c_void, CStr};
use std::ptr::null_mut;
use std::sync::OnceLock;

/// The name connections open files with.
pub(crate) const NAME: &CStr = c"actionseal-log";

/// Gathered bytes beyond this are written at once (a transaction of a hundred pages).
const LIMIT: usize = 1 << 18;

/// The most one write passes to the default VFS: `unix` writes at most 128 KiB - 1 bytes a
/// call (it masks larger sizes, and fails them as a full disk).
const CHUNK: usize = 1 << 16;

/// The size of a frame's header in a SQLite log, fixed by its file format.
const FRAME_HEADER: c_int = 24;

/// Registers the VFS (once per process) over the default one; `false` when SQLite refused
/// it, and connections then use the default VFS.
pub(crate) fn registered() -> bool {
    static DONE: OnceLock<bool> = OnceLock::new();
    // SAFETY: runs once, on the default VFS SQLite gives.
    *DONE.get_or_init(|| unsafe {
        over(NAME, ffi::sqlite3_vfs_find(std::ptr::null())).is_some_and(|v| register(v))
    })
}

/// A log VFS as registered: SQLite's structure first (SQLite hands `open` the pointer it was
/// registered with), then the VFS it wraps.
#[repr(C)]
struct LogVfs {
    vfs: ffi::sqlite3_vfs,
    real: *mut ffi::sqlite3_vfs,
    #[cfg(test)]
    order: Order,
}

#[cfg(test)]
thread_local! {
    /// Writes this VFS made to log files on this thread (counted for the tests).
    static WRITES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How a log file orders a commit's frames and its sync. Only the tests build the wrong
/// order, to show that the power-loss test catches it (`log_vfs/power_loss.rs`).
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// The frames are written, then synced: what ships.
    WriteThenSync,
    /// Broken: a commit's frames stay gathered through its sync, which reaches the disk
    /// first, and are written after it. The commit is acknowledged before its frames are
    /// durable; only a power loss shows it.
    SyncThenWrite,
}

/// A log VFS named `name` over `real`, not yet registered.
///
/// # Safety
/// `real` must be null or a registered VFS.
unsafe fn over(name: &'static CStr, real: *mut ffi::sqlite3_vfs) -> Option<LogVfs> {
    if real.is_null() || (*real).xOpen.is_none() {
        return None;
    }
    // The wrapped VFS's methods and data, so that its own functions, which read `pAppData`
    // from the VFS they are given, work when given this one.
    let mut vfs = *real;
    vfs.szOsFile = HEADER as c_int + (*real).szOsFile;
    vfs.zName = name.as_ptr();
    vfs.pNext = null_mut();
    vfs.xOpen = Some(open);
    Some(LogVfs {
        vfs,
        real,
        #[cfg(test)]
        order: Order::WriteThenSync,
    })
}

/// Registers `v`, for as long as the process lives: SQLite keeps a pointer to it.
///
/// # Safety
/// Calls SQLite's C API.
unsafe fn register(v: LogVfs) -> bool {
    let v = Box::into_raw(Box::new(v));
    ffi::sqlite3_vfs_register(v.cast(), 0) == ffi::SQLITE_OK
}

/// A log file: this header, then the wrapped VFS's file in the rest of SQLite's allocation.
#[repr(C)]
struct LogFile {
    base: ffi::sqlite3_file,
    real: *mut ffi::sqlite3_file,
    gathered: *mut Gathered,
    #[cfg(test)]
    order: Order,
}

/// Where the real file begins in the allocation (8-aligned, as SQLite's allocations are).
const HEADER: usize = std::mem::size_of::<LogFile>().next_multiple_of(8);

/// Writes not yet made: `bytes` belong at `offset` in the file.
#[derive(Default)]
struct Gathered {
    bytes: Vec<u8>,
    offset: i64,
    /// The last write was a commit frame's header: its page comes next, and ends the commit.
    commit_header: bool,
}

unsafe extern "C" fn open(
    vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY: SQLite gives the pointer `register` registered, a `LogVfs`.
    let this = &*vfs.cast::<LogVfs>();
    let real_vfs = this.real;
    let Some(real_open) = real_vfs.as_ref().and_then(|v| v.xOpen) else {
        return ffi::SQLITE_CANTOPEN;
    };
    if flags & ffi::SQLITE_OPEN_WAL == 0 {
        // Any other file is the wrapped VFS's own, at the start of the allocation (which is
        // larger than it needs).
        return real_open(real_vfs, name, file, flags, out_flags);
    }
    let log = file.cast::<LogFile>();
    let real = file.cast::<u8>().add(HEADER).cast::<ffi::sqlite3_file>();
    (*log).base.pMethods = std::ptr::null();
    (*real).pMethods = std::ptr::null();
    (*log).real = real;
    (*log).gathered = null_mut();
    #[cfg(test)]
    {
        (*log).order = this.order;
    }
    let rc = real_open(real_vfs, name, real, flags, out_flags);
    if rc != ffi::SQLITE_OK {
        // A file whose methods are set must be closed even when opening failed.
        if let Some(close) = (*real).pMethods.as_ref().and_then(|m| m.xClose) {
            close(real);
        }
        return rc;
    }
    (*log).gathered = Box::into_raw(Box::default());
    (*log).base.pMethods = &LOG_METHODS;
    ffi::SQLITE_OK
}

static LOG_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    // Version 1: a log has no shared memory and is never memory-mapped.
    iVersion: 1,
    xClose: Some(close),
    xRead: Some(read),
    xWrite: Some(write),
    xTruncate: Some(truncate),
    xSync: Some(sync),
    xFileSize: Some(file_size),
    xLock: Some(lock),
    xUnlock: Some(unlock),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: None,
    xShmLock: None,
    xShmBarrier: None,
    xShmUnmap: None,
    xFetch: None,
    xUnfetch: None,
};

/// The wrapped VFS's file and its methods.
///
/// # Safety
/// `file` must be a log file this VFS opened, not yet closed.
unsafe fn real(
    file: *mut ffi::sqlite3_file,
) -> (*mut ffi::sqlite3_file, &'static ffi::sqlite3_io_methods) {
    let real = (*file.cast::<LogFile>()).real;
    // Set by the wrapped VFS's successful open, and never changed.
    (real, &*(*real).pMethods)
}

/// What is gathered for a log file.
///
/// # Safety
/// As for [`real`]; no other reference to it may be alive.
unsafe fn gathered<'f>(file: *mut ffi::sqlite3_file) -> &'f mut Gathered {
    // Set by `open`, freed only by `close`.
    &mut *(*file.cast::<LogFile>()).gathered
}

/// Writes what is gathered.
///
/// # Safety
/// As for [`real`].
unsafe fn flush(file: *mut ffi::sqlite3_file) -> c_int {
    let g = gathered(file);
    g.commit_header = false;
    if g.bytes.is_empty() {
        return ffi::SQLITE_OK;
    }
    let (real, m) = real(file);
    let Some(w) = m.xWrite else {
        g.bytes.clear();
        return ffi::SQLITE_IOERR_WRITE;
    };
    let mut rc = ffi::SQLITE_OK;
    let mut offset = g.offset;
    for chunk in g.bytes.chunks(CHUNK) {
        rc = w(real, chunk.as_ptr().cast(), chunk.len() as c_int, offset);
        if rc != ffi::SQLITE_OK {
            break;
        }
        offset += chunk.len() as i64;
        #[cfg(test)]
        WRITES.set(WRITES.get() + 1);
    }
    // Written or not, the bytes are dropped: a failed write fails its transaction, which
    // SQLite writes again from its own pages if it retries.
    g.bytes.clear();
    rc
}

unsafe extern "C" fn write(
    file: *mut ffi::sqlite3_file,
    data: *const c_void,
    amount: c_int,
    offset: i64,
) -> c_int {
    if amount <= 0 || data.is_null() {
        return ffi::SQLITE_OK;
    }
    let g = gathered(file);
    if !g.bytes.is_empty() && offset != g.offset + g.bytes.len() as i64 {
        let rc = flush(file);
        if rc != ffi::SQLITE_OK {
            return rc;
        }
    }
    let g = gathered(file);
    if g.bytes.is_empty() {
        g.offset = offset;
    }
    let data = std::slice::from_raw_parts(data.cast::<u8>(), amount as usize);
    g.bytes.extend_from_slice(data);
    if g.commit_header {
        #[cfg(test)]
        if (*file.cast::<LogFile>()).order == Order::SyncThenWrite {
            g.commit_header = false;
            return ffi::SQLITE_OK;
        }
        // The commit frame's page: the transaction's frames are all here.
        return flush(file);
    }
    if g.bytes.len() > LIMIT {
        let rc = flush(file);
        if rc != ffi::SQLITE_OK {
            return rc;
        }
    }
    // A frame's header holds the database's size in pages after its second word when it is
    // the last frame of a commit, and 0 otherwise. Set after any flush above (which forgets
    // it), so that the commit's page is always written at once. SQLite writes a header in one
    // piece unless a sync falls inside it, and then syncs again after the commit.
    let g = gathered(file);
    g.commit_header = amount == FRAME_HEADER && data[4..8] != [0; 4];
    ffi::SQLITE_OK
}

/// Writes what is gathered, then calls the wrapped VFS's method; the write's error first.
macro_rules! after_flush {
    ($file:ident, $method:ident ( $($arg:expr),* )) => {{
        let rc = flush($file);
        let (real, m) = real($file);
        let out = match m.$method {
            Some(f) => f(real, $($arg),*),
            None => ffi::SQLITE_IOERR,
        };
        if rc != ffi::SQLITE_OK { rc } else { out }
    }};
}

/// Calls the wrapped VFS's method.
macro_rules! forward {
    ($file:ident, $method:ident ( $($arg:expr),* ), $none:expr) => {{
        let (real, m) = real($file);
        match m.$method {
            Some(f) => f(real, $($arg),*),
            None => $none,
        }
    }};
}

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    let rc = after_flush!(file, xClose());
    let log = file.cast::<LogFile>();
    drop(Box::from_raw((*log).gathered));
    (*log).gathered = null_mut();
    rc
}

unsafe extern "C" fn read(
    file: *mut ffi::sqlite3_file,
    buf: *mut c_void,
    amount: c_int,
    offset: i64,
) -> c_int {
    after_flush!(file, xRead(buf, amount, offset))
}

unsafe extern "C" fn truncate(file: *mut ffi::sqlite3_file, size: i64) -> c_int {
    after_flush!(file, xTruncate(size))
}

unsafe extern "C" fn sync(file: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    #[cfg(test)]
    if (*file.cast::<LogFile>()).order == Order::SyncThenWrite {
        let out = forward!(file, xSync(flags), ffi::SQLITE_IOERR_FSYNC);
        let rc = flush(file);
        return if out != ffi::SQLITE_OK { out } else { rc };
    }
    after_flush!(file, xSync(flags))
}

unsafe extern "C" fn file_size(file: *mut ffi::sqlite3_file, size: *mut i64) -> c_int {
    after_flush!(file, xFileSize(size))
}

unsafe extern "C" fn file_control(
    file: *mut ffi::sqlite3_file,
    op: c_int,
    arg: *mut c_void,
) -> c_int {
    after_flush!(file, xFileControl(op, arg))
}

unsafe extern "C" fn lock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    forward!(file, xLock(level), ffi::SQLITE_OK)
}

unsafe extern "C" fn unlock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    forward!(file, xUnlock(level), ffi::SQLITE_OK)
}

unsafe extern "C" fn check_reserved_lock(file: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    forward!(file, xCheckReservedLock(out), ffi::SQLITE_OK)
}

unsafe extern "C" fn sector_size(file: *mut ffi::sqlite3_file) -> c_int {
    forward!(file, xSectorSize(), 4096)
}

unsafe extern "C" fn device_characteristics(file: *mut ffi::sqlite3_file) -> c_int {
    forward!(file, xDeviceCharacteristics(), 0)
}

#[cfg(test)]
mod power_loss;
#[cfg(test)]
mod tests;
