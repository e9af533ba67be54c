//! Small JSON builders and readers for the values the ledger returns and stores.

use actionseal_core::{
    canonicalize, parse, Code, Error, Number, Object, Options, OwnedValue, Profile, Result, Value,
};
use std::borrow::Cow;

pub(crate) fn s(x: &str) -> OwnedValue {
    Value::String(Cow::Owned(x.to_owned()))
}

pub(crate) fn opt_s(x: Option<&str>) -> OwnedValue {
    x.map_or(Value::Null, s)
}

/// A safe integer (times, fences, money); anything else would be a bug upstream and is `null`.
pub(crate) fn n(x: i64) -> OwnedValue {
    Number::from_i64(x, Profile::Strict)
        .ok()
        .filter(|_| x.abs() <= actionseal_core::MAX_SAFE_INTEGER)
        .map_or(Value::Null, Value::Number)
}

pub(crate) fn opt_n(x: Option<i64>) -> OwnedValue {
    x.map_or(Value::Null, n)
}

pub(crate) fn obj(entries: Vec<(&'static str, OwnedValue)>) -> OwnedValue {
    let entries = entries
        .into_iter()
        .map(|(k, v)| (Cow::Borrowed(k), v))
        .collect();
    // Keys are distinct literals at every call site.
    Value::Object(Object::from_entries(entries).unwrap_or_default())
}

/// Reads JSON the ledger itself stored (canonical text), borrowing its strings from `text`
/// (most reads only look); a failure means the database was edited behind the ledger's back.
pub(crate) fn stored(text: &str) -> Result<Value<'_>> {
    parse(text.as_bytes(), &Options::default()).map_err(|e| {
        Error::new(
            Code::LedgerStorage,
            format!("stored JSON does not parse: {e}"),
        )
    })
}

/// The strings of a stored JSON array (a batch's task ids).
pub(crate) fn strings(text: &str) -> Result<Vec<String>> {
    let bad = || crate::store::storage("stored list", "not an array of strings");
    match stored(text)? {
        Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned).ok_or_else(bad))
            .collect(),
        _ => Err(bad()),
    }
}

pub(crate) fn canon(v: &Value<'_>) -> String {
    canonicalize(v)
}

/// JSON a ledger stored (an action, an approval record, a business result), kept as its
/// canonical text and read as a value on first use: most callers of an operation never look at
/// the task it returns, and parsing it for them would cost more than the rest of the
/// operation's own JSON work. Dereferences to the value; compares by text.
#[derive(Clone, Debug)]
pub struct StoredJson {
    text: String,
    value: std::sync::OnceLock<OwnedValue>,
}

impl StoredJson {
    pub(crate) fn new(text: String) -> StoredJson {
        StoredJson {
            text,
            value: std::sync::OnceLock::new(),
        }
    }

    /// The canonical text, as stored.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the text still parses: `ledger_storage` when it does not (a database edited
    /// behind the ledger's back). Every task a ledger hands out was checked so. The value is
    /// not kept: most callers never look at it, and copying it out of the text would cost
    /// more than parsing it again for those that do.
    pub(crate) fn check(&self) -> Result<()> {
        if self.value.get().is_none() {
            stored(&self.text)?;
        }
        Ok(())
    }

    /// The value (parsed on first use). The ledger writes only canonical JSON here, and checks
    /// that it still parses before it hands a task out; were it not to, it would read as
    /// `null`.
    pub fn value(&self) -> &OwnedValue {
        self.value.get_or_init(|| self.read())
    }

    /// An owned copy of the value, read from the text unless it was already parsed (a task
    /// turned into JSON once, for a binding, need not keep its value as well).
    pub(crate) fn to_owned_value(&self) -> OwnedValue {
        self.value.get().cloned().unwrap_or_else(|| self.read())
    }

    /// The value read from the text (`null` if it no longer parses, see [`StoredJson::value`]).
    fn read(&self) -> OwnedValue {
        stored(&self.text)
            .map(Value::into_owned)
            .unwrap_or(Value::Null)
    }
}

impl std::ops::Deref for StoredJson {
    type Target = OwnedValue;
    fn deref(&self) -> &OwnedValue {
        self.value()
    }
}

impl PartialEq for StoredJson {
    fn eq(&self, other: &StoredJson) -> bool {
        self.text == other.text
    }
}

impl PartialEq<OwnedValue> for StoredJson {
    fn eq(&self, other: &OwnedValue) -> bool {
        self.value() == other
    }
}

impl PartialEq<StoredJson> for Value<'_> {
    fn eq(&self, other: &StoredJson) -> bool {
        self == other.value()
    }
}
