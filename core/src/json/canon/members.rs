//! Putting an object's members in canonical order: sorting them, remembering how the last
//! object of a shape sorted, and rewriting an object's output in sorted order.

use super::cursor::DECODED;
use crate::json::keyorder::cmp_utf16_bytes;
use std::cmp::Ordering;

/// An object member: where its key text is, for sorting, and where `"key":value` is in the
/// output.
#[derive(Clone, Copy, Debug)]
pub(super) struct Member {
    /// [`crate::json::keyorder::sort_key`] of the key.
    pub(super) order: u64,
    /// The key's decoded text: `b[key..key + key_len]` of the input, or of the decoded keys
    /// if `key_len` has [`DECODED`] set.
    pub(super) key: u32,
    pub(super) key_len: u32,
    /// Output offsets of the member's first and one-past-last bytes.
    pub(super) start: u32,
    pub(super) end: u32,
    /// Index of the first object that opens after the member starts.
    pub(super) first_obj: u32,
    /// Position among its object's members in the input.
    pub(super) index: u32,
}

/// The text of a member's key, given the input and the decoded keys.
#[inline]
fn key_text<'t>(b: &'t [u8], keys: &'t [u8], m: &Member) -> &'t [u8] {
    let at = m.key as usize;
    if m.key_len & DECODED == 0 {
        &b[at..at + m.key_len as usize]
    } else {
        &keys[at..at + (m.key_len & !DECODED) as usize]
    }
}

/// Compares two keys whose sort keys are equal.
#[inline(never)]
fn cmp_keys(b: &[u8], keys: &[u8], x: &Member, y: &Member) -> Ordering {
    cmp_utf16_bytes(key_text(b, keys, x), key_text(b, keys, y))
}

/// Sorts an object's members into canonical order; `None` if two keys are equal.
pub(super) fn sort_members(m: &mut [Member], b: &[u8], keys: &[u8]) -> Option<()> {
    #[inline(always)]
    fn cmp(b: &[u8], keys: &[u8], x: &Member, y: &Member) -> Ordering {
        if x.order != y.order {
            return x.order.cmp(&y.order);
        }
        cmp_keys(b, keys, x, y)
    }
    let cmp = |x: &Member, y: &Member| cmp(b, keys, x, y);
    if m.len() > 24 {
        m.sort_unstable_by(cmp);
        return m
            .windows(2)
            .all(|w| cmp(&w[0], &w[1]) != Ordering::Equal)
            .then_some(());
    }
    // Insertion sort: objects are small, and often nearly in order. An equal key is met
    // while inserting the second of the two: everything between them would be greater.
    for i in 1..m.len() {
        let x = m[i];
        let mut j = i;
        while j > 0 {
            match cmp(&m[j - 1], &x) {
                Ordering::Less => break,
                Ordering::Equal => return None,
                Ordering::Greater => {
                    m[j] = m[j - 1];
                    j -= 1;
                }
            }
        }
        m[j] = x;
    }
    Some(())
}

/// The last object that needed sorting, when its keys' sort keys were all different: those
/// sort keys in input order, and the input positions of its members in sorted order.
///
/// Arrays of records repeat one set of keys in one order. A later object whose sort keys are
/// the same sequence sorts the same way and has no duplicates (the order of keys with
/// different sort keys is decided by the sort keys alone), so its sort is a copy.
#[derive(Default)]
pub(super) struct Shape {
    orders: Vec<u64>,
    perm: Vec<u32>,
    /// The keys in input order, as `key` and `key_len` of a [`Member`], so that the next
    /// object's keys can be checked against them rather than scanned.
    keys: Vec<(u32, u32)>,
}

impl Shape {
    /// The key expected at input position `i`, if it was read from the input: its place
    /// there, and its sort key.
    #[inline(always)]
    pub(super) fn expected(&self, i: usize) -> Option<(usize, usize, u64)> {
        let &(key, len) = self.keys.get(i)?;
        (len & DECODED == 0).then(|| (key as usize, len as usize, self.orders[i]))
    }

    /// Whether `m`, in input order, has the remembered sort keys.
    pub(super) fn matches(&self, m: &[Member]) -> bool {
        self.orders.len() == m.len() && m.iter().zip(&self.orders).all(|(m, &o)| m.order == o)
    }

    /// For members that [`match`](Shape::matches), their input positions in sorted order.
    pub(super) fn perm(&self) -> &[u32] {
        &self.perm
    }

    /// Remembers a sorted object, if its sort keys are all different.
    pub(super) fn learn(&mut self, sorted: &[Member]) {
        self.forget();
        if !sorted.windows(2).all(|w| w[0].order < w[1].order) {
            return;
        }
        self.orders.resize(sorted.len(), 0);
        self.keys.resize(sorted.len(), (0, 0));
        for m in sorted {
            self.orders[m.index as usize] = m.order;
            self.keys[m.index as usize] = (m.key, m.key_len);
            self.perm.push(m.index);
        }
    }

    pub(super) fn forget(&mut self) {
        self.orders.clear();
        self.perm.clear();
        self.keys.clear();
    }

    /// Bytes held.
    pub(super) fn size(&self) -> usize {
        self.orders.capacity() * 8 + self.perm.capacity() * 4 + self.keys.capacity() * 8
    }
}

/// Rewrites the object at `buf[start..end]` with its members in the order of `sorted`, by
/// way of `scratch`; `None` (never expected) if they do not add up to the object.
///
/// Members are short, so each is moved with one 32-byte copy where the buffers have room.
pub(super) fn rearrange<'m>(
    buf: &mut [u8],
    start: usize,
    end: usize,
    sorted: impl Iterator<Item = &'m Member>,
    scratch: &mut Vec<u8>,
) -> Option<()> {
    let size = end - start;
    if scratch.len() < size + 32 {
        scratch.resize(size + 32, 0);
    }
    scratch[0] = b'{';
    let mut n = 1;
    for (i, m) in sorted.enumerate() {
        if i > 0 {
            *scratch.get_mut(n)? = b',';
            n += 1;
        }
        let (from, to) = (m.start as usize, m.end as usize);
        let len = to - from;
        match (scratch.get_mut(n..n + 32), buf.get(from..from + 32)) {
            (Some(d), Some(s)) if len <= 32 => d.copy_from_slice(s),
            _ => scratch
                .get_mut(n..n + len)?
                .copy_from_slice(buf.get(from..to)?),
        }
        n += len;
    }
    *scratch.get_mut(n)? = b'}';
    n += 1;
    if n != size {
        return None;
    }
    buf.get_mut(start..end)?.copy_from_slice(&scratch[..n]);
    Some(())
}
