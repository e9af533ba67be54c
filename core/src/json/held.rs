//! Values held back: members or items of one document that a check leaves unjudged (a frozen
//! action's commitments, which stand for values judged in the clear before; see
//! `Contract::review_action`). They are known by address, not by content, since two places
//! may hold equal values and only one of them be held back.

use super::value::Value;

/// Some values inside one document, by address; none by default.
#[derive(Debug, Default)]
pub(crate) struct Held(Vec<usize>);

impl Held {
    /// The values in `values`, each borrowed from the document checked.
    pub(crate) fn of<'v, 'a: 'v>(values: impl IntoIterator<Item = &'v Value<'a>>) -> Held {
        Held(values.into_iter().map(address).collect())
    }

    /// Whether `v` (a value of the same document) is held back.
    pub(crate) fn contains(&self, v: &Value<'_>) -> bool {
        !self.0.is_empty() && self.0.contains(&address(v))
    }
}

fn address(v: &Value<'_>) -> usize {
    v as *const Value<'_> as usize
}
