//! The disk as a SQLite VFS: files, locks and shared memory as the `unix` VFS has them
//! between connections of one process, each call taking the disk's lock.

use super::{registry, Bytes, Change, Content, Disk, Shm, State};
use crate::sync::locked;
use rusqlite::ffi;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::null_mut;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

/// The name connections open files with.
pub(in crate::sqlite::log_vfs) const NAME: &CStr = c"actionseal-power-loss-disk";

/// How long a sync of a log takes (outside the disk's lock; the system's timer makes it
/// longer).
const SYNC_TIME: std::time::Duration = std::time::Duration::from_micros(20);

/// What the disk tells SQLite about itself: what the `unix` VFS says on Linux (os_unix.c,
/// `setDeviceCharacteristics`), so that SQLite writes as it does in production.
const SECTOR_SIZE: c_int = 4096;
const CHARACTERISTICS: c_int = ffi::SQLITE_IOCAP_POWERSAFE_OVERWRITE;

/// Registers the VFS (once per process) and returns the one SQLite holds.
pub(in crate::sqlite::log_vfs) fn vfs() -> *mut ffi::sqlite3_vfs {
    static DONE: OnceLock<usize> = OnceLock::new();
    // SAFETY: runs once; the default VFS's time, sleep, randomness and library functions
    // ignore the VFS they are given.
    *DONE.get_or_init(|| unsafe {
        let default = ffi::sqlite3_vfs_find(std::ptr::null());
        assert!(!default.is_null(), "SQLite has no default VFS");
        let mut v = *default;
        v.iVersion = 2;
        v.szOsFile = std::mem::size_of::<SimFile>() as c_int;
        v.mxPathname = 512;
        v.pNext = null_mut();
        v.zName = NAME.as_ptr();
        v.pAppData = null_mut();
        v.xOpen = Some(open);
        v.xDelete = Some(delete);
        v.xAccess = Some(access);
        v.xFullPathname = Some(full_pathname);
        v.xSetSystemCall = None;
        v.xGetSystemCall = None;
        v.xNextSystemCall = None;
        let v = Box::into_raw(Box::new(v));
        assert_eq!(ffi::sqlite3_vfs_register(v, 0), ffi::SQLITE_OK);
        v as usize
    }) as *mut ffi::sqlite3_vfs
}

/// A file SQLite opened: this header, in SQLite's allocation.
#[repr(C)]
struct SimFile {
    base: ffi::sqlite3_file,
    handle: *mut Handle,
}

struct Handle {
    id: u64,
    /// `None`: a temporary file of SQLite's own (`temp`), on no disk.
    disk: Option<Arc<Disk>>,
    file: usize,
    temp: Bytes,
    /// Syncs the directory at its first sync, as `unix` does for a log or journal opened
    /// to be created (os_unix.c, `UNIXFILE_DIRSYNC`).
    dirsync: bool,
    log: bool,
    lock: c_int,
    shm_mapped: bool,
    shm_shared: u8,
    shm_exclusive: u8,
}

/// The handle of a file this VFS opened.
///
/// # Safety
/// `file` must be open (its methods set by `open`, not yet closed).
unsafe fn handle<'f>(file: *mut ffi::sqlite3_file) -> &'f mut Handle {
    &mut *(*file.cast::<SimFile>()).handle
}

/// The disk `path` is on.
fn disk_of(path: &str) -> Option<Arc<Disk>> {
    let rest = path.strip_prefix("/powerloss-")?;
    let (id, _) = rest.split_once('/')?;
    locked(registry()).get(&id.parse().ok()?)?.upgrade()
}

/// A C string SQLite passed, as text.
///
/// # Safety
/// `name` must be null or a NUL-terminated string.
unsafe fn text(name: *const c_char) -> Option<String> {
    (!name.is_null()).then(|| CStr::from_ptr(name).to_string_lossy().into_owned())
}

unsafe extern "C" fn open(
    _vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let f = file.cast::<SimFile>();
    (*f).base.pMethods = std::ptr::null();
    let mut h = Handle {
        id: 0,
        disk: None,
        file: 0,
        temp: Bytes::default(),
        dirsync: false,
        log: flags & ffi::SQLITE_OPEN_WAL != 0,
        lock: ffi::SQLITE_LOCK_NONE,
        shm_mapped: false,
        shm_shared: 0,
        shm_exclusive: 0,
    };
    if let Some(path) = text(name) {
        let Some(disk) = disk_of(&path) else {
            return ffi::SQLITE_CANTOPEN;
        };
        {
            let mut s = locked(&disk.state);
            if s.off.is_some() {
                return ffi::SQLITE_CANTOPEN;
            }
            let create = flags & ffi::SQLITE_OPEN_CREATE != 0;
            match s.names.get(&path) {
                Some(_) if create && flags & ffi::SQLITE_OPEN_EXCLUSIVE != 0 => {
                    return ffi::SQLITE_CANTOPEN;
                }
                Some(&id) => h.file = id,
                None if !create => return ffi::SQLITE_CANTOPEN,
                None => {
                    if !s.change("create") {
                        return ffi::SQLITE_CANTOPEN;
                    }
                    h.file = s.files.len();
                    s.files.push(Content::default());
                    // A file deleted on close is unlinked at once (as `unix` does).
                    if flags & ffi::SQLITE_OPEN_DELETEONCLOSE == 0 {
                        s.names.insert(path, h.file);
                    }
                }
            }
            let journal = ffi::SQLITE_OPEN_WAL
                | ffi::SQLITE_OPEN_MAIN_JOURNAL
                | ffi::SQLITE_OPEN_SUPER_JOURNAL;
            h.dirsync = create && flags & journal != 0;
            h.id = s.next_handle;
            s.next_handle += 1;
        }
        h.disk = Some(disk);
    }
    (*f).handle = Box::into_raw(Box::new(h));
    (*f).base.pMethods = &METHODS;
    if !out_flags.is_null() {
        *out_flags = flags;
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn delete(_vfs: *mut ffi::sqlite3_vfs, name: *const c_char, dir: c_int) -> c_int {
    let Some(path) = text(name) else {
        return ffi::SQLITE_IOERR_DELETE;
    };
    let Some(disk) = disk_of(&path) else {
        return ffi::SQLITE_IOERR_DELETE_NOENT;
    };
    let mut s = locked(&disk.state);
    if !s.names.contains_key(&path) {
        return ffi::SQLITE_IOERR_DELETE_NOENT;
    }
    if !s.change("delete") {
        return ffi::SQLITE_IOERR_DELETE;
    }
    s.names.remove(&path);
    if dir != 0 {
        s.sync_directory();
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn access(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    _flags: c_int,
    out: *mut c_int,
) -> c_int {
    *out = 0;
    let Some(path) = text(name) else {
        return ffi::SQLITE_OK;
    };
    let Some(disk) = disk_of(&path) else {
        return ffi::SQLITE_OK;
    };
    let s = locked(&disk.state);
    if s.off.is_some() {
        return ffi::SQLITE_IOERR_ACCESS;
    }
    *out = c_int::from(s.names.contains_key(&path));
    ffi::SQLITE_OK
}

unsafe extern "C" fn full_pathname(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    size: c_int,
    out: *mut c_char,
) -> c_int {
    let bytes = CStr::from_ptr(name).to_bytes_with_nul();
    if bytes.len() > size as usize {
        return ffi::SQLITE_CANTOPEN;
    }
    std::ptr::copy_nonoverlapping(bytes.as_ptr().cast(), out, bytes.len());
    ffi::SQLITE_OK
}

static METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 2,
    xClose: Some(close),
    xRead: Some(read),
    xWrite: Some(write),
    xTruncate: Some(truncate),
    xSync: Some(sync),
    xFileSize: Some(file_size),
    xLock: Some(lock_file),
    xUnlock: Some(unlock_file),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: Some(shm_map),
    xShmLock: Some(shm_lock),
    xShmBarrier: Some(shm_barrier),
    xShmUnmap: Some(shm_unmap),
    xFetch: None,
    xUnfetch: None,
};

/// Runs `f` on the handle's bytes: a temporary file's, or its file's on its disk.
unsafe fn with_content<T>(
    file: *mut ffi::sqlite3_file,
    f: impl FnOnce(&mut Handle, Option<&mut State>) -> T,
) -> T {
    let h = handle(file);
    match h.disk.clone() {
        None => f(h, None),
        Some(d) => f(h, Some(&mut locked(&d.state))),
    }
}

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    shm_unmap(file, 0);
    with_content(file, |h, s| {
        if let Some(s) = s {
            if let Some(l) = s.locks.get_mut(&h.file) {
                l.remove(&h.id);
            }
        }
    });
    drop(Box::from_raw((*file.cast::<SimFile>()).handle));
    (*file.cast::<SimFile>()).handle = null_mut();
    ffi::SQLITE_OK
}

unsafe extern "C" fn read(
    file: *mut ffi::sqlite3_file,
    buf: *mut c_void,
    amount: c_int,
    offset: i64,
) -> c_int {
    let out = std::slice::from_raw_parts_mut(buf.cast::<u8>(), amount as usize);
    with_content(file, |h, s| {
        let bytes = match s {
            None => &h.temp,
            Some(s) if s.off.is_some() => return ffi::SQLITE_IOERR_READ,
            Some(s) => &s.files[h.file].now,
        };
        let n = bytes.read(offset as usize, out);
        if n < out.len() {
            out[n..].fill(0);
            return ffi::SQLITE_IOERR_SHORT_READ;
        }
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn write(
    file: *mut ffi::sqlite3_file,
    data: *const c_void,
    amount: c_int,
    offset: i64,
) -> c_int {
    let data = std::slice::from_raw_parts(data.cast::<u8>(), amount as usize);
    with_content(file, |h, s| {
        let Some(s) = s else {
            h.temp.write(offset as usize, data);
            return ffi::SQLITE_OK;
        };
        if !s.change("write") {
            return ffi::SQLITE_IOERR_WRITE;
        }
        let c = &mut s.files[h.file];
        c.now.write(offset as usize, data);
        c.pending
            .push(Change::Write(offset as usize, data.to_vec()));
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn truncate(file: *mut ffi::sqlite3_file, size: i64) -> c_int {
    with_content(file, |h, s| {
        let Some(s) = s else {
            h.temp.resize(size as usize);
            return ffi::SQLITE_OK;
        };
        if !s.change("truncate") {
            return ffi::SQLITE_IOERR_TRUNCATE;
        }
        let c = &mut s.files[h.file];
        c.now.resize(size as usize);
        c.pending.push(Change::Truncate(size as usize));
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn sync(file: *mut ffi::sqlite3_file, _flags: c_int) -> c_int {
    if handle(file).log {
        // A flush takes time: threads queue behind a commit, as on a disk.
        std::thread::sleep(SYNC_TIME);
    }
    with_content(file, |h, s| {
        let Some(s) = s else {
            return ffi::SQLITE_OK;
        };
        if !s.change("sync") {
            return ffi::SQLITE_IOERR_FSYNC;
        }
        let c = &mut s.files[h.file];
        if h.log && !c.pending.is_empty() {
            s.log_syncs += 1;
        }
        let c = &mut s.files[h.file];
        for change in c.pending.drain(..) {
            change.apply(&mut c.durable);
        }
        if std::mem::take(&mut h.dirsync) {
            s.sync_directory();
        }
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn file_size(file: *mut ffi::sqlite3_file, size: *mut i64) -> c_int {
    with_content(file, |h, s| {
        let len = match s {
            None => h.temp.len(),
            Some(s) if s.off.is_some() => return ffi::SQLITE_IOERR_FSTAT,
            Some(s) => s.files[h.file].now.len(),
        };
        *size = len as i64;
        ffi::SQLITE_OK
    })
}

/// The `unix` VFS's locks between connections of one process: shared, reserved (one
/// writer), pending (no new readers), exclusive (no other reader).
unsafe extern "C" fn lock_file(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    with_content(file, |h, s| {
        let Some(s) = s else {
            return ffi::SQLITE_OK;
        };
        if h.lock >= level {
            return ffi::SQLITE_OK;
        }
        if s.off.is_some() {
            return ffi::SQLITE_IOERR_LOCK;
        }
        let locks = s.locks.entry(h.file).or_default();
        let others = |at_least: c_int| locks.iter().any(|(&id, &l)| id != h.id && l >= at_least);
        let got = match level {
            ffi::SQLITE_LOCK_SHARED if others(ffi::SQLITE_LOCK_PENDING) => None,
            ffi::SQLITE_LOCK_RESERVED if others(ffi::SQLITE_LOCK_RESERVED) => None,
            ffi::SQLITE_LOCK_EXCLUSIVE if others(ffi::SQLITE_LOCK_PENDING) => None,
            // Pending first: no new reader comes in while the others finish.
            ffi::SQLITE_LOCK_EXCLUSIVE if others(ffi::SQLITE_LOCK_SHARED) => {
                Some(ffi::SQLITE_LOCK_PENDING)
            }
            _ => Some(level),
        };
        if let Some(l) = got {
            h.lock = l;
            locks.insert(h.id, l);
        }
        if got == Some(level) {
            ffi::SQLITE_OK
        } else {
            ffi::SQLITE_BUSY
        }
    })
}

unsafe extern "C" fn unlock_file(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    with_content(file, |h, s| {
        if let Some(s) = s {
            h.lock = h.lock.min(level);
            let locks = s.locks.entry(h.file).or_default();
            if h.lock == ffi::SQLITE_LOCK_NONE {
                locks.remove(&h.id);
            } else {
                locks.insert(h.id, h.lock);
            }
        }
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn check_reserved_lock(file: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    with_content(file, |h, s| {
        *out = 0;
        let Some(s) = s else {
            return ffi::SQLITE_OK;
        };
        if s.off.is_some() {
            return ffi::SQLITE_IOERR_CHECKRESERVEDLOCK;
        }
        let reserved = s
            .locks
            .get(&h.file)
            .is_some_and(|l| l.values().any(|&l| l >= ffi::SQLITE_LOCK_RESERVED));
        *out = c_int::from(reserved);
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn file_control(
    _file: *mut ffi::sqlite3_file,
    _op: c_int,
    _arg: *mut c_void,
) -> c_int {
    ffi::SQLITE_NOTFOUND
}

unsafe extern "C" fn sector_size(_file: *mut ffi::sqlite3_file) -> c_int {
    SECTOR_SIZE
}

unsafe extern "C" fn device_characteristics(_file: *mut ffi::sqlite3_file) -> c_int {
    CHARACTERISTICS
}

unsafe extern "C" fn shm_map(
    file: *mut ffi::sqlite3_file,
    region: c_int,
    size: c_int,
    extend: c_int,
    out: *mut *mut c_void,
) -> c_int {
    *out = null_mut();
    with_content(file, |h, s| {
        let Some(s) = s else {
            return ffi::SQLITE_IOERR_SHMMAP;
        };
        if s.off.is_some() {
            return ffi::SQLITE_IOERR_SHMMAP;
        }
        let shm = s.shm.entry(h.file).or_insert_with(|| Shm {
            regions: Vec::new(),
            users: 0,
            shared: [0; 8],
            exclusive: [None; 8],
        });
        if !h.shm_mapped {
            h.shm_mapped = true;
            shm.users += 1;
        }
        let region = region as usize;
        if shm.regions.len() <= region {
            if extend == 0 {
                return ffi::SQLITE_OK;
            }
            let words = (size as usize).div_ceil(8);
            while shm.regions.len() <= region {
                let p = Box::into_raw(vec![0u64; words].into_boxed_slice());
                shm.regions.push((p.cast::<u64>(), words));
            }
        }
        *out = shm.regions[region].0.cast();
        ffi::SQLITE_OK
    })
}

/// The `unix` VFS's shared-memory locks: each of the 8 shared by many or held by one.
unsafe extern "C" fn shm_lock(
    file: *mut ffi::sqlite3_file,
    offset: c_int,
    n: c_int,
    flags: c_int,
) -> c_int {
    with_content(file, |h, s| {
        let Some(s) = s else {
            return ffi::SQLITE_IOERR_SHMLOCK;
        };
        let range = offset as usize..(offset + n) as usize;
        let mask = range.clone().fold(0u8, |m, i| m | 1 << i);
        let off = s.off.is_some();
        let unlock = flags & ffi::SQLITE_SHM_UNLOCK != 0;
        let Some(shm) = s.shm.get_mut(&h.file) else {
            // Unmapped: it holds nothing.
            return if unlock {
                ffi::SQLITE_OK
            } else {
                ffi::SQLITE_IOERR_SHMLOCK
            };
        };
        let shared = flags & ffi::SQLITE_SHM_SHARED != 0;
        if unlock {
            for i in range {
                if shared && h.shm_shared & 1 << i != 0 {
                    shm.shared[i] -= 1;
                } else if !shared && h.shm_exclusive & 1 << i != 0 {
                    shm.exclusive[i] = None;
                }
            }
            if shared {
                h.shm_shared &= !mask;
            } else {
                h.shm_exclusive &= !mask;
            }
            return ffi::SQLITE_OK;
        }
        if off {
            return ffi::SQLITE_IOERR_SHMLOCK;
        }
        if shared {
            if h.shm_shared & mask == mask {
                return ffi::SQLITE_OK;
            }
            if range.clone().any(|i| shm.exclusive[i].is_some()) {
                return ffi::SQLITE_BUSY;
            }
            for i in range {
                shm.shared[i] += 1;
            }
            h.shm_shared |= mask;
        } else {
            if h.shm_exclusive & mask == mask {
                return ffi::SQLITE_OK;
            }
            if range
                .clone()
                .any(|i| shm.shared[i] > 0 || shm.exclusive[i].is_some())
            {
                return ffi::SQLITE_BUSY;
            }
            for i in range {
                shm.exclusive[i] = Some(h.id);
            }
            h.shm_exclusive |= mask;
        }
        ffi::SQLITE_OK
    })
}

unsafe extern "C" fn shm_barrier(_file: *mut ffi::sqlite3_file) {
    std::sync::atomic::fence(Ordering::SeqCst);
}

/// Unmaps the handle's shared memory; the last user's unmapping drops it, as the next
/// `unix` connection to map it would find it truncated.
unsafe extern "C" fn shm_unmap(file: *mut ffi::sqlite3_file, _delete: c_int) -> c_int {
    with_content(file, |h, s| {
        let Some(s) = s else {
            return ffi::SQLITE_OK;
        };
        if !std::mem::take(&mut h.shm_mapped) {
            return ffi::SQLITE_OK;
        }
        let Some(shm) = s.shm.get_mut(&h.file) else {
            return ffi::SQLITE_OK;
        };
        for i in 0..8 {
            if h.shm_shared & 1 << i != 0 {
                shm.shared[i] -= 1;
            }
            if h.shm_exclusive & 1 << i != 0 {
                shm.exclusive[i] = None;
            }
        }
        (h.shm_shared, h.shm_exclusive) = (0, 0);
        shm.users -= 1;
        if shm.users == 0 {
            s.shm.remove(&h.file);
        }
        ffi::SQLITE_OK
    })
}
