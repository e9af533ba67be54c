//! Gathering the second pass's pieces into large writes.

use super::Bytes;

/// Bytes gathered before they go to the sink: large enough that the sink's per-call cost is
/// negligible, small enough to stay in the cache.
const CHUNK: usize = 16 * 1024;

/// Pieces at least this long go to the sink as they are, without a copy.
const DIRECT: usize = 1024;

/// Gathers pieces of output into chunks for a sink, copying short pieces 32 bytes at a time:
/// the source must have 32 bytes after a short piece's start, which callers provide with
/// [`super::cursor::SLACK`], or the piece is copied exactly.
pub(super) struct Chunks<'c, B> {
    buf: &'c mut Vec<u8>,
    len: usize,
    sink: &'c mut B,
}

impl<'c, B: Bytes> Chunks<'c, B> {
    /// Chunks for `sink`, gathered in `buf`.
    pub(super) fn new(buf: &'c mut Vec<u8>, sink: &'c mut B) -> Chunks<'c, B> {
        // Room for a 32-byte copy at any length below CHUNK.
        buf.resize(CHUNK + 64, 0);
        Chunks { buf, len: 0, sink }
    }

    /// Appends `src[from..to]`.
    #[inline(always)]
    pub(super) fn copy(&mut self, src: &[u8], from: usize, to: usize) {
        let n = to - from;
        if n <= 32 {
            if let (Some(d), Some(s)) = (
                self.buf.get_mut(self.len..self.len + 32),
                src.get(from..from + 32),
            ) {
                d.copy_from_slice(s);
                self.len += n;
                if self.len >= CHUNK {
                    self.flush();
                }
                return;
            }
        }
        self.copy_long(&src[from..to]);
    }

    fn copy_long(&mut self, s: &[u8]) {
        if s.len() >= DIRECT {
            self.flush();
            self.sink.put_bytes(s);
            return;
        }
        if self.len + s.len() > CHUNK {
            self.flush();
        }
        self.buf[self.len..self.len + s.len()].copy_from_slice(s);
        self.len += s.len();
        if self.len >= CHUNK {
            self.flush();
        }
    }

    /// Appends one byte.
    #[inline(always)]
    pub(super) fn byte(&mut self, c: u8) {
        match self.buf.get_mut(self.len) {
            Some(d) => {
                *d = c;
                self.len += 1;
                if self.len >= CHUNK {
                    self.flush();
                }
            }
            None => self.copy_long(&[c]),
        }
    }

    /// Sends what is gathered to the sink.
    pub(super) fn flush(&mut self) {
        if self.len > 0 {
            self.sink.put_bytes(&self.buf[..self.len]);
            self.len = 0;
        }
    }
}
