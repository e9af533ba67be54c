//! Strict reading of the fixed-shape JSON documents (contracts, actions, approvals, contexts,
//! budgets): exactly the known fields, each of the right type, errors with a path.

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{same_key, Object, Value};

mod identifier;

/// Reads the fields of one object, reporting problems with `code`.
pub(crate) struct Fields<'v, 'a> {
    obj: &'v Object<'a>,
    code: Code,
}

impl<'v, 'a> Fields<'v, 'a> {
    /// `value` must be an object with no fields outside `allowed`; `what` names it in messages.
    pub(crate) fn new(
        value: &'v Value<'a>,
        code: Code,
        what: &str,
        allowed: &[&str],
    ) -> Result<Fields<'v, 'a>> {
        let Value::Object(obj) = value else {
            return Err(Error::new(
                code,
                format!("{what} must be an object, not {}", value.type_name()),
            ));
        };
        if let Some((k, _)) = obj
            .iter()
            .find(|(k, _)| !allowed.iter().any(|a| same_key(k, a)))
        {
            return Err(Error::new(code, format!("unknown field {k:?} in {what}")).in_key(k));
        }
        Ok(Fields { obj, code })
    }

    /// How many members the object has (each one of the allowed keys, once).
    pub(crate) fn len(&self) -> usize {
        self.obj.len()
    }

    fn error(&self, key: &str, message: String) -> Error {
        Error::new(self.code, message).in_key(key)
    }

    /// A field that may be absent (no error is built for its absence: optional fields are
    /// read on every check).
    pub(crate) fn get(&self, key: &str) -> Option<&'v Value<'a>> {
        self.obj.get(key)
    }

    /// A field that must be present.
    pub(crate) fn required(&self, key: &str) -> Result<&'v Value<'a>> {
        self.get(key)
            .ok_or_else(|| self.error(key, format!("missing field {key:?}")))
    }

    /// A string field.
    pub(crate) fn string(&self, key: &str) -> Result<&'v str> {
        match self.required(key)? {
            Value::String(s) => Ok(s),
            other => Err(self.error(
                key,
                format!("{key} must be a string, not {}", other.type_name()),
            )),
        }
    }

    /// An identity string: an identifier (see [`identifier`]), so that identities that look
    /// alike to a person cannot differ invisibly.
    pub(crate) fn identity(&self, key: &str) -> Result<&'v str> {
        let s = self.string(key)?;
        check_identity(s).map_err(|why| self.error(key, format!("{key} {why}")))?;
        Ok(s)
    }

    /// One of a fixed set of strings.
    pub(crate) fn one_of(&self, key: &str, choices: &[&'static str]) -> Result<&'static str> {
        let s = self.string(key)?;
        choices
            .iter()
            .copied()
            .find(|c| *c == s)
            .ok_or_else(|| self.error(key, format!("{key} must be one of {choices:?}, not {s:?}")))
    }

    /// An integer within ±(2^53 − 1), at least `min`.
    pub(crate) fn integer(&self, key: &str, min: i64) -> Result<i64> {
        let v = self.required(key)?;
        let n = match v {
            Value::Number(n) => n.as_safe_integer(),
            _ => None,
        };
        match n {
            Some(n) if n >= min => Ok(n),
            _ => Err(self.error(
                key,
                format!(
                    "{key} must be an integer of at least {min}, not {}",
                    describe(v)
                ),
            )),
        }
    }

    /// A boolean field.
    pub(crate) fn boolean(&self, key: &str) -> Result<bool> {
        match self.required(key)? {
            Value::Bool(b) => Ok(*b),
            other => Err(self.error(
                key,
                format!("{key} must be true or false, not {}", describe(other)),
            )),
        }
    }

    /// A `sha256:` digest field.
    pub(crate) fn digest(&self, key: &str) -> Result<Digest> {
        self.string(key)?
            .parse()
            .map_err(|e: Error| self.error(key, format!("{key}: {}", e.message())))
    }
}

/// Why `s` is not an acceptable identity, if it is not: a phrase completing "<field> ...".
/// See [`identifier`] for the rule.
pub(crate) fn check_identity(s: &str) -> std::result::Result<(), String> {
    identifier::check(s).map_err(|flaw| flaw.to_string())
}

/// A short description of a value for messages: its type, and the value if it is a scalar.
pub(crate) fn describe(v: &Value<'_>) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_canonical_string(),
        Value::String(s) if s.chars().count() <= 40 => format!("the string {s:?}"),
        other => other.type_name().into(),
    }
}

#[cfg(test)]
mod tests;
