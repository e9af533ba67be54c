//! Committing an action's sensitive values, and revealing them again with their disclosures.

use super::disclosure::{Disclosure, SALT_BYTES};
use super::policy::Sensitive;
use super::COMMITMENT_KEY;
use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{Object, OwnedValue, Value};
use std::borrow::{Borrow, Cow};
use std::collections::HashMap;

impl Sensitive {
    /// The values at this contract's sensitive places in `action` that are commitments: what
    /// a review of the frozen action holds back (see `Contract::review_action`).
    pub(crate) fn commitments<'v, 'a>(&'v self, action: &'v Value<'a>) -> Vec<&'v Value<'a>> {
        self.places(action)
            .into_iter()
            .filter(|p| committed(p.value).is_some())
            .map(|p| p.value)
            .collect()
    }
}

/// How many of a committed action's values a reveal needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Every one: what an executor runs with. A commitment left without its disclosure is
    /// [`Code::DisclosureMissing`].
    Every,
    /// Those disclosed: what a reviewer or an export allowed to see some of them shows; the
    /// others stay commitments.
    Given,
}

/// Commits `action` (an action envelope with its values in the clear): each place a sensitive
/// pointer matches holds `{"_sd": "<its disclosure's digest>"}` instead, each disclosure salted
/// by one call of `salt` (the host's CSPRNG). Returns the committed action and the
/// disclosures, in the places' order.
pub fn commit(
    sensitive: &Sensitive,
    action: &Value<'_>,
    salt: &mut dyn FnMut() -> [u8; SALT_BYTES],
) -> (OwnedValue, Vec<Disclosure>) {
    commit_owned(sensitive, action.clone().into_owned(), &[], salt)
}

/// [`commit`] of an amended action (in the clear) that keeps each disclosure of `kept` whose
/// place still holds its value, byte for byte: a value the reviewer left alone keeps its
/// commitment, so the amendment's drift names only the places it changed; a changed or new
/// value gets a fresh salt from `salt`. Returns the disclosures in the places' order.
pub fn commit_keeping(
    sensitive: &Sensitive,
    action: &Value<'_>,
    kept: &[Disclosure],
    salt: &mut dyn FnMut() -> [u8; SALT_BYTES],
) -> (OwnedValue, Vec<Disclosure>) {
    commit_owned(sensitive, action.clone().into_owned(), kept, salt)
}

/// [`commit`] of an action the caller gives up: each value replaced where it is, nothing
/// else copied.
pub(crate) fn commit_owned(
    sensitive: &Sensitive,
    mut action: OwnedValue,
    kept: &[Disclosure],
    salt: &mut dyn FnMut() -> [u8; SALT_BYTES],
) -> (OwnedValue, Vec<Disclosure>) {
    let mut disclosures = Vec::with_capacity(sensitive.len());
    crate::with_scratch(|text| {
        sensitive.each_place_mut(&mut action, &mut |pointer, at| {
            // The value moves into its disclosure; its commitment takes its place.
            let value = std::mem::replace(at, Value::Null);
            let same = kept.iter().find(|k| {
                k.pointer() == pointer
                    && Disclosure::digest_of(k.salt(), pointer, &value).ct_eq(&k.digest())
            });
            let d = match same {
                Some(k) => k.clone(),
                None => Disclosure::made(&salt(), pointer, value, text),
            };
            *at = commitment(&d.digest());
            disclosures.push(d);
        })
    });
    (action, disclosures)
}

/// Reveals a committed action: each disclosure must be of a commitment the action holds at a
/// sensitive place, once ([`Code::DisclosureExtra`] at its index otherwise), with that
/// commitment's digest ([`Code::DisclosureMismatch`]); under [`Coverage::Every`] every
/// commitment needs one ([`Code::DisclosureMissing`] at its place). A sensitive place that holds
/// anything but a commitment is [`Code::NotCommitted`] at that place: a value in the clear
/// would be kept wherever the action is. Returns the action with the disclosed values in place.
pub fn reveal(
    sensitive: &Sensitive,
    action: &Value<'_>,
    disclosures: &[Disclosure],
    coverage: Coverage,
) -> Result<OwnedValue> {
    let by_place = opened(sensitive, action, disclosures, coverage)?;
    Ok(replaced(action, &mut String::new(), &by_place))
}

/// Whether [`reveal`] would succeed, without building the revealed action: what a check needs
/// to know of the approved action's commitments.
pub fn verify(
    sensitive: &Sensitive,
    action: &Value<'_>,
    disclosures: &[Disclosure],
    coverage: Coverage,
) -> Result<()> {
    opened(sensitive, action, disclosures, coverage).map(|_| ())
}

/// `action` revealed with `disclosures` when it is presented as it was frozen: every sensitive
/// place holds a commitment, and the disclosures open each one (a claim's `approved_action`,
/// resumed with). `None` for an action in the clear, for one without sensitive places, and for
/// commitments these disclosures do not open: such an action is compared as it is presented.
pub fn reveal_presented(
    sensitive: &Sensitive,
    action: &Value<'_>,
    disclosures: &[Disclosure],
) -> Option<OwnedValue> {
    let places = sensitive.places(action);
    if places.is_empty() || places.iter().any(|p| committed(p.value).is_none()) {
        return None;
    }
    reveal(sensitive, action, disclosures, Coverage::Every).ok()
}

/// `action`, an action in the clear, committed again with the salts of `disclosures` (each
/// place's by its pointer): equal to the committed action they disclose exactly when every
/// sensitive value is the one committed, so its fingerprint is compared with the approved one.
/// A place no disclosure is of holds `{"_sd": "undisclosed"}`, which no commitment equals: a
/// value without a salt is never hashed, so no fingerprint can be searched for it.
pub fn recommit(
    sensitive: &Sensitive,
    action: &Value<'_>,
    disclosures: &[Disclosure],
) -> OwnedValue {
    let places = sensitive.places(action);
    if places.is_empty() {
        return action.clone().into_owned();
    }
    let salts: HashMap<&str, &[u8; SALT_BYTES]> = disclosures
        .iter()
        .map(|d| (d.pointer(), d.salt()))
        .collect();
    let by_place: HashMap<&str, OwnedValue> = places
        .iter()
        .map(|p| {
            let held = match salts.get(p.pointer.as_str()) {
                Some(salt) => commitment(&Disclosure::digest_of(salt, &p.pointer, p.value)),
                None => placeholder(UNDISCLOSED),
            };
            (p.pointer.as_str(), held)
        })
        .collect();
    replaced(action, &mut String::new(), &by_place)
}

/// What [`recommit`] puts where no disclosure gives a salt.
const UNDISCLOSED: &str = "undisclosed";

/// The value each disclosure gives, by its place, checked as [`reveal`] documents.
fn opened<'d>(
    sensitive: &Sensitive,
    action: &Value<'_>,
    disclosures: &'d [Disclosure],
    coverage: Coverage,
) -> Result<HashMap<&'d str, &'d OwnedValue>> {
    let mut held: HashMap<String, (Digest, bool)> = HashMap::new();
    let places = sensitive.places(action);
    for p in &places {
        let digest = committed(p.value).ok_or_else(|| {
            Error::new(
                Code::NotCommitted,
                format!(
                    "a sensitive place ({} values) holds something other than a commitment: \
                     the action was not committed",
                    p.class
                ),
            )
            .in_pointer(&p.pointer)
        })?;
        held.insert(p.pointer.clone(), (digest, false));
    }
    let mut by_place = HashMap::with_capacity(disclosures.len());
    for (i, d) in disclosures.iter().enumerate() {
        let at = |e: Error| e.in_index(i);
        let Some((digest, used)) = held.get_mut(d.pointer()) else {
            return Err(at(Error::new(
                Code::DisclosureExtra,
                format!(
                    "the action holds no commitment at {}: it is not a sensitive place of \
                     this action",
                    d.pointer()
                ),
            )));
        };
        if *used {
            return Err(at(Error::new(
                Code::DisclosureExtra,
                format!("a second disclosure of {}", d.pointer()),
            )));
        }
        if !digest.ct_eq(&d.digest()) {
            return Err(at(Error::new(
                Code::DisclosureMismatch,
                format!(
                    "the disclosure is not the one committed at {} (another salt or value: \
                     another task's, or altered)",
                    d.pointer()
                ),
            )));
        }
        *used = true;
        by_place.insert(d.pointer(), d.value());
    }
    if coverage == Coverage::Every {
        if let Some(p) = places.iter().find(|p| !held[&p.pointer].1) {
            return Err(Error::new(
                Code::DisclosureMissing,
                format!(
                    "the {} value committed here was not disclosed: it is needed to run the \
                     call",
                    p.class
                ),
            )
            .in_pointer(&p.pointer));
        }
    }
    Ok(by_place)
}

/// `{"_sd": "sha256:<hex>"}`.
fn commitment(digest: &Digest) -> OwnedValue {
    placeholder(digest.text().as_str())
}

/// `{"_sd": held}`.
fn placeholder(held: &str) -> OwnedValue {
    let entries = vec![(
        Cow::Borrowed(COMMITMENT_KEY),
        Value::String(Cow::Owned(held.to_owned())),
    )];
    Value::Object(Object::from_sorted(entries))
}

/// Where a difference found at `pointer` between actions `a` and `b` is reported: below a
/// place where both hold a commitment (or a place no disclosure opened), the two differ in
/// their `_sd`, which is a change of the value at that place, shown without the value.
pub(crate) fn place_of_difference(a: &Value<'_>, b: &Value<'_>, mut pointer: String) -> String {
    let place = pointer
        .strip_suffix(COMMITMENT_KEY)
        .and_then(|p| p.strip_suffix('/'))
        .filter(|place| {
            [a, b].iter().all(|v| {
                v.pointer(place)
                    .and_then(Value::as_object)
                    .is_some_and(|o| o.len() == 1 && o.get(COMMITMENT_KEY).is_some())
            })
        });
    if let Some(len) = place.map(str::len) {
        pointer.truncate(len);
    }
    pointer
}

/// The digest a commitment holds, if `v` is one.
fn committed(v: &Value<'_>) -> Option<Digest> {
    let o = v.as_object().filter(|o| o.len() == 1)?;
    o.get(COMMITMENT_KEY)?.as_str()?.parse().ok()
}

/// `v` (at pointer `at`) with the value at each place of `by_place` replaced, in one walk that
/// copies only what holds a place.
fn replaced<V: Borrow<OwnedValue>>(
    v: &Value<'_>,
    at: &mut String,
    by_place: &HashMap<&str, V>,
) -> OwnedValue {
    if let Some(new) = by_place.get(at.as_str()) {
        return new.borrow().clone();
    }
    let inside = |at: &str| {
        by_place
            .keys()
            .any(|p| p.len() > at.len() && p.starts_with(at) && p.as_bytes()[at.len()] == b'/')
    };
    if !inside(at) {
        return v.clone().into_owned();
    }
    let len = at.len();
    let out = match v {
        Value::Object(o) => {
            let entries = o
                .iter()
                .map(|(k, child)| {
                    at.push('/');
                    crate::json::pointer::push_escaped(at, k);
                    let new = replaced(child, at, by_place);
                    at.truncate(len);
                    (Cow::Owned(k.to_owned()), new)
                })
                .collect();
            Value::Object(Object::from_sorted(entries))
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, child)| {
                    at.push('/');
                    at.push_str(&i.to_string());
                    let new = replaced(child, at, by_place);
                    at.truncate(len);
                    new
                })
                .collect(),
        ),
        other => other.clone().into_owned(),
    };
    at.truncate(len);
    out
}
