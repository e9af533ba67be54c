//! The [`Output`] that writes the canonical text directly, for the functions that need only
//! that (a value's canonical form or fingerprint): no value is built.
//!
//! Members are written as the host reports them; when an object closes, its members are put
//! in canonical key order by moving their text (nested containers move with the member that
//! holds them). The records of a list have the same keys in the same order: an object whose
//! keys are those of the last object closed at its depth takes that object's order, without
//! sorting or comparing keys again. The text is what [`crate::write_canonical`] writes for the
//! value that [`super::Values`] builds from the same reports (`tests.rs` checks both on the
//! same walks).

use super::{Kind, Output};
use crate::error::Error;
use crate::json::canon::write_string;
use crate::json::keyorder::cmp_utf16;
use crate::json::number::{write_number, Number};
use crate::json::value::{duplicate_key, same_key, Value};
use std::borrow::Cow;
use std::cmp::Ordering;

/// A member of an open object: its key and where `"key":value` begins in the text (it ends
/// at the comma before the next member, or where the object closes).
struct Member<'a> {
    key: Cow<'a, str>,
    start: usize,
}

/// An open container: where its members begin in [`Canonical::members`].
struct Open {
    kind: Kind,
    first_member: usize,
}

/// The keys of the last object closed at a depth, as written, and their canonical order.
#[derive(Default)]
struct Shape<'a> {
    keys: Vec<Cow<'a, str>>,
    /// Positions in `keys`, in canonical order; empty when `keys` are in order.
    order: Vec<u32>,
}

impl Shape<'_> {
    /// Whether `members` have these keys, in this order.
    fn fits(&self, members: &[Member<'_>]) -> bool {
        self.keys.len() == members.len()
            && self.keys.iter().zip(members).all(|(k, m)| {
                // Keys borrowed from one host object are at one address.
                let (k, m) = (k.as_ref(), m.key.as_ref());
                std::ptr::eq(k, m) || same_key(k, m)
            })
    }
}

/// Canonical text, written as the host reports the value.
pub struct Canonical<'a> {
    text: String,
    /// A value or a container's end was written last, so the next element or member needs a
    /// comma (after an opening bracket or a key's colon, none does).
    comma: bool,
    open: Vec<Open>,
    members: Vec<Member<'a>>,
    /// Where the moved members are put together.
    scratch: String,
    /// Per depth, the last object closed there.
    shapes: Vec<Shape<'a>>,
    /// Where an object's canonical order is worked out.
    order: Vec<u32>,
}

impl Canonical<'_> {
    /// An output with room for `capacity` bytes of text.
    pub fn with_capacity(capacity: usize) -> Self {
        Canonical::into_buffer(String::with_capacity(capacity))
    }

    /// An output that writes into `text` (emptied first), such as a buffer kept from one
    /// call to the next.
    pub fn into_buffer(mut text: String) -> Self {
        text.clear();
        Canonical {
            text,
            comma: false,
            open: Vec::with_capacity(8),
            members: Vec::with_capacity(32),
            scratch: String::new(),
            shapes: Vec::new(),
            order: Vec::new(),
        }
    }

    /// A comma before an element or member, when it is not the first.
    #[inline(always)]
    fn element(&mut self) {
        if self.comma {
            self.text.push(',');
        }
    }
}

impl<'a> Output<'a> for Canonical<'a> {
    type Done = String;

    fn open(&mut self, kind: Kind, _len: usize) {
        self.element();
        self.text.push(if kind == Kind::Array { '[' } else { '{' });
        self.comma = false;
        self.open.push(Open {
            kind,
            first_member: self.members.len(),
        });
    }

    // `key`, `string` and `number` (and `write_string` under them) are always inlined because
    // the hosts' walks call them once per member or value (bench/README.md has the figures).
    #[inline(always)]
    fn key(&mut self, key: Cow<'a, str>) {
        self.element();
        let start = self.text.len();
        write_string(&key, &mut self.text);
        self.text.push(':');
        self.comma = false;
        self.members.push(Member { key, start });
    }

    fn current_key(&self, depth: usize) -> Option<&str> {
        let o = self.open.get(depth)?;
        // The open object's last member; members of deeper objects come after its own.
        let end = self
            .open
            .get(depth + 1)
            .map_or(self.members.len(), |inner| inner.first_member);
        self.members[o.first_member..end]
            .last()
            .map(|m| m.key.as_ref())
    }

    #[inline]
    fn scalar(&mut self, v: Value<'a>) {
        let literal = match v {
            Value::Number(n) => return self.number(n),
            Value::String(s) => return self.string(s),
            Value::Null => "null",
            Value::Bool(true) => "true",
            Value::Bool(false) => "false",
            // Containers are reported with open and close.
            Value::Array(_) | Value::Object(_) => return,
        };
        self.element();
        self.text.push_str(literal);
        self.comma = true;
    }

    #[inline(always)]
    fn string(&mut self, s: Cow<'a, str>) {
        self.element();
        write_string(&s, &mut self.text);
        self.comma = true;
    }

    #[inline(always)]
    fn number(&mut self, n: Number) {
        self.element();
        write_number(n.as_f64(), &mut self.text);
        self.comma = true;
    }

    fn close(&mut self) -> Result<(), Error> {
        let Some(o) = self.open.pop() else {
            return Ok(());
        };
        self.comma = true;
        if o.kind == Kind::Array {
            self.text.push(']');
            return Ok(());
        }
        let depth = self.open.len();
        if self.shapes.len() <= depth {
            self.shapes.resize_with(depth + 1, Shape::default);
        }
        let members = &self.members[o.first_member..];
        let shape = &mut self.shapes[depth];
        if !shape.fits(members) {
            // Worked out, and kept for the next object at this depth.
            self.order.clear();
            let in_order = members
                .windows(2)
                .all(|w| cmp_utf16(&w[0].key, &w[1].key) == Ordering::Less);
            if !in_order {
                self.order.extend(0..members.len() as u32);
                self.order.sort_unstable_by(|&x, &y| {
                    cmp_utf16(&members[x as usize].key, &members[y as usize].key)
                });
                if let Some(w) = self
                    .order
                    .windows(2)
                    .find(|w| members[w[0] as usize].key == members[w[1] as usize].key)
                {
                    let e = duplicate_key(&members[w[0] as usize].key);
                    // The object is abandoned; the members left are its container's.
                    self.members.truncate(o.first_member);
                    return Err(e);
                }
            }
            shape.keys.clear();
            shape.keys.extend(members.iter().map(|m| m.key.clone()));
            std::mem::swap(&mut shape.order, &mut self.order);
        }
        if !shape.order.is_empty() {
            // The members' text, in order, in place of the text as written (from the first
            // member written on).
            let from = members.first().map_or(self.text.len(), |m| m.start);
            self.scratch.clear();
            for (i, &at) in shape.order.iter().enumerate() {
                let at = at as usize;
                // Up to the comma before the next member, or to the end of the text.
                let end = members
                    .get(at + 1)
                    .map_or(self.text.len(), |next| next.start - 1);
                if i > 0 {
                    self.scratch.push(',');
                }
                self.scratch.push_str(&self.text[members[at].start..end]);
            }
            self.text.truncate(from);
            self.text.push_str(&self.scratch);
        }
        self.members.truncate(o.first_member);
        self.text.push('}');
        Ok(())
    }

    fn finish(self) -> Option<String> {
        self.open.is_empty().then_some(self.text)
    }
}
