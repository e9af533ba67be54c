//! Salts for sensitive values' commitments (issue 29), taken from a block of the OS CSPRNG
//! (getrandom(2), what `os.urandom` reads) drawn ahead: one system call per 85 commits of
//! three values instead of one per commit. Every byte is handed out once, and zeroed as it is
//! taken: a salt is what keeps a low-entropy value (a card number) from being guessed from
//! its commitment, so the block keeps no copy of one in use.
//!
//! Fork-safe: a child must never hand out what its parent's block still holds, or both would
//! salt with the same bytes. A `pthread_atfork` child handler counts forks, and a block drawn
//! before the latest fork is dropped unused. libc runs that handler for every `fork()`:
//! `os.fork`, `multiprocessing` and C extensions alike (`os.register_at_fork` would see only
//! `os.fork`); reading a counter costs nothing, where `getpid()` is a system call.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once, TryLockError};

/// Bytes drawn from the OS at a time: 256 salts.
const BLOCK: usize = 4096;

/// How many times this process's ancestors and itself were forked since the module loaded,
/// as this process sees it: each child adds one.
static FORKS: AtomicU64 = AtomicU64::new(0);

/// Registers [`forked`] once, before the first block is drawn.
static HOOK: Once = Once::new();

/// The unused rest of the last block drawn.
struct Pool {
    bytes: Vec<u8>,
    /// Where the unused bytes begin; the bytes before it are zero.
    next: usize,
    /// [`FORKS`] when the block was drawn.
    forks: u64,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    bytes: Vec::new(),
    next: 0,
    forks: 0,
});

/// The child's side of every fork (async-signal-safe: one atomic add).
extern "C" fn forked() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// Fills `out` with bytes from the OS CSPRNG, through the block when it can. When another
/// thread holds the block (the GIL released around a large commit), or a fork left it locked
/// in this child, the bytes are drawn straight: never a wait, never a deadlock.
pub(crate) fn draw(out: &mut [u8]) -> Result<(), getrandom::Error> {
    if out.is_empty() {
        return Ok(());
    }
    if out.len() > BLOCK {
        return getrandom::fill(out);
    }
    HOOK.call_once(|| {
        // SAFETY: registers a handler with libc; `forked` only touches an atomic.
        unsafe { libc::pthread_atfork(None, None, Some(forked)) };
    });
    let mut pool = match POOL.try_lock() {
        Ok(pool) => pool,
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
        Err(TryLockError::WouldBlock) => return getrandom::fill(out),
    };
    let forks = FORKS.load(Ordering::Relaxed);
    let end = pool.next + out.len();
    if pool.forks != forks || end > pool.bytes.len() {
        let mut bytes = vec![0; BLOCK];
        getrandom::fill(&mut bytes)?;
        *pool = Pool {
            bytes,
            next: 0,
            forks,
        };
    }
    let start = pool.next;
    let taken = &mut pool.bytes[start..start + out.len()];
    out.copy_from_slice(taken);
    taken.fill(0);
    pool.next = start + out.len();
    Ok(())
}
