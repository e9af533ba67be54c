//! Salts for sensitive values' commitments (issue 29), taken from a block of the host's CSPRNG
//! drawn ahead. One `crypto.getRandomValues` call through Node-API or wasm-bindgen cost about
//! 3 µs, a fifth of a `commitAction` of three values; a block of [`BLOCK`] bytes serves 85 such
//! calls, each then a copy. Every byte still comes from the host's CSPRNG and is handed out
//! once; it is zeroed as it is taken, since a salt is what keeps a low-entropy value (a card
//! number) from being guessed from its commitment, so the block keeps no copy of one in use.
//! JavaScript hosts do not fork, so a block cannot be inherited by another process.

use actionseal_core::sensitive::SALT_BYTES;
use std::cell::RefCell;

/// Bytes drawn from the host at a time: 256 salts, within Web Crypto's 65,536-byte limit of
/// one `getRandomValues` call.
pub const BLOCK: usize = 4096;

/// The unused rest of the last block drawn on this thread (each Node environment and each
/// WebAssembly instance runs on one thread).
struct Pool {
    bytes: Vec<u8>,
    /// Where the unused bytes begin; the bytes before it are zero.
    next: usize,
}

thread_local! {
    static POOL: RefCell<Pool> = const { RefCell::new(Pool { bytes: Vec::new(), next: 0 }) };
}

impl Pool {
    /// Moves `out.len()` unused bytes into `out`, zeroing them here; false (nothing taken)
    /// when fewer are left.
    fn take(&mut self, out: &mut [u8]) -> bool {
        let Some(end) = self
            .next
            .checked_add(out.len())
            .filter(|&end| end <= self.bytes.len())
        else {
            return false;
        };
        let taken = &mut self.bytes[self.next..end];
        out.copy_from_slice(taken);
        taken.fill(0);
        self.next = end;
        true
    }

    /// Replaces the rest of this block (never handed out) with `bytes`, fresh from the host.
    fn replace(&mut self, bytes: Vec<u8>) {
        *self = Pool { bytes, next: 0 };
    }
}

/// Fills `slots` with salts from this thread's block, drawing a new block with `fill` (the
/// host's CSPRNG: it fills the slice it is given, of at most [`BLOCK`] bytes) when too few
/// bytes are left. More salts than a block holds are drawn straight into `slots`. `fill` may
/// run JavaScript that calls back into this function: no borrow of the block is held
/// meanwhile, and the block it draws replaces whatever the inner call left.
pub fn draw<E>(
    slots: &mut [[u8; SALT_BYTES]],
    mut fill: impl FnMut(&mut [u8]) -> Result<(), E>,
) -> Result<(), E> {
    let out = slots.as_flattened_mut();
    if out.is_empty() {
        return Ok(());
    }
    if out.len() > BLOCK {
        return out.chunks_mut(BLOCK).try_for_each(fill);
    }
    if POOL.with_borrow_mut(|pool| pool.take(out)) {
        return Ok(());
    }
    let mut block = vec![0; BLOCK];
    fill(&mut block)?;
    POOL.with_borrow_mut(|pool| {
        pool.replace(block);
        // A fresh block holds at least `out.len()` bytes.
        pool.take(out)
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// A counter standing in for the CSPRNG: every byte position it fills is distinct, so a
    /// salt handed out twice shows as a repeated salt.
    fn counter() -> impl FnMut(&mut [u8]) -> Result<(), ()> {
        let mut n: u32 = 0;
        move |bytes| {
            for chunk in bytes.chunks_mut(4) {
                n += 1;
                chunk.copy_from_slice(&n.to_le_bytes()[..chunk.len()]);
            }
            Ok(())
        }
    }

    #[test]
    fn salts_are_never_handed_out_twice_and_blocks_are_drawn_rarely() {
        let mut fill = counter();
        let mut calls = 0;
        let mut seen = HashSet::new();
        for n in [3, 1, 0, 7, 255, 3, 256, 300, 3] {
            let mut slots = vec![[0; SALT_BYTES]; n];
            draw(&mut slots, |b| {
                calls += 1;
                fill(b)
            })
            .unwrap();
            for salt in slots {
                assert!(seen.insert(salt), "a salt was handed out twice");
            }
        }
        // 3, 1 and 7 from the first block; 255 from a second, 3 from a third, 256 from a
        // fourth; 300 (4,800 bytes) straight, in two draws; the last 3 from a fifth block.
        assert_eq!(calls, 7);
    }

    #[test]
    fn taken_bytes_are_zeroed_and_a_failed_draw_hands_out_nothing() {
        let mut slots = [[0; SALT_BYTES]; 2];
        draw(&mut slots, counter()).unwrap();
        POOL.with_borrow(|pool| assert!(pool.bytes[..pool.next].iter().all(|&b| b == 0)));
        POOL.with_borrow_mut(|pool| pool.next = pool.bytes.len());
        let mut slots = [[7; SALT_BYTES]; 1];
        assert_eq!(draw(&mut slots, |_| Err("no CSPRNG")), Err("no CSPRNG"));
        assert_eq!(slots, [[7; SALT_BYTES]; 1]);
    }

    #[test]
    fn a_call_made_while_a_block_is_drawn_gets_other_salts() {
        let mut outer = [[0; SALT_BYTES]; 3];
        let mut inner = [[0; SALT_BYTES]; 3];
        POOL.with_borrow_mut(|pool| pool.next = pool.bytes.len());
        let mut fill = counter();
        draw(&mut outer, |b| {
            fill(b)?;
            // The host's getRandomValues, replaced by one that commits too.
            draw(&mut inner, |b2| {
                b2.fill(0xA5);
                Ok::<(), ()>(())
            })
        })
        .unwrap();
        assert!(outer.iter().all(|s| !inner.contains(s)));
    }
}
