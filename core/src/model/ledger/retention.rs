//! A tenant's retention of sensitive values (issue 29): what happens to a class's
//! disclosures when their task finishes, and what a class is called.

use crate::error::{Code, Error, Result};
use crate::json::value::{Object, Value};
use crate::model::sensitive::Sensitive;
use std::borrow::Cow;

/// What happens to a class's disclosures when their task finishes (succeeded, failed, or
/// rejected by a reviewer or before dispatch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtFinish {
    /// Kept, until redacted or the policy's time runs out.
    Keep,
    /// Shredded in the transaction that records the finish: the values were needed to run
    /// the call and for nothing after it.
    Shred,
}

impl AtFinish {
    /// Every mode.
    pub const ALL: &'static [AtFinish] = &[AtFinish::Keep, AtFinish::Shred];

    /// The stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            AtFinish::Keep => "keep",
            AtFinish::Shred => "shred",
        }
    }

    /// The mode with this name.
    pub fn from_name(s: &str) -> Option<AtFinish> {
        AtFinish::ALL.iter().copied().find(|m| m.as_str() == s)
    }
}

/// Refuses a class a contract could not name ([`Code::InvalidRequest`] at `class`): the
/// contract's own rule (see [`Sensitive::from_value`]), so that a policy never names a class
/// no pointer can have.
pub fn check_class(class: &str) -> Result<()> {
    let one = Value::Object(Object::from_sorted(vec![(
        Cow::Borrowed("/args/x"),
        Value::String(Cow::Borrowed(class)),
    )]));
    Sensitive::from_value(&one).map(|_| ()).map_err(|_| {
        Error::new(
            Code::InvalidRequest,
            "a class is 1 to 64 lowercase letters, digits or _, starting with a letter",
        )
        .in_key("class")
    })
}
