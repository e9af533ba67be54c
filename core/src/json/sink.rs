//! Where canonical text is written: canonical form ([`crate::json::canon`]) and number
//! formatting ([`crate::json::number`]) both write through [`Sink`], which depends on neither.

/// Where canonical text goes: a `String`, or a hasher that never holds all of it.
pub(crate) trait Sink {
    /// Appends text.
    fn put(&mut self, s: &str);
    /// Appends one ASCII byte.
    fn put_ascii(&mut self, c: u8);
    /// Appends `s` between quotes, as is.
    #[inline]
    fn put_quoted(&mut self, s: &str) {
        self.put_ascii(b'"');
        self.put(s);
        self.put_ascii(b'"');
    }
}

impl Sink for String {
    #[inline]
    fn put(&mut self, s: &str) {
        self.push_str(s);
    }

    #[inline]
    fn put_ascii(&mut self, c: u8) {
        debug_assert!(c.is_ascii());
        self.push(char::from(c));
    }

    #[inline(always)]
    fn put_quoted(&mut self, s: &str) {
        self.reserve(s.len() + 2);
        self.push('"');
        self.push_str(s);
        self.push('"');
    }
}
