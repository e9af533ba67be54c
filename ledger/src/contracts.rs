//! The contracts a ledger has compiled, kept for the next operation that brings the same one.
//!
//! Proposals and claims carry the tool's contract as a JSON document; compiling it (its schema,
//! its approval rule, its fingerprint) costs more than the rest of a claim's check. A ledger
//! serves few contracts, so it keeps the last ones it compiled and reuses the one whose
//! document is equal to the one presented: equal values have the same canonical form, hence
//! the same fingerprint and the same compiled contract.

use crate::sync::locked;
use actionseal_core::{Contract, Digest, Result, Value};
use std::sync::Mutex;

/// How many compiled contracts are kept (the oldest goes first).
const KEPT: usize = 32;

#[derive(Default)]
pub(crate) struct Contracts(
    Mutex<Vec<Contract>>,
    Mutex<Vec<Digest>>,
    /// Canonical texts read from storage with their contracts (see `load_canonical`).
    Mutex<Vec<(Box<str>, Contract)>>,
);

impl Contracts {
    /// The compiled contract of `doc`, from the ones kept or compiled now.
    pub(crate) fn load(&self, doc: &Value<'_>) -> Result<Contract> {
        let kept = |v: &Vec<Contract>| v.iter().find(|c| c.document() == doc).cloned();
        if let Some(c) = kept(&locked(&self.0)) {
            return Ok(c);
        }
        // Compiled outside the lock; a contract that does not compile is not kept.
        let c = Contract::from_value(doc)?;
        let mut v = locked(&self.0);
        if kept(&v).is_none() {
            keep(&mut v, c.clone());
        }
        Ok(c)
    }

    /// The compiled contract of `text`, a document stored in its canonical form (a batch's):
    /// the kept one whose fingerprint is the text's SHA-256, which only that contract's
    /// canonical form has, without reading the text; else the text read and compiled now.
    /// A text seen before is compared byte for byte, not hashed again: a claim of a batch's
    /// item loads its batch's contract each time.
    pub(crate) fn load_canonical(&self, text: &str) -> Result<Contract> {
        let seen = |v: &Vec<(Box<str>, Contract)>| {
            v.iter().find(|(t, _)| **t == *text).map(|(_, c)| c.clone())
        };
        if let Some(c) = seen(&locked(&self.2)) {
            return Ok(c);
        }
        let digest = Digest::of(text.as_bytes());
        let kept = locked(&self.0);
        let found = kept.iter().find(|c| c.digest().ct_eq(&digest)).cloned();
        drop(kept);
        let c = match found {
            Some(c) => c,
            None => self.load(&crate::json::stored(text)?)?,
        };
        let mut v = locked(&self.2);
        if seen(&v).is_none() {
            keep(&mut v, (text.into(), c.clone()));
        }
        Ok(c)
    }

    /// Whether this handle already stored `c` in the database's `ledger_contracts`.
    pub(crate) fn stored(&self, c: &Contract) -> bool {
        let v = locked(&self.1);
        v.contains(&c.digest())
    }

    /// Notes that `c` is stored, so that the next proposal under it writes nothing more.
    pub(crate) fn mark_stored(&self, c: &Contract) {
        let mut v = locked(&self.1);
        if !v.contains(&c.digest()) {
            keep(&mut v, c.digest());
        }
    }
}

/// Appends `x` to a list of at most [`KEPT`], the oldest going first.
fn keep<T>(v: &mut Vec<T>, x: T) {
    if v.len() == KEPT {
        v.remove(0);
    }
    v.push(x);
}
