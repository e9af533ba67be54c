//! Delegation that can only narrow: an approver (the delegator) lets another identity (the
//! delegate) decide on their behalf, within a scope and a time window.
//!
//! ```json
//! {"delegation_id": "dlg-1", "delegator": "user:carol", "delegate": "user:dave",
//!  "tenant": "tenant-a", "tools": ["refund_create"],
//!  "when": [{"pointer": "/args/amount_minor", "op": "lte", "value": 50000}],
//!  "not_before": 1764500000000, "not_after": 1765000000000}
//! ```
//!
//! Every member is required except `when`; identities are identifiers (see
//! [`crate::model::fields`]), `tools` a non-empty list of distinct tool names, times integer ms
//! with `not_after` after `not_before`, and the delegator is not the delegate. `when` lists
//! conditions in the rule language of [`crate::model::rule`] whose pointers are into the whole
//! action envelope; all of them must hold, and a scope fails closed the other way from an
//! approval rule: a condition holds only when its pointer resolves and its test is true.
//! Anything else is [`Code::InvalidDelegation`].
//!
//! A delegation's digest is the fingerprint of the document ([`delegation_digest`]), whatever
//! form it travels in. A link of a chain is one of:
//!
//! - a DSSE envelope of type [`DELEGATION_PAYLOAD_TYPE`] whose payload is the document's
//!   canonical bytes ([`sign_delegation`]), signed by a service key that may sign for the
//!   delegator;
//! - the document with a `passkey` member: an assertion whose challenge is the fingerprint of
//!   the document without it (as for approvals), by a credential of the delegator;
//! - the bare document, which proves nothing by itself: accepted only where the context does
//!   not require proof (a ledger's trusted caller recorded it).
//!
//! As for approvals, a key's window is judged at a time the verifier chooses, never at a time
//! the signer wrote. The rules for a chain of links (depth, connection, attenuation, windows,
//! scope, revocation) are in `chain.rs`, attenuation in `scope.rs`.

mod chain;
mod scope;

pub(crate) use chain::{recorded_document, verify_chain, Chain, ChainFacts, LinkSource};

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::fields::Fields;
use crate::model::proof::{dsse, webauthn, KeySet, Signer, SigningKey};
use scope::Scope;
use std::borrow::Cow;

/// The payload type of a signed delegation.
pub const DELEGATION_PAYLOAD_TYPE: &str = "application/vnd.actionseal.delegation+json";

const FIELDS: [&str; 8] = [
    "delegation_id",
    "delegator",
    "delegate",
    "tenant",
    "tools",
    "when",
    "not_before",
    "not_after",
];

/// A well-formed delegation document, as read.
#[derive(Clone, Debug)]
pub(crate) struct Delegation {
    pub(crate) delegator: String,
    pub(crate) delegate: String,
    pub(crate) scope: Scope,
    /// When it holds: `not_before <= t < not_after`.
    pub(crate) not_before: i64,
    pub(crate) not_after: i64,
}

impl Delegation {
    /// Reads a document strictly; problems are [`Code::InvalidDelegation`] at the member.
    pub(crate) fn from_value(v: &Value<'_>) -> Result<Delegation> {
        let f = Fields::new(v, Code::InvalidDelegation, "delegation", &FIELDS)?;
        f.identity("delegation_id")?;
        let delegator = f.identity("delegator")?;
        let delegate = f.identity("delegate")?;
        let scope = Scope::read(&f)?;
        let not_before = f.integer("not_before", 0)?;
        let not_after = f.integer("not_after", 0)?;
        if not_after <= not_before {
            return Err(invalid("not_after must be after not_before").in_key("not_after"));
        }
        if delegator == delegate {
            return Err(invalid("a delegator cannot delegate to itself").in_key("delegate"));
        }
        Ok(Delegation {
            delegator: delegator.to_owned(),
            delegate: delegate.to_owned(),
            scope,
            not_before,
            not_after,
        })
    }

    /// Whether this delegation is within `parent`: scope within its scope (see `scope.rs`),
    /// window inside its window.
    pub(crate) fn within(&self, parent: &Delegation) -> bool {
        self.not_before >= parent.not_before
            && self.not_after <= parent.not_after
            && self.scope.within(&parent.scope)
    }
}

pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidDelegation, message)
}

/// A delegation whose form verified: the document, its digest, and who signed it (`None` for a
/// bare document).
#[derive(Clone, Debug)]
pub struct VerifiedDelegation {
    document: OwnedValue,
    delegation: Delegation,
    digest: Digest,
    signer: Option<Signer>,
}

impl VerifiedDelegation {
    /// The document (for a passkey-approved one, without its `passkey` member).
    pub fn document(&self) -> &OwnedValue {
        &self.document
    }

    /// The fingerprint of the document, by which revocation facts name it.
    pub fn digest(&self) -> Digest {
        self.digest
    }

    /// Who signed, or `None` for a bare document.
    pub fn signer(&self) -> Option<&Signer> {
        self.signer.as_ref()
    }

    /// Who delegates.
    pub fn delegator(&self) -> &str {
        &self.delegation.delegator
    }

    /// To whom.
    pub fn delegate(&self) -> &str {
        &self.delegation.delegate
    }

    /// `{"delegation": <document>, "digest": "sha256:...", "signer": {...} | null}`, the
    /// signer as in [`Signer::to_value`].
    pub fn to_value(&self) -> OwnedValue {
        let entries = vec![
            (Cow::Borrowed("delegation"), self.document.clone()),
            (
                Cow::Borrowed("digest"),
                Value::String(Cow::Owned(self.digest.to_string())),
            ),
            (
                Cow::Borrowed("signer"),
                self.signer.as_ref().map_or(Value::Null, Signer::to_value),
            ),
        ];
        // Distinct literal keys.
        Value::Object(Object::from_entries(entries).unwrap_or_default())
    }
}

/// Signs a delegation document with the delegator's service key: the DSSE envelope of type
/// [`DELEGATION_PAYLOAD_TYPE`] whose payload is the document's canonical bytes. A malformed
/// document is [`Code::InvalidDelegation`]: a signature never vouches for one.
pub fn sign_delegation(document: &Value<'_>, key: &SigningKey) -> Result<OwnedValue> {
    Delegation::from_value(document)?;
    dsse::sign_payload(DELEGATION_PAYLOAD_TYPE, &crate::canonicalize(document), key)
}

/// The digest of a delegation document: its fingerprint, once it reads as a well-formed
/// document ([`Code::InvalidDelegation`] otherwise).
pub fn delegation_digest(document: &Value<'_>) -> Result<Digest> {
    Delegation::from_value(document)?;
    Ok(crate::fingerprint(document))
}

/// Verifies one link of a chain in whichever form it comes: a signed envelope (it has
/// `payloadType`; the steps and codes are those of [`crate::verify_envelope`], with
/// [`DELEGATION_PAYLOAD_TYPE`]), a passkey-approved document (it has `passkey`; as
/// [`crate::verify_passkey`]) or a bare document (signer `None`). The key or credential must
/// be allowed to sign for the delegator and is judged at `at`, a time the verifier chooses.
/// The document's own window is not judged here: a chain judges it at the check's time.
pub fn verify_delegation(link: &Value<'_>, keys: &KeySet, at: i64) -> Result<VerifiedDelegation> {
    if dsse::looks_like_envelope(link) {
        let mut payload = Vec::new();
        let key = dsse::verify_signature_of(DELEGATION_PAYLOAD_TYPE, link, keys, &mut payload)?;
        let document = dsse::read_payload(&payload)?;
        let delegation = Delegation::from_value(&document).map_err(|e| e.in_key("payload"))?;
        key.authorize(&delegation.delegator, at)?;
        let signer = Signer::Service {
            keyid: key.key.keyid().to_owned(),
        };
        Ok(verified(document.into_owned(), delegation, Some(signer)))
    } else if webauthn::looks_like_passkey(link) {
        let (document, assertion) = webauthn::split(link);
        let delegation = Delegation::from_value(&document)?;
        let assertion = assertion.ok_or_else(|| invalid("the passkey member is missing"))?;
        let (passkey, _) = webauthn::verify_assertion(&document, assertion, keys)?;
        passkey.authorize(&delegation.delegator, at)?;
        let signer = Signer::Passkey {
            credential_id: passkey.id.clone(),
            algorithm: passkey.key.algorithm(),
        };
        Ok(verified(document.into_owned(), delegation, Some(signer)))
    } else {
        let delegation = Delegation::from_value(link)?;
        Ok(verified(link.clone().into_owned(), delegation, None))
    }
}

fn verified(
    document: OwnedValue,
    delegation: Delegation,
    signer: Option<Signer>,
) -> VerifiedDelegation {
    VerifiedDelegation {
        digest: crate::fingerprint(&document),
        document,
        delegation,
        signer,
    }
}

#[cfg(test)]
mod tests;
