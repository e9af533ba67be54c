//! Salts for sensitive values' commitments (issue 29), taken from a block of the host's CSPRNG
//! drawn ahead (core's [`SaltBlock`], which says why and keeps each byte to one use).
//! JavaScript hosts do not fork, so a block cannot be inherited by another process.

use actionseal_core::sensitive::{SaltBlock, SALT_BLOCK, SALT_BYTES};
use std::cell::RefCell;

thread_local! {
    /// This thread's block (each Node environment and each WebAssembly instance runs on one
    /// thread).
    static POOL: RefCell<SaltBlock> = const { RefCell::new(SaltBlock::new()) };
}

/// Fills `slots` with salts from this thread's block, drawing a new block with `fill` (the
/// host's CSPRNG: it fills the slice it is given, of at most [`SALT_BLOCK`] bytes) when too
/// few bytes are left. More salts than a block holds are drawn straight into `slots`. `fill`
/// may run JavaScript that calls back into this function: no borrow of the block is held
/// meanwhile, and the block it draws replaces whatever the inner call left.
pub fn draw<E>(
    slots: &mut [[u8; SALT_BYTES]],
    mut fill: impl FnMut(&mut [u8]) -> Result<(), E>,
) -> Result<(), E> {
    let out = slots.as_flattened_mut();
    if out.is_empty() {
        return Ok(());
    }
    if out.len() > SALT_BLOCK {
        return out.chunks_mut(SALT_BLOCK).try_for_each(fill);
    }
    if POOL.with_borrow_mut(|pool| pool.take(out)) {
        return Ok(());
    }
    let mut block = vec![0; SALT_BLOCK];
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
    fn a_failed_draw_hands_out_nothing() {
        POOL.with_borrow_mut(|pool| pool.replace(Vec::new()));
        let mut slots = [[7; SALT_BYTES]; 1];
        assert_eq!(draw(&mut slots, |_| Err("no CSPRNG")), Err("no CSPRNG"));
        assert_eq!(slots, [[7; SALT_BYTES]; 1]);
    }

    #[test]
    fn a_call_made_while_a_block_is_drawn_gets_other_salts() {
        let mut outer = [[0; SALT_BYTES]; 3];
        let mut inner = [[0; SALT_BYTES]; 3];
        POOL.with_borrow_mut(|pool| pool.replace(Vec::new()));
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
