//! A block of random bytes a binding draws ahead from its host's CSPRNG and hands out as salts:
//! one draw from the host serves many commits (a `crypto.getRandomValues` call through Node-API
//! or wasm-bindgen cost about 3 µs, a fifth of a commit of three values; a system call for
//! getrandom(2) costs too). Core does no I/O: the binding draws the bytes, the block decides
//! which go out. Every byte goes out once, and is zeroed as it is taken, since a salt is what
//! keeps a low-entropy value (a card number) from being guessed from its commitment: the block
//! keeps no copy of one in use.

/// Bytes a binding draws from its host at a time: 256 salts, within Web Crypto's 65,536-byte
/// limit of one `getRandomValues` call.
pub const SALT_BLOCK: usize = 4096;

/// The unused rest of the last block drawn.
#[derive(Debug, Default)]
pub struct SaltBlock {
    bytes: Vec<u8>,
    /// Where the unused bytes begin; the bytes before it are zero.
    next: usize,
}

impl SaltBlock {
    /// A block with nothing left: the first take draws.
    pub const fn new() -> SaltBlock {
        SaltBlock {
            bytes: Vec::new(),
            next: 0,
        }
    }

    /// Moves `out.len()` unused bytes into `out`, zeroing them here; false (nothing taken)
    /// when fewer are left.
    pub fn take(&mut self, out: &mut [u8]) -> bool {
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

    /// Replaces what is left (never handed out) with `bytes`, fresh from the host.
    pub fn replace(&mut self, bytes: Vec<u8>) {
        *self = SaltBlock { bytes, next: 0 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_byte_goes_out_once_and_is_zeroed_as_it_goes() {
        let mut block = SaltBlock::new();
        let mut out = [0u8; 16];
        assert!(!block.take(&mut out), "an empty block has nothing to give");
        block.replace((1..=40).collect());
        assert!(block.take(&mut out));
        assert_eq!(out[0], 1);
        assert!(block.take(&mut out));
        assert_eq!(out[0], 17);
        assert!(block.bytes[..block.next].iter().all(|&b| b == 0));
        assert!(!block.take(&mut out), "8 bytes left: none handed out");
        assert_eq!(block.next, 32);
        let mut few = [0u8; 8];
        assert!(block.take(&mut few));
        assert_eq!(few[0], 33);
        assert!(block.bytes.iter().all(|&b| b == 0));
    }
}
