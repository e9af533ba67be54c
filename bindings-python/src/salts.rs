//! Salts for sensitive values' commitments (issue 29), taken from a block of the OS CSPRNG
//! (getrandom(2), what `os.urandom` reads) drawn ahead: core's [`SaltBlock`], which says why
//! and keeps each byte to one use. One system call per 85 commits of three values.
//!
//! Fork-safe: a child must never hand out what its parent's block still holds, or both would
//! salt with the same bytes. A `pthread_atfork` child handler counts forks, and a block drawn
//! before the latest fork is dropped unused. libc runs that handler for every `fork()`:
//! `os.fork`, `multiprocessing` and C extensions alike (`os.register_at_fork` would see only
//! `os.fork`); reading a counter costs nothing, where `getpid()` is a system call.

use actionseal_core::sensitive::{SaltBlock, SALT_BLOCK};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once, TryLockError};

/// How many times this process's ancestors and itself were forked since the module loaded,
/// as this process sees it: each child adds one.
static FORKS: AtomicU64 = AtomicU64::new(0);

/// Registers [`forked`] once, before the first block is drawn.
static HOOK: Once = Once::new();

/// The process's block, and [`FORKS`] when it was drawn.
struct Pool {
    block: SaltBlock,
    forks: u64,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    block: SaltBlock::new(),
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
    if out.len() > SALT_BLOCK {
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
    if pool.forks == forks && pool.block.take(out) {
        return Ok(());
    }
    let mut bytes = vec![0; SALT_BLOCK];
    getrandom::fill(&mut bytes)?;
    pool.block.replace(bytes);
    pool.forks = forks;
    // A fresh block holds at least `out.len()` bytes.
    pool.block.take(out);
    Ok(())
}
