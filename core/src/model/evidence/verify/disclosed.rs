//! A bundle's disclosures (issue 29): exported only when asked for and the ledger's policy
//! allows it, each must open a commitment of the action the task was decided on, which proves
//! the value it gives was the one approved.

use super::super::bundle::Bundle;
use crate::error::{Code, Error, Result};
use crate::json::value::{OwnedValue, Value};
use crate::model::action::Action;
use crate::model::contract::Contract;
use crate::model::sensitive::{reveal, Coverage, Disclosure};

/// A value a bundle proves: its place, its class and the value.
pub(crate) type Disclosed = (String, String, OwnedValue);

/// The values the bundle's disclosures prove, checked against `last` (the action as decided):
/// each disclosure reads ([`Code::InvalidDisclosure`], [`Code::DisclosureNotCanonical`]) and
/// is of a commitment the action holds, once ([`Code::DisclosureExtra`],
/// [`Code::DisclosureMismatch`]), at `/disclosures/<i>`. Not every commitment needs one: a
/// bundle discloses what its exporter allowed.
pub(crate) fn disclosed(b: &Bundle, contract: &Contract, last: &Action) -> Result<Vec<Disclosed>> {
    if b.disclosures.is_empty() {
        return Ok(Vec::new());
    }
    let at = |e: Error| e.in_key("disclosures");
    let Some(sensitive) = contract.sensitive() else {
        return Err(at(Error::new(
            Code::DisclosureExtra,
            "the bundle's contract marks no value sensitive, and so has no commitment to open",
        )));
    };
    let disclosures = b
        .disclosures
        .iter()
        .enumerate()
        .map(|(i, d)| Disclosure::parse(d).map_err(|e| at(e.in_index(i))))
        .collect::<Result<Vec<_>>>()?;
    reveal(sensitive, last.value(), &disclosures, Coverage::Given).map_err(at)?;
    Ok(disclosures
        .iter()
        .map(|d| {
            let class = sensitive.class_of(d.pointer()).unwrap_or_default();
            (d.pointer().to_owned(), class.to_owned(), d.value().clone())
        })
        .collect())
}

/// `[{"pointer", "class", "value"}]`.
pub(crate) fn to_value(disclosed: &[Disclosed]) -> OwnedValue {
    use crate::model::ledger::values::{object, string};
    Value::Array(
        disclosed
            .iter()
            .map(|(p, c, v)| {
                object(vec![
                    ("pointer", string(p)),
                    ("class", string(c)),
                    ("value", v.clone()),
                ])
            })
            .collect(),
    )
}
