//! Proof of who decided: service-signed decisions (Ed25519 over a DSSE envelope) and passkey
//! approvals (WebAuthn assertions), both verified against a key set that the executor's own
//! server supplies.
//!
//! An approval record alone proves only consistency: anyone who can write a record with the
//! right digest has "approved". Where the approval system and the executor sit in different
//! trust domains, [`crate::check`] can require that an approval arrives either as a signed
//! envelope ([`sign_approval`], [`verify_envelope`]) or as a passkey-approved record
//! ([`verify_passkey`]), via the `proof` member of the trusted context ([`ProofPolicy`]).
//!
//! Everything takes and returns JSON values and fails with core [`Code`](crate::Code)s, so a
//! binding only converts: keys and key sets are JSON (JWK or raw base64url; see
//! [`KeySet`]), byte strings are base64url ([`base64url_decode`]), and a verified proof
//! comes back as `{"approval", "signer"}` ([`Verified::to_value`]).

pub mod calls;
mod cbor;
mod cose;
pub(crate) mod dsse;
pub(crate) mod ed25519;
pub(crate) mod keyset;
pub(crate) use crate::base64::url as base64url;
pub(crate) mod webauthn;

use crate::error::{Code, Error, Result};
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::approval::Approval;
use crate::model::batch::BatchDecision;
use crate::model::reason::Reason;
use std::borrow::Cow;

pub use base64url::{decode as base64url_decode, encode as base64url_encode};
pub use dsse::{pae, sign_approval, PAYLOAD_TYPE};
pub use ed25519::{PublicKey, SigningKey};
pub use keyset::{KeySet, ProofPolicy, ProofRequirement};
pub use webauthn::{passkey_challenge, Registration};

/// Who vouched for a verified decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signer {
    /// A service key, by keyid (its RFC 7638 thumbprint).
    Service {
        /// The key's thumbprint.
        keyid: String,
    },
    /// A reviewer's passkey, by credential id (base64url).
    Passkey {
        /// The credential id.
        credential_id: String,
        /// `ES256` or `EdDSA`.
        algorithm: &'static str,
    },
}

/// A decision record a proof may carry: an approval of one action ([`Approval`]) or a
/// decision over a batch ([`BatchDecision`]).
pub trait DecisionRecord: Sized + Clone + std::fmt::Debug {
    /// Reads a record, which must be well-formed and sealed (its digest its frozen
    /// subject's), or [`Code::InvalidApproval`].
    fn sealed(record: &Value<'_>) -> Result<Self>;
    /// The record.
    fn record(&self) -> &OwnedValue;
}

impl DecisionRecord for Approval {
    fn sealed(record: &Value<'_>) -> Result<Approval> {
        let approval = Approval::from_value(record)?;
        if !approval.is_sealed() {
            return Err(Error::new(
                Code::InvalidApproval,
                "action_digest is not the fingerprint of the frozen action",
            )
            .in_key("action_digest"));
        }
        Ok(approval)
    }

    fn record(&self) -> &OwnedValue {
        self.value()
    }
}

impl DecisionRecord for BatchDecision {
    fn sealed(record: &Value<'_>) -> Result<BatchDecision> {
        let decision = BatchDecision::from_value(record)?;
        if !decision.is_sealed() {
            return Err(Error::new(
                Code::InvalidApproval,
                "batch_digest is not the fingerprint of the frozen batch header",
            )
            .in_key("batch_digest"));
        }
        Ok(decision)
    }

    fn record(&self) -> &OwnedValue {
        self.value()
    }
}

/// A decision whose proof verified: the record, and who signed it.
#[derive(Clone, Debug)]
pub struct Verified<R = Approval> {
    approval: R,
    signer: Signer,
    /// A passkey assertion's signature counter (WebAuthn `signCount`).
    sign_count: Option<u32>,
}

impl<R: DecisionRecord> Verified<R> {
    /// The record (for a passkey-approved record, without its `passkey` member).
    pub fn approval(&self) -> &R {
        &self.approval
    }

    /// Who signed.
    pub fn signer(&self) -> &Signer {
        &self.signer
    }

    /// A passkey assertion's signature counter (`None` for a service signature). Only a store
    /// that keeps each credential's last counter can use it (a ledger does).
    pub fn sign_count(&self) -> Option<u32> {
        self.sign_count
    }

    /// `{"approval": <record>, "signer": {"kind": "service", "keyid"} | {"kind": "passkey",
    /// "credential_id", "algorithm"}}`.
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("approval", self.approval.record().clone()),
            ("signer", self.signer.to_value()),
        ])
    }
}

impl Signer {
    /// `{"kind": "service", "keyid"}` or `{"kind": "passkey", "credential_id", "algorithm"}`:
    /// public names only, never key material.
    pub fn to_value(&self) -> OwnedValue {
        let s = |s: &str| Value::String(Cow::Owned(s.to_owned()));
        let signer = match self {
            Signer::Service { keyid } => vec![("keyid", s(keyid)), ("kind", s("service"))],
            Signer::Passkey {
                credential_id,
                algorithm,
            } => vec![
                ("algorithm", s(algorithm)),
                ("credential_id", s(credential_id)),
                ("kind", s("passkey")),
            ],
        };
        object(signer)
    }
}

fn object(members: Vec<(&'static str, OwnedValue)>) -> OwnedValue {
    let entries = members
        .into_iter()
        .map(|(k, v)| (Cow::Borrowed(k), v))
        .collect();
    // Distinct literal keys.
    Value::Object(Object::from_entries(entries).unwrap_or_default())
}

/// Verifies a signed envelope (see the `dsse` module docs for the order of the steps) and
/// returns the record it carries, which must be a well-formed, sealed approval record whose
/// approver the key may sign for. The key's validity window is judged at `at`, a time the
/// verifier chooses (its clock, or the time a ledger recorded the decision's arrival), never at
/// the record's `decided_at`, which the signer writes.
pub fn verify_envelope(envelope: &Value<'_>, keys: &KeySet, at: i64) -> Result<Verified> {
    envelope_of(envelope, keys, at)
}

fn envelope_of<R: DecisionRecord>(
    envelope: &Value<'_>,
    keys: &KeySet,
    at: i64,
) -> Result<Verified<R>> {
    let mut payload = Vec::new();
    let key = dsse::verify_signature(envelope, keys, &mut payload)?;
    let record = dsse::read_payload(&payload)?;
    let approval = R::sealed(&record).map_err(|e| e.in_key("payload"))?;
    key.authorize(approver(&record), at)?;
    Ok(Verified {
        approval,
        signer: Signer::Service {
            keyid: key.key.keyid().to_owned(),
        },
        sign_count: None,
    })
}

/// Verifies a passkey-approved record (see the `webauthn` module docs) and returns the record
/// without its assertion; the credential's window is judged at `at`, as for
/// [`verify_envelope`].
pub fn verify_passkey(record: &Value<'_>, keys: &KeySet, at: i64) -> Result<Verified> {
    passkey_of(record, keys, at)
}

fn passkey_of<R: DecisionRecord>(
    record: &Value<'_>,
    keys: &KeySet,
    at: i64,
) -> Result<Verified<R>> {
    let (plain, assertion) = webauthn::split(record);
    let assertion = assertion.ok_or_else(no_proof)?;
    let approval = R::sealed(&plain)?;
    let (passkey, sign_count) = webauthn::verify_assertion(&plain, assertion, keys)?;
    passkey.authorize(approver(&plain), at)?;
    Ok(Verified {
        approval,
        signer: Signer::Passkey {
            credential_id: passkey.id.clone(),
            algorithm: passkey.key.algorithm(),
        },
        sign_count: Some(sign_count),
    })
}

/// Verifies whichever proof `approval` carries, judging the key at `at`: a signed envelope (it
/// has `payloadType`) or a passkey-approved record (it has `passkey`); a bare record is
/// [`Code::MissingProof`].
pub fn verify_proof(approval: &Value<'_>, keys: &KeySet, at: i64) -> Result<Verified> {
    proof_of(approval, keys, at)
}

/// [`verify_proof`] of a decision over a batch ([`BatchDecision`]).
pub fn verify_batch_proof(
    decision: &Value<'_>,
    keys: &KeySet,
    at: i64,
) -> Result<Verified<BatchDecision>> {
    proof_of(decision, keys, at)
}

pub(crate) fn proof_of<R: DecisionRecord>(
    approval: &Value<'_>,
    keys: &KeySet,
    at: i64,
) -> Result<Verified<R>> {
    if dsse::looks_like_envelope(approval) {
        envelope_of(approval, keys, at)
    } else if webauthn::looks_like_passkey(approval) {
        passkey_of(approval, keys, at)
    } else {
        Err(no_proof())
    }
}

/// Whether `v` carries proof of its own: a signed envelope or a passkey-approved record.
pub(crate) fn carries_proof(v: &Value<'_>) -> bool {
    dsse::looks_like_envelope(v) || webauthn::looks_like_passkey(v)
}

/// Verifies a plain Ed25519 signature with a key given as JSON (JWK or raw base64url), for
/// checking the primitive against published vectors.
pub fn ed25519_verify(key: &Value<'_>, message: &[u8], signature: &[u8]) -> Result<()> {
    PublicKey::from_value(key)?.verify(message, signature)
}

fn no_proof() -> Error {
    Error::new(
        Code::MissingProof,
        "the approval carries neither a signed envelope nor a passkey assertion",
    )
}

/// A well-formed record whose digest seals its subject: an action's approval, or a
/// batch's decision (told apart by their members).
pub(crate) fn sealed_any(record: &Value<'_>) -> Result<()> {
    let is_batch = record.as_object().is_some_and(|o| o.get("batch").is_some());
    if is_batch {
        BatchDecision::sealed(record).map(|_| ())
    } else {
        Approval::sealed(record).map(|_| ())
    }
}

/// The record's approver, or "" when it has none (the record is then invalid anyway).
fn approver<'v>(record: &'v Value<'_>) -> &'v str {
    record
        .as_object()
        .and_then(|o| o.get("approver"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// An approval as [`crate::check`] sees it once its proof is dealt with.
pub(crate) enum Opened<'v, 'a, 'p> {
    /// None was presented.
    Absent,
    /// Its proof is missing or does not hold: the record is not used.
    Refused(Reason),
    /// A record with no proof, where none is required.
    Plain(&'v Value<'a>),
    /// The verified payload of a signed envelope, borrowing the decoded bytes.
    Signed(Value<'p>),
    /// A passkey-approved record, without its verified assertion.
    Stripped(Value<'a>),
}

impl Opened<'_, '_, '_> {
    /// The record to check, unless absent or refused.
    pub(crate) fn record(&self) -> Option<&Value<'_>> {
        match self {
            Opened::Absent | Opened::Refused(_) => None,
            Opened::Plain(v) => Some(v),
            Opened::Signed(v) => Some(v),
            Opened::Stripped(v) => Some(v),
        }
    }

    /// Why the approval is not used, if it is not.
    pub(crate) fn refused(&self) -> Option<Reason> {
        match self {
            Opened::Refused(r) => Some(*r),
            _ => None,
        }
    }
}

/// Verifies the proof an approval carries, for [`crate::check`], judging keys at `now` (the
/// context's). The payload of a signed envelope is decoded into `payload` and parsed once;
/// the check reads the record from there.
pub(crate) fn open<'v, 'a, 'p>(
    approval: Option<&'v Value<'a>>,
    policy: Option<&ProofPolicy>,
    now: i64,
    payload: &'p mut Vec<u8>,
) -> Opened<'v, 'a, 'p> {
    static NO_KEYS: KeySet = KeySet::EMPTY;
    let keys = policy.map_or(&NO_KEYS, ProofPolicy::keys);
    let v = match approval {
        None | Some(Value::Null) => return Opened::Absent,
        Some(v) => v,
    };
    let refused = |e: Error| Opened::Refused(reason(e.code()));
    if dsse::looks_like_envelope(v) {
        let key = match dsse::verify_signature(v, keys, payload) {
            Ok(key) => key,
            Err(e) => return refused(e),
        };
        let record = match dsse::read_payload(payload) {
            Ok(record) => record,
            Err(e) if e.code() == Code::NonCanonicalPayload => return refused(e),
            // Signed, but not JSON: the record is malformed.
            Err(_) => return Opened::Refused(Reason::InvalidApproval),
        };
        match vouch(&record, |who| key.authorize(who, now)) {
            Ok(()) => Opened::Signed(record),
            Err(e) => refused(e),
        }
    } else if webauthn::looks_like_passkey(v) {
        let (plain, assertion) = webauthn::split(v);
        let checked = assertion
            .ok_or_else(no_proof)
            .and_then(|a| webauthn::verify_assertion(&plain, a, keys))
            .and_then(|(p, _)| vouch(&plain, |who| p.authorize(who, now)));
        match checked {
            Ok(()) => Opened::Stripped(plain),
            Err(e) => refused(e),
        }
    } else if let Some(reason) = bare(policy) {
        Opened::Refused(reason)
    } else {
        Opened::Plain(v)
    }
}

/// Why a record that carries no proof is refused under `policy`, if it is: when proof is
/// required. A loaded [`crate::Approval`] is such a record (it holds a record's fields only:
/// no payload type, no passkey assertion), so its check asks this alone.
pub(crate) fn bare(policy: Option<&ProofPolicy>) -> Option<Reason> {
    policy
        .is_some_and(ProofPolicy::required)
        .then_some(Reason::ProofMissing)
}

/// Whether the signer may vouch for the record's approver. A record without one is
/// malformed, which the check reports as `invalid_approval`.
fn vouch(record: &Value<'_>, authorize: impl FnOnce(&str) -> Result<()>) -> Result<()> {
    match approver(record) {
        "" => Ok(()),
        who => authorize(who),
    }
}

/// The check reason for a proof that failed with `code`.
fn reason(code: Code) -> Reason {
    match code {
        Code::MissingProof => Reason::ProofMissing,
        Code::UnknownKey | Code::KeyOutsideWindow => Reason::KeyUntrusted,
        Code::SignerNotAllowed => Reason::SignerNotAllowed,
        _ => Reason::ProofInvalid,
    }
}

#[cfg(test)]
mod tests;
