//! Small builders for the JSON values the ledger writes.

use crate::json::number::Number;
use crate::json::value::{Object, OwnedValue, Value};
use crate::Profile;
use std::borrow::Cow;

pub(crate) fn string(s: &str) -> OwnedValue {
    Value::String(Cow::Owned(s.to_owned()))
}

/// An integer; callers pass safe integers (times, sequence numbers, fences, money), and
/// anything else becomes `null` rather than a rounded number.
pub(crate) fn int(n: i64) -> OwnedValue {
    Number::from_i64(n, Profile::Strict)
        .ok()
        .filter(|_| n.abs() <= crate::MAX_SAFE_INTEGER)
        .map_or(Value::Null, Value::Number)
}

pub(crate) fn opt_string(s: Option<&str>) -> OwnedValue {
    s.map_or(Value::Null, string)
}

pub(crate) fn strings<S: AsRef<str>>(items: &[S]) -> OwnedValue {
    Value::Array(items.iter().map(|s| string(s.as_ref())).collect())
}

/// An object from distinct literal keys.
pub(crate) fn object(entries: Vec<(&'static str, OwnedValue)>) -> OwnedValue {
    let entries = entries
        .into_iter()
        .map(|(k, v)| (Cow::Borrowed(k), v))
        .collect();
    // Keys are distinct literals at every call site.
    Value::Object(Object::from_entries(entries).unwrap_or_default())
}
