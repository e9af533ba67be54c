//! The JSON data model: values whose objects are always in canonical key order.

use crate::error::{Code, Error, Result};
use crate::json::keyorder::cmp_utf16;
use crate::json::number::Number;
use std::borrow::Cow;
use std::cmp::Ordering;

/// A JSON value. Strings borrow from the parsed input where they had no escapes.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A finite number.
    Number(Number),
    /// A string of Unicode scalar values.
    String(Cow<'a, str>),
    /// An array.
    Array(Vec<Value<'a>>),
    /// An object, its keys unique and in RFC 8785 order.
    Object(Object<'a>),
}

/// A value that owns all of its strings.
pub type OwnedValue = Value<'static>;

impl<'a> Value<'a> {
    /// A copy that owns all of its strings.
    pub fn into_owned(self) -> OwnedValue {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::Number(n) => Value::Number(n),
            Value::String(s) => Value::String(Cow::Owned(s.into_owned())),
            Value::Array(a) => Value::Array(a.into_iter().map(Value::into_owned).collect()),
            Value::Object(o) => Value::Object(o.into_owned()),
        }
    }

    /// A time or duration in ms where a call takes one: a non-negative safe integer, else
    /// [`Code::InvalidRequest`] saying what `what` is and what was given instead.
    pub(crate) fn non_negative_ms(&self, what: &str) -> Result<i64> {
        match self {
            Value::Number(n) => n.as_safe_integer().filter(|t| *t >= 0),
            _ => None,
        }
        .ok_or_else(|| {
            Error::new(
                Code::InvalidRequest,
                format!(
                    "{what} is a non-negative integer of ms, not {}",
                    self.type_name()
                ),
            )
        })
    }

    /// The JSON type name: `null`, `boolean`, `number`, `string`, `array` or `object`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The value at a JSON Pointer, if the pointer is valid and the value exists.
    pub fn pointer(&self, pointer: &str) -> Option<&Value<'a>> {
        self.pointer_tokens(&crate::json::pointer::parse_pointer(pointer)?)
    }

    /// The value at a JSON Pointer already split into unescaped reference tokens.
    pub fn pointer_tokens<S: AsRef<str>>(&self, tokens: &[S]) -> Option<&Value<'a>> {
        tokens
            .iter()
            .map(AsRef::as_ref)
            .try_fold(self, |v, t| match v {
                Value::Object(o) => o.get(t),
                Value::Array(a) => parse_index(t).and_then(|i| a.get(i)),
                _ => None,
            })
    }
}

/// An array index token per RFC 6901: `0` or digits without a leading zero.
fn parse_index(t: &str) -> Option<usize> {
    if t.is_empty() || (t.len() > 1 && t.starts_with('0')) || !t.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    t.parse().ok()
}

impl From<Number> for Value<'_> {
    fn from(n: Number) -> Self {
        Value::Number(n)
    }
}

impl From<bool> for Value<'_> {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<String> for Value<'_> {
    fn from(s: String) -> Self {
        Value::String(Cow::Owned(s))
    }
}

impl<'a> From<&'a str> for Value<'a> {
    fn from(s: &'a str) -> Self {
        Value::String(Cow::Borrowed(s))
    }
}

/// [`Code::DuplicateKey`] for `key`, at the key's path under its object.
pub(crate) fn duplicate_key(key: &str) -> Error {
    Error::new(Code::DuplicateKey, format!("duplicate object key {key:?}")).in_key(key)
}

/// Whether two keys are the same. Most keys compared differ in length or first byte, which is
/// decided here without calling `memcmp`.
#[inline(always)]
pub(crate) fn same_key(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().first() == b.as_bytes().first() && a == b
}

/// A JSON object whose keys are unique and sorted by UTF-16 code units (RFC 8785 order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object<'a> {
    entries: Vec<(Cow<'a, str>, Value<'a>)>,
}

impl<'a> Object<'a> {
    /// An empty object.
    pub fn new() -> Object<'a> {
        Object {
            entries: Vec::new(),
        }
    }

    /// An object from members in any order; the same key twice is [`Code::DuplicateKey`]
    /// with the path of the key.
    pub fn from_entries(mut entries: Vec<(Cow<'a, str>, Value<'a>)>) -> Result<Object<'a>> {
        // Members usually come in order (from canonical text, or a host that kept it): one
        // comparison each shows they are sorted and unique.
        if entries
            .windows(2)
            .all(|w| cmp_utf16(&w[0].0, &w[1].0) == Ordering::Less)
        {
            return Ok(Object { entries });
        }
        entries.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
        if let Some(w) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(duplicate_key(&w[0].0));
        }
        Ok(Object { entries })
    }

    /// Builds from members already sorted and unique; the caller has checked that.
    pub(crate) fn from_sorted(entries: Vec<(Cow<'a, str>, Value<'a>)>) -> Object<'a> {
        debug_assert!(entries
            .windows(2)
            .all(|w| cmp_utf16(&w[0].0, &w[1].0) == Ordering::Less));
        Object { entries }
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        // Most objects looked into are envelopes and records of a few members, where a scan
        // that rejects on length or first byte beats a search comparing UTF-16 order.
        if self.entries.len() <= 8 {
            return self
                .entries
                .iter()
                .find(|(k, _)| same_key(k, key))
                .map(|(_, v)| v);
        }
        self.entries
            .binary_search_by(|(k, _)| cmp_utf16(k, key))
            .ok()
            .map(|i| &self.entries[i].1)
    }

    /// The value of `key`, to change in place (the key stays, so the order holds).
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Value<'a>> {
        self.entries
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// Members in canonical order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Value<'a>)> {
        self.entries.iter().map(|(k, v)| (k.as_ref(), v))
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no members.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The members, in canonical order.
    pub fn into_entries(self) -> Vec<(Cow<'a, str>, Value<'a>)> {
        self.entries
    }

    /// A copy that owns all of its strings.
    pub fn into_owned(self) -> Object<'static> {
        Object {
            entries: self
                .entries
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned()))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests;
