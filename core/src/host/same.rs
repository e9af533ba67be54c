//! The [`Output`] that compares what the host reports with a value core already holds (a
//! loaded approval's frozen action), building nothing.
//!
//! An executor usually presents the very action its approval froze. A binding can learn that
//! with one walk that allocates nothing, then check the held value in place of a converted
//! copy: the same rules apply to the walk (the [`super::Builder`] is the same), and the answer
//! is "the same" only when the reported data is exactly the held value (every member once,
//! strings equal, numbers equal bit for bit), so a check of either gives the same verdict.
//! Any other answer means "convert it as usual": duplicate keys, for one, are not reported
//! here but make the value differ, and the ordinary walk reports them.

use super::{Kind, Output};
use crate::error::Error;
use crate::json::value::{same_key, Object, Value};
use std::borrow::Cow;

/// An open container of the reported value and what it is compared with.
struct Open<'e, 'x, 'a> {
    expected: Expected<'e, 'x>,
    /// The key of the member being reported (objects), for errors' paths.
    key: Option<Cow<'a, str>>,
}

enum Expected<'e, 'x> {
    /// An object: which of its members the reported one has matched so far (one bit each),
    /// and the value the member being reported is compared with.
    Object {
        object: &'e Object<'x>,
        matched: u64,
        member: Option<&'e Value<'x>>,
    },
    /// An array, and how many elements have been reported.
    Array { items: &'e [Value<'x>], at: usize },
    /// Nothing: the container already differs.
    Differs,
}

/// Compares the reported value with `expected`; [`super::Builder::finish`] gives whether
/// they are the same.
pub struct Same<'e, 'x, 'a> {
    root: &'e Value<'x>,
    open: Vec<Open<'e, 'x, 'a>>,
    same: bool,
}

impl<'e, 'x, 'a> Same<'e, 'x, 'a> {
    /// A comparison with `expected`.
    pub fn new(expected: &'e Value<'x>) -> Self {
        Same {
            root: expected,
            open: Vec::with_capacity(8),
            same: true,
        }
    }

    /// The value the next reported value is compared with, if any.
    fn expected(&self) -> Option<&'e Value<'x>> {
        match self.open.last() {
            None => Some(self.root),
            Some(o) => match o.expected {
                Expected::Object { member, .. } => member,
                Expected::Array { items, at } => items.get(at),
                Expected::Differs => None,
            },
        }
    }

    /// A value of the innermost container was reported.
    fn next(&mut self) {
        if let Some(Open {
            expected: Expected::Array { at, .. },
            ..
        }) = self.open.last_mut()
        {
            *at += 1;
        }
    }
}

/// Whether two scalars are the same: numbers bit for bit, so that `-0` is not `0`.
fn same_scalar(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => x.as_f64().to_bits() == y.as_f64().to_bits(),
        (Value::String(x), Value::String(y)) => x == y,
        _ => false,
    }
}

impl<'e, 'x, 'a> Output<'a> for Same<'e, 'x, 'a> {
    type Done = bool;

    fn open(&mut self, kind: Kind, _len: usize) {
        let expected = match (kind, self.expected()) {
            // One bit per member: larger objects are not compared (they differ).
            (Kind::Object, Some(Value::Object(object))) if object.len() <= 64 => Expected::Object {
                object,
                matched: 0,
                member: None,
            },
            (Kind::Array, Some(Value::Array(items))) => Expected::Array { items, at: 0 },
            _ => {
                self.same = false;
                Expected::Differs
            }
        };
        self.open.push(Open {
            expected,
            key: None,
        });
    }

    fn key(&mut self, key: Cow<'a, str>) {
        let Some(o) = self.open.last_mut() else {
            return;
        };
        if let Expected::Object {
            object,
            matched,
            member,
        } = &mut o.expected
        {
            // A member found once only: a second key with the same text makes it differ.
            let found = object
                .iter()
                .enumerate()
                .find(|(_, (k, _))| same_key(k, &key));
            *member = match found {
                Some((i, (_, v))) if *matched & (1 << i) == 0 => {
                    *matched |= 1 << i;
                    Some(v)
                }
                _ => None,
            };
            if member.is_none() {
                self.same = false;
            }
        }
        o.key = Some(key);
    }

    fn current_key(&self, depth: usize) -> Option<&str> {
        self.open.get(depth)?.key.as_deref()
    }

    fn scalar(&mut self, v: Value<'a>) {
        if !self.expected().is_some_and(|e| same_scalar(e, &v)) {
            self.same = false;
        }
        self.next();
    }

    fn close(&mut self) -> Result<(), Error> {
        let all_there = match self.open.pop().map(|o| o.expected) {
            Some(Expected::Object {
                object, matched, ..
            }) => matched.count_ones() as usize == object.len(),
            Some(Expected::Array { items, at }) => at == items.len(),
            Some(Expected::Differs) | None => false,
        };
        if !all_there {
            self.same = false;
        }
        self.next();
        Ok(())
    }

    fn finish(self) -> Option<bool> {
        self.open.is_empty().then_some(self.same)
    }
}
