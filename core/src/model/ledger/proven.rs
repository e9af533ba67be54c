//! Decisions that carry their own proof: a reviewer's approval system sends the ledger the
//! approval record it signed (a DSSE envelope, see [`crate::sign_approval`]) or the record the
//! reviewer's passkey approved, instead of a bare decision envelope.
//!
//! The ledger verifies the proof against the key set its server configured (never one from the
//! request), derives the decision envelope from the verified record, builds the record itself
//! as it does for a bare decision, and records the decision only when the two records are the
//! same bytes: a signature over any other record (another round, action, digest, expiry, or a
//! missing or extra `proposed_digest`) proves nothing about this task.

use crate::error::{Code, Error, Result};
use crate::json::canon::canonicalize;
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::delegation::verify_delegation;
use crate::model::ledger::decision::DecisionEnvelope;
use crate::model::ledger::envelope::Envelope;
use crate::model::ledger::values::string;
use crate::model::proof::dsse::looks_like_envelope;
use crate::model::proof::{
    carries_proof, proof_of, DecisionRecord, KeySet, ProofRequirement, Signer,
};
use std::borrow::Cow;

/// A decision as presented to the ledger: bare, or with its proof verified. About a task
/// ([`DecisionEnvelope`], the default) or a batch ([`super::BatchEnvelope`]): both are read,
/// verified and rebuilt by the same rules.
#[derive(Clone, Debug)]
pub enum Presented<E: Envelope = DecisionEnvelope> {
    /// A bare decision envelope (accepted only where proof is not required).
    Plain(Box<E>),
    /// A signed or passkey-approved record whose proof verified.
    Proven(Box<ProvenDecision<E>>),
}

/// Whether a stored record was decided through a delegation link that carries no proof of its
/// own: a bare document, which a ledger accepts only while it does not require proof.
pub fn has_bare_link(record: &Value<'_>) -> bool {
    let links = record.as_object().and_then(|o| o.get("delegation"));
    matches!(links, Some(Value::Array(links)) if links.iter().any(|l| !carries_proof(l)))
}

/// A verified record, the decision derived from it, who signed it, and the proof as presented.
#[derive(Clone, Debug)]
pub struct ProvenDecision<E: Envelope = DecisionEnvelope> {
    envelope: E,
    record: E::Record,
    signer: Signer,
    sign_count: Option<u32>,
    verified_at: i64,
    proof: OwnedValue,
}

impl<E: Envelope> Presented<E> {
    /// Reads what a ledger's `decide` was given at `arrived`, the ledger's own clock. A signed
    /// envelope (it has `payloadType`) or a passkey-approved record (it has `passkey`) is
    /// verified against `keys` (none: every proof is refused as [`Code::UnknownKey`]), each
    /// key judged at `arrived`, and fails with the proof's own code; anything else is a bare
    /// envelope, refused as [`Code::MissingProof`] when proof is `required`, and otherwise
    /// read by [`DecisionEnvelope::from_value`].
    /// Every delegation link the decision was made through is verified the same way, against
    /// the same keys at `arrived` (failures keep the proof's codes, at `/delegation/<i>`), and
    /// a bare link is [`Code::MissingProof`] when proof is `required`.
    pub fn read(
        v: &Value<'_>,
        keys: &KeySet,
        required: ProofRequirement,
        arrived: i64,
    ) -> Result<Presented<E>> {
        let presented = Presented::<E>::read_decision(v, keys, required, arrived)?;
        for (i, link) in presented
            .envelope()
            .delegation()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let at = |e: Error| e.in_index(i).in_key("delegation");
            let verified = verify_delegation(link, keys, arrived).map_err(at)?;
            if verified.signer().is_none() && required == ProofRequirement::Required {
                return Err(at(Error::new(
                    Code::MissingProof,
                    "this ledger requires proof of every delegation link a decision is made \
                     through: a signed envelope or a passkey-approved document",
                )));
            }
        }
        Ok(presented)
    }

    fn read_decision(
        v: &Value<'_>,
        keys: &KeySet,
        required: ProofRequirement,
        arrived: i64,
    ) -> Result<Presented<E>> {
        if carries_proof(v) {
            let verified = proof_of::<E::Record>(v, keys, arrived)?;
            let record = verified.approval().clone();
            return Ok(Presented::Proven(Box::new(ProvenDecision {
                envelope: E::of_record(&record)?,
                record,
                signer: verified.signer().clone(),
                sign_count: verified.sign_count(),
                verified_at: arrived,
                proof: detached(v),
            })));
        }
        if required == ProofRequirement::Required {
            return Err(Error::new(
                Code::MissingProof,
                "this ledger requires every decision to carry proof: a signed envelope or a \
                 passkey-approved record",
            ));
        }
        E::from_value(v).map(|d| Presented::Plain(Box::new(d)))
    }

    /// The decision envelope (for a proven decision, derived from its record).
    pub fn envelope(&self) -> &E {
        match self {
            Presented::Plain(d) => d,
            Presented::Proven(p) => &p.envelope,
        }
    }

    /// The proof, when the decision carried one.
    pub fn proven(&self) -> Option<&ProvenDecision<E>> {
        match self {
            Presented::Plain(_) => None,
            Presented::Proven(p) => Some(p),
        }
    }
}

impl<E: Envelope> ProvenDecision<E> {
    /// The verified record (a passkey-approved record without its assertion).
    pub fn record(&self) -> &E::Record {
        &self.record
    }

    /// Who signed.
    pub fn signer(&self) -> &Signer {
        &self.signer
    }

    /// A passkey assertion's signature counter (`None` for a service signature).
    pub fn sign_count(&self) -> Option<u32> {
        self.sign_count
    }

    /// Checks the assertion's signature counter against `stored`, the last one the ledger
    /// recorded for the credential (WebAuthn Level 3, 6.1.1): while either is non-zero the
    /// new one must be greater, or the authenticator may be a clone or the assertion a replay
    /// ([`Code::SignCountNotIncreasing`]). Both 0: the authenticator keeps no counter.
    /// A service signature has none to check.
    pub fn check_sign_count(&self, stored: Option<i64>) -> Result<()> {
        let (Some(new), Some(stored)) = (self.sign_count, stored) else {
            return Ok(());
        };
        let new = i64::from(new);
        if new > stored || (new == 0 && stored == 0) {
            return Ok(());
        }
        Err(Error::new(
            Code::SignCountNotIncreasing,
            format!(
                "the passkey's signature counter is {new}, not above the {stored} it reached \
                 before: a cloned authenticator or a replayed assertion"
            ),
        )
        .in_key("passkey"))
    }

    /// The ledger's time at which the proof was verified (the decision's arrival), when each
    /// key's window was judged: an executor verifying the claimed decision judges it there.
    pub fn verified_at(&self) -> i64 {
        self.verified_at
    }

    /// The proof without the record it proves: the signed envelope without its `payload`
    /// (`{"payloadType", "signatures"}`), or the passkey assertion (the record's `passkey`
    /// member). The record is the one the ledger builds and keeps, byte for byte, so the
    /// audit can hold the proof without holding the action's argument values.
    pub fn proof(&self) -> &OwnedValue {
        &self.proof
    }

    /// Checks that the verified record is byte for byte `built`, the record the ledger builds
    /// for the task's current round (or the batch as it awaits its decision) from this
    /// decision: [`Code::DecisionMismatch`] at the first member (in canonical order) that
    /// differs.
    pub fn check_built(&self, built: &E::Record) -> Result<()> {
        let (signed, built) = (self.record.record(), built.record());
        if canonicalize(signed) == canonicalize(built) {
            return Ok(());
        }
        let key = first_difference(signed, built);
        Err(Error::new(
            Code::DecisionMismatch,
            format!(
                "the signed record is not the record the ledger builds for this task's round: \
                 {key} differs"
            ),
        )
        .in_key(&key))
    }
}

/// The proven decision whole again: `proof` (as [`ProvenDecision::proof`] keeps it, a signed
/// envelope without its payload or a passkey assertion) with `record`, the approval record
/// it proves, put back: `{"payload", "payloadType", "signatures"}` or the record with its
/// `passkey` member. What a ledger keeps apart (the record on the task, the proof on the task
/// and in the audit) verifies again as it arrived ([`crate::verify_proof`]).
pub fn reattach(record: &Value<'_>, proof: &Value<'_>) -> OwnedValue {
    let owned = |o: &Object<'_>| -> Vec<(Cow<'static, str>, OwnedValue)> {
        o.iter()
            .map(|(k, x)| (Cow::Owned(k.to_owned()), x.clone().into_owned()))
            .collect()
    };
    let (Some(r), Some(p)) = (record.as_object(), proof.as_object()) else {
        return OwnedValue::Null;
    };
    let members = if looks_like_envelope(proof) {
        let payload = crate::model::proof::base64url_encode(canonicalize(record).as_bytes());
        let mut m = owned(p);
        m.push((Cow::Borrowed("payload"), string(&payload)));
        m
    } else {
        let mut m = owned(r);
        m.push((Cow::Borrowed("passkey"), proof.clone().into_owned()));
        m
    };
    // A record has no `passkey` member and an envelope's proof no `payload`: the keys stay
    // distinct (a damaged input gives null).
    Object::from_entries(members).map_or(OwnedValue::Null, Value::Object)
}

/// `v`'s proof without its record (see [`ProvenDecision::proof`]).
fn detached(v: &Value<'_>) -> OwnedValue {
    let Some(o) = v.as_object() else {
        return OwnedValue::Null;
    };
    if looks_like_envelope(v) {
        let rest = o
            .iter()
            .filter(|(k, _)| *k != "payload")
            .map(|(k, x)| (Cow::Owned(k.to_owned()), x.clone().into_owned()))
            .collect();
        // The members of an object, less one: still distinct.
        Value::Object(Object::from_entries(rest).unwrap_or_default())
    } else {
        o.get("passkey")
            .map_or(OwnedValue::Null, |a| a.clone().into_owned())
    }
}

/// The first member, in canonical key order, that one record lacks or holds another value of.
fn first_difference(a: &Value<'_>, b: &Value<'_>) -> String {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return String::new();
    };
    let mut keys: Vec<&str> = a.iter().chain(b.iter()).map(|(k, _)| k).collect();
    keys.sort_by(|x, y| crate::cmp_utf16(x, y));
    keys.into_iter()
        .find(|k| match (a.get(k), b.get(k)) {
            (Some(x), Some(y)) => canonicalize(x) != canonicalize(y),
            _ => true,
        })
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests;
