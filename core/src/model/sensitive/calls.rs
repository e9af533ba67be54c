//! The sensitive-value functions as the bindings call them: every argument a JSON value, every
//! result a JSON value, so every runtime reads its arguments with the same rules and fails
//! with the same codes. Core has no I/O: salts come from the host's CSPRNG through `draw`.

use super::commit::{reveal as reveal_with, Coverage};
use super::disclosure::{Disclosure, SALT_BYTES};
use crate::base64::url as b64url;
use crate::error::{Code, Error, Result};
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::action::{check_shape, field, Action, ActionIds};
use crate::model::contract::Contract;
use std::borrow::Cow;

/// The most disclosures one list may hold: more than any action's sensitive places.
pub const MAX_DISCLOSURES: usize = 4096;

/// Where the salts of a commitment come from.
enum Drawn<E> {
    /// The host's CSPRNG failed.
    Host(E),
    /// The salts given are not one per place.
    Given(Error),
}

/// Commits the action for `args` under `contract` with `ids` (the five identities, as
/// [`ActionIds::from_value`] reads them) and returns `{"action", "action_digest",
/// "disclosures"}`: the committed envelope, its fingerprint, and the disclosures (base64url)
/// in the places' order. `salts` is `null` to draw them with `draw` (the host's CSPRNG, one
/// call for all), or an array of base64url salts of 16 bytes, one per place in order, for
/// reproducible tests and hosts that draw their own ([`Code::InvalidRequest`] otherwise,
/// under `/salts`). Never reuse a salt: two tasks with one salt and one value have one
/// commitment.
pub fn commit<E>(
    contract: &Contract,
    args: &Value<'_>,
    ids: &Value<'_>,
    salts: &Value<'_>,
    draw: impl FnOnce(&mut [[u8; SALT_BYTES]]) -> std::result::Result<(), E>,
) -> std::result::Result<Result<OwnedValue>, E> {
    let ids = match ActionIds::from_value(ids) {
        Ok(ids) => ids,
        Err(e) => return Ok(Err(e)),
    };
    let committed = Action::commit_drawn(contract, args, &ids, |slots| match salts {
        Value::Null => draw(slots).map_err(Drawn::Host),
        given => fill(given, slots).map_err(|e| Drawn::Given(e.in_key("salts"))),
    });
    let (action, disclosures) = match committed {
        Ok(Ok(done)) => done,
        Ok(Err(e)) | Err(Drawn::Given(e)) => return Ok(Err(e)),
        Err(Drawn::Host(e)) => return Err(e),
    };
    let s = |s: String| Value::String(Cow::Owned(s));
    let digest = s(action.digest().to_string());
    let entries = vec![
        (Cow::Borrowed("action"), action.into_value()),
        (Cow::Borrowed("action_digest"), digest),
        (
            Cow::Borrowed("disclosures"),
            Value::Array(
                disclosures
                    .into_iter()
                    .map(|d| s(d.into_encoded()))
                    .collect(),
            ),
        ),
    ];
    Ok(Ok(Value::Object(Object::from_sorted(entries))))
}

/// Fills `slots` from the salts given: exactly one per place.
fn fill(given: &Value<'_>, slots: &mut [[u8; SALT_BYTES]]) -> Result<()> {
    let invalid = |m: String| Error::new(Code::InvalidRequest, m);
    let items = match given {
        Value::Array(items) if items.len() == slots.len() => items,
        _ => {
            return Err(invalid(format!(
                "salts is null (drawn by the host) or an array of one salt per sensitive \
                 place: {} here",
                slots.len()
            )))
        }
    };
    for (i, (item, slot)) in items.iter().zip(slots.iter_mut()).enumerate() {
        let bytes = item.as_str().and_then(|t| b64url::decode(t).ok());
        *slot = bytes
            .and_then(|b| <[u8; SALT_BYTES]>::try_from(b).ok())
            .ok_or_else(|| {
                invalid(format!("a salt is {SALT_BYTES} bytes in base64url")).in_index(i)
            })?;
    }
    Ok(())
}

/// Reveals `action`, committed under `contract`, with `disclosures` (base64url strings, read
/// by [`read_disclosures`]): under `coverage` `"every"` each commitment needs its disclosure
/// (what an executor runs), under `"given"` the others stay commitments (what a reviewer or
/// an export allowed to see some of them shows). Returns the action with the values in place,
/// or [`super::reveal`]'s codes: a disclosure's at `/<index>` in the list, a place's at its
/// pointer in the action. A malformed action, or one of another contract, is
/// [`Code::InvalidAction`]; another coverage [`Code::InvalidRequest`].
pub fn reveal(
    contract: &Contract,
    action: &Value<'_>,
    disclosures: &Value<'_>,
    coverage: &Value<'_>,
) -> Result<OwnedValue> {
    let coverage = match coverage.as_str() {
        Some("every") => Coverage::Every,
        Some("given") => Coverage::Given,
        _ => {
            return Err(Error::new(
                Code::InvalidRequest,
                "coverage is \"every\" (every value, to run the call) or \"given\" (those \
                 disclosed)",
            ))
        }
    };
    check_shape(action)?;
    if field(action, "contract") != contract.digest_text() {
        return Err(Error::new(
            Code::InvalidAction,
            "the action was made under another contract than this one",
        )
        .in_key("contract"));
    }
    let disclosures = read_disclosures(disclosures)?;
    match contract.sensitive() {
        Some(s) => reveal_with(s, action, &disclosures, coverage),
        None if disclosures.is_empty() => Ok(action.clone().into_owned()),
        None => Err(Error::new(
            Code::DisclosureExtra,
            "the contract marks no value sensitive: nothing was committed",
        )
        .in_index(0)),
    }
}

/// Reads a list of disclosures as they travel: an array of at most [`MAX_DISCLOSURES`]
/// base64url strings, each as [`Disclosure::parse`] reads it; anything else is
/// [`Code::InvalidDisclosure`] (at the index of the one that is not a string).
pub fn read_disclosures(v: &Value<'_>) -> Result<Vec<Disclosure>> {
    let items = match v {
        Value::Array(items) if items.len() <= MAX_DISCLOSURES => items,
        _ => {
            return Err(Error::new(
                Code::InvalidDisclosure,
                format!("disclosures are an array of at most {MAX_DISCLOSURES} strings"),
            ))
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let text = d.as_str().ok_or_else(|| {
                Error::new(
                    Code::InvalidDisclosure,
                    "a disclosure is a base64url string",
                )
            });
            text.and_then(Disclosure::parse).map_err(|e| e.in_index(i))
        })
        .collect()
}
