//! The canonical form of JSON text without building a [`crate::Value`].
//!
//! One pass reads the text and writes it out with whitespace removed and the few tokens whose
//! canonical spelling differs rewritten (strings with escapes, numbers such as `1.50` or
//! `1e3`); the rest is copied as it is, in runs (see [`super::cursor`]). Objects stay in
//! input order, each member's place in the output noted. When an object closes whose keys
//! are not in canonical order, it is rewritten in sorted order while it is still in the cache
//! if it is small, or else given a sorted member list. A second pass sends the output to a
//! [`Bytes`] sink, following the member lists and copying everything else in large pieces.
//! UTF-8 is validated inside strings as they are scanned (any other byte of 0x80 or more is a
//! syntax error anyway).
//!
//! This path accepts only input that [`crate::parse()`] accepts, and writes exactly what
//! [`crate::canonicalize`] writes for it (the tests check both on generated and mutated
//! text). On anything else it gives up, and the caller runs the full parser, which reports
//! the error with its code, path and offset: errors have one source.

use super::chunks::Chunks;
use super::cursor::{reserve, Cursor, DECODED, MAX_LEN};
use super::members::{rearrange, sort_members, Member, Shape};
use super::Bytes;
use crate::json::keyorder::{prefix, prefix_at, sort_key};
use crate::json::options::Options;
use std::cell::Cell;

/// Writes the canonical form of `input` to `sink` and returns `true`, or returns `false`
/// without writing anything if `input` is not accepted (it is invalid, or 4 GiB or more).
pub(crate) fn canonicalize_text<B: Bytes>(input: &[u8], options: &Options, sink: &mut B) -> bool {
    write_text(input, options, sink, REARRANGE_MAX)
}

/// Objects up to this size whose members need sorting are rewritten in sorted order when
/// they close; larger ones (rare, and with more bytes per member) get a sorted member list
/// that the second pass follows.
pub(crate) const REARRANGE_MAX: usize = 2048;

/// [`canonicalize_text`], rewriting objects of up to `rearrange_max` bytes (tests and fuzz
/// targets use other limits so that both ways of ordering members are exercised).
pub(crate) fn write_text<B: Bytes>(
    input: &[u8],
    options: &Options,
    sink: &mut B,
    rearrange_max: usize,
) -> bool {
    if input.len() > options.max_bytes || input.len() >= MAX_LEN {
        return false;
    }
    with_scratch(|scratch| {
        let mut w = Writer {
            at: Cursor::new(input),
            options,
            rearrange_max,
            unfinished: 0,
            s: std::mem::take(scratch),
        };
        reserve(&mut w.s.out, 0, input.len());
        let ok = w.document().is_some();
        if ok {
            let mut chunk = std::mem::take(&mut w.s.chunk);
            let mut chunks = Chunks::new(&mut chunk, sink);
            w.emit_range(0, w.at.len, 0, &mut chunks);
            chunks.flush();
            w.s.chunk = chunk;
        }
        *scratch = w.s;
        ok
    })
}

/// Buffers kept between calls on a thread, so that a call allocates (and the operating system
/// zeroes) nothing it used last time.
#[derive(Default)]
struct Scratch {
    /// The output of the first pass (see [`Cursor`]).
    out: Vec<u8>,
    objects: Vec<Obj>,
    /// Members of the objects that got a sorted member list, each list in one piece.
    members: Vec<Member>,
    /// Members of the objects being read, innermost last.
    open: Vec<Member>,
    /// Decoded text of keys that had escapes.
    keys: Vec<u8>,
    shape: Shape,
    /// For rewriting an object.
    rewritten: Vec<u8>,
    /// For the second pass.
    chunk: Vec<u8>,
}

/// Buffers larger than this in total are freed after the call rather than kept.
const RETAIN: usize = 4 << 20;

impl Scratch {
    fn size(&self) -> usize {
        let members = self.members.capacity() + self.open.capacity();
        self.out.capacity()
            + self.objects.capacity() * std::mem::size_of::<Obj>()
            + members * std::mem::size_of::<Member>()
            + self.keys.capacity()
            + self.shape.size()
            + self.rewritten.capacity()
            + self.chunk.capacity()
    }

    fn clear(&mut self) {
        self.objects.clear();
        self.members.clear();
        self.open.clear();
        self.keys.clear();
        self.shape.forget();
    }
}

thread_local! {
    static SCRATCH: Cell<Option<Box<Scratch>>> = const { Cell::new(None) };
}

/// Runs `f` with this thread's scratch buffers (fresh ones if they are in use or gone).
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    let mut scratch = SCRATCH
        .try_with(Cell::take)
        .ok()
        .flatten()
        .unwrap_or_default();
    scratch.clear();
    let r = f(&mut scratch);
    if scratch.size() <= RETAIN {
        let _ = SCRATCH.try_with(|c| c.set(Some(scratch)));
    }
    r
}

/// Marks an object whose members were already in canonical order, but which holds objects
/// that are not written in canonical order.
const IN_ORDER: u32 = u32::MAX;

/// Marks an object whose output, nested objects included, is canonical as it stands: its
/// members were in order or have been rewritten in order.
const CANONICAL: u32 = u32::MAX - 1;

/// An object, in the order objects open.
#[derive(Clone, Copy, Debug)]
struct Obj {
    /// Output offsets of its `{` and just after its `}`.
    start: u32,
    end: u32,
    /// Index of the first object after this one and its descendants.
    next: u32,
    /// Its sorted members are `members[list..list + count]`, unless `count` is
    /// [`IN_ORDER`] or [`CANONICAL`].
    list: u32,
    count: u32,
}

/// Where an object's sorted members go: rewritten in place, or listed for the second pass.
struct Place<'p> {
    out: &'p mut Vec<u8>,
    rewritten: &'p mut Vec<u8>,
    listed: &'p mut Vec<Member>,
    obj: &'p mut Obj,
    rewrite: bool,
}

impl Place<'_> {
    fn put<'m>(self, sorted: impl ExactSizeIterator<Item = &'m Member>) -> Option<()> {
        let (start, end) = (self.obj.start as usize, self.obj.end as usize);
        if self.rewrite {
            self.obj.count = CANONICAL;
            rearrange(self.out, start, end, sorted, self.rewritten)
        } else {
            self.obj.list = self.listed.len() as u32;
            self.obj.count = sorted.len() as u32;
            self.listed.extend(sorted.copied());
            Some(())
        }
    }
}

/// The first pass: reads the input and writes the output, noting objects and members.
struct Writer<'a, 'o> {
    /// Where reading and writing stand between calls of [`Writer::object`] and
    /// [`Writer::array`], which work on a copy.
    at: Cursor<'a>,
    options: &'o Options,
    rearrange_max: usize,
    /// Number of objects closed so far that are not [`CANONICAL`].
    unfinished: usize,
    s: Scratch,
}

impl<'a> Writer<'a, '_> {
    fn document(&mut self) -> Option<()> {
        let mut c = self.at;
        c.skip_ws(&mut self.s.out);
        self.value(&mut c, 0)?;
        c.skip_ws(&mut self.s.out);
        if c.pos != c.b.len() {
            return None;
        }
        c.flush(&mut self.s.out, c.pos);
        c.run = c.pos;
        reserve(&mut self.s.out, c.len, 0);
        self.at = c;
        Some(())
    }

    #[inline(always)]
    fn value(&mut self, c: &mut Cursor<'a>, depth: usize) -> Option<()> {
        // Tested in order of frequency, as branches rather than a jump table.
        let first = c.peek()?;
        if first == b'"' {
            c.string(&mut self.s.out)
        } else if first.is_ascii_digit() || first == b'-' {
            c.number(&mut self.s.out, self.options)
        } else if first == b'{' || first == b'[' {
            self.at = *c;
            if first == b'{' {
                self.object(depth)?;
            } else {
                self.array(depth)?;
            }
            *c = self.at;
            Some(())
        } else {
            match first {
                b't' => c.literal(b"true"),
                b'f' => c.literal(b"false"),
                b'n' => c.literal(b"null"),
                _ => None,
            }
        }
    }

    #[inline(never)]
    fn array(&mut self, depth: usize) -> Option<()> {
        if depth >= self.options.max_depth {
            return None;
        }
        let mut c = self.at;
        c.pos += 1;
        c.skip_ws(&mut self.s.out);
        if c.peek() == Some(b']') {
            c.pos += 1;
            self.at = c;
            return Some(());
        }
        loop {
            self.value(&mut c, depth + 1)?;
            if !c.separator(&mut self.s.out, b']')? {
                self.at = c;
                return Some(());
            }
        }
    }

    #[inline(never)]
    fn object(&mut self, depth: usize) -> Option<()> {
        if depth >= self.options.max_depth {
            return None;
        }
        let mut c = self.at;
        let at = self.s.objects.len();
        self.s.objects.push(Obj {
            start: c.out_pos(),
            end: 0,
            next: 0,
            list: 0,
            count: IN_ORDER,
        });
        c.pos += 1;
        c.skip_ws(&mut self.s.out);
        let base = self.s.open.len();
        let unfinished = self.unfinished;
        // Whether every key so far is the one the shape had there: only a guess at the next
        // key, which saves scanning for it. Whatever it guesses, each key is read and
        // compared in full, and its sort key is the one of its own text.
        let mut as_expected = true;
        if c.peek() == Some(b'}') {
            c.pos += 1;
        } else {
            loop {
                if c.peek() != Some(b'"') {
                    return None;
                }
                let start = c.out_pos();
                let first_obj = self.s.objects.len() as u32;
                let s = &mut self.s;
                let index = s.open.len() - base;
                // Objects in an array of records repeat the keys of the last one sorted:
                // check for the expected key before scanning for any.
                let expected = s.shape.expected(index).filter(|_| as_expected);
                let (key, key_len, order) = match expected {
                    Some((k, len, order)) if c.same_key(k, len) => (k as u32, len as u32, order),
                    _ => {
                        as_expected = false;
                        let (key, key_len) = c.key(&mut s.out, &mut s.keys, self.options)?;
                        let order = sort_key(if key_len & DECODED == 0 {
                            prefix_at(c.b, key as usize, key_len as usize)
                        } else {
                            let at = key as usize;
                            prefix(&s.keys[at..at + (key_len & !DECODED) as usize])
                        });
                        (key, key_len, order)
                    }
                };
                c.colon(&mut s.out)?;
                self.value(&mut c, depth + 1)?;
                self.s.open.push(Member {
                    order,
                    key,
                    key_len,
                    start,
                    end: c.out_pos(),
                    first_obj,
                    index: index as u32,
                });
                if !c.separator(&mut self.s.out, b'}')? {
                    break;
                }
            }
        }
        self.close_object(&mut c, at, base, unfinished)?;
        self.at = c;
        Some(())
    }

    /// Puts the object `objects[at]`, whose members are `open[base..]`, in canonical order,
    /// or notes how the second pass is to; `unfinished` is the count when it opened.
    #[inline(never)]
    fn close_object(
        &mut self,
        c: &mut Cursor<'a>,
        at: usize,
        base: usize,
        unfinished: usize,
    ) -> Option<()> {
        let s = &mut self.s;
        let end = c.out_pos();
        let next = s.objects.len() as u32;
        let obj = &mut s.objects[at];
        (obj.end, obj.next) = (end, next);
        // Whether every object inside is written in canonical order already.
        let settled = self.unfinished == unfinished;
        let members = &mut s.open[base..];
        // Keys whose sort keys increase are in order and distinct; otherwise sort, which
        // compares in full where sort keys tie and finds duplicates.
        if members.windows(2).all(|w| w[0].order < w[1].order) {
            if settled {
                obj.count = CANONICAL;
            } else {
                self.unfinished += 1;
            }
        } else {
            // Rewrite small objects now; give large ones a member list for the second pass.
            let rewrite = settled && end as usize - obj.start as usize <= self.rearrange_max;
            if rewrite {
                // The whole object must be in the output to be rewritten.
                c.flush(&mut s.out, c.pos);
                c.run = c.pos;
            } else {
                self.unfinished += 1;
            }
            let place = Place {
                out: &mut s.out,
                rewritten: &mut s.rewritten,
                listed: &mut s.members,
                obj,
                rewrite,
            };
            // Compared in full, never taken on trust from the key lookups: a nested object
            // may have replaced the shape since this object's keys were checked against it.
            if s.shape.matches(members) {
                place.put(s.shape.perm().iter().map(|&i| &members[i as usize]))?;
            } else {
                sort_members(members, c.b, &s.keys)?;
                s.shape.learn(members);
                place.put(members.iter())?;
            }
        }
        s.open.truncate(base);
        Some(())
    }

    /// Sends output `[p, end)` to `chunks`, writing the objects in it that have a sorted
    /// member list member by member; `k` is the first object that may start in the range.
    fn emit_range<B: Bytes>(
        &self,
        mut p: usize,
        end: usize,
        mut k: usize,
        chunks: &mut Chunks<'_, B>,
    ) {
        let text = &self.s.out[..];
        while let Some(o) = self.s.objects.get(k) {
            if o.start as usize >= end {
                break;
            }
            match o.count {
                IN_ORDER => {
                    k += 1;
                    continue;
                }
                CANONICAL => {
                    k = o.next as usize;
                    continue;
                }
                _ => {}
            }
            chunks.copy(text, p, o.start as usize);
            chunks.byte(b'{');
            let list = o.list as usize;
            for (i, m) in self.s.members[list..list + o.count as usize]
                .iter()
                .enumerate()
            {
                if i > 0 {
                    chunks.byte(b',');
                }
                let (start, end) = (m.start as usize, m.end as usize);
                match self.s.objects.get(m.first_obj as usize) {
                    Some(o) if (o.start as usize) < end => {
                        self.emit_range(start, end, m.first_obj as usize, chunks);
                    }
                    // No object starts inside the member: it is canonical as written.
                    _ => chunks.copy(text, start, end),
                }
            }
            chunks.byte(b'}');
            p = o.end as usize;
            k = o.next as usize;
        }
        chunks.copy(text, p, end);
    }
}

#[cfg(test)]
mod tests;
