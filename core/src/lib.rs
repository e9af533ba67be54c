//! actionseal core: strict JSON, RFC 8785 canonical form and SHA-256 fingerprints.
//!
//! A human approval in actionseal is evidence about one exact action: the SHA-256 digest of
//! the action's canonical bytes. This crate turns JSON text or host values into those bytes,
//! identically in every runtime, and refuses input whose meaning is ambiguous or would be
//! changed by the conversion (duplicate keys, lone surrogates, non-finite or inexact
//! numbers) with a stable [`Code`]. It does no I/O.
//!
//! ```
//! use actionseal_core::{canonicalize_json, fingerprint_json, Options};
//!
//! let opts = Options::default();
//! let text = br#"{"order": "order-17", "amount_minor": 2500.00, "currency": "USD"}"#;
//! assert_eq!(
//!     canonicalize_json(text, &opts).unwrap(),
//!     r#"{"amount_minor":2500,"currency":"USD","order":"order-17"}"#
//! );
//! assert!(fingerprint_json(text, &opts).unwrap().to_string().starts_with("sha256:"));
//! ```

mod base64;
mod error;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod host;
mod json;
mod model;
pub mod rfc3339;
pub mod timestamp;
pub mod tlog;
pub mod webhook;

pub use error::{Code, Error, Result};
pub use json::canon::{canonicalize, write_canonical};
pub use json::digest::{digest_equal, Digest, DigestText};
pub use json::keyorder::cmp_utf16;
pub use json::number::{Number, MAX_SAFE_INTEGER};
pub use json::options::{Options, Profile, DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, MAX_DEPTH_LIMIT};
pub use json::parse::parse;
pub use json::pointer::parse_pointer;
pub use json::utf16::{string_from_utf16, utf16_to_wtf8};
pub use json::value::{Object, OwnedValue, Value};
pub use model::action::{Action, ActionIds, ACTION_FIELDS};
pub use model::approval::{Approval, Decision, DecisionInput, MAX_DELEGATION_LINKS};
pub use model::batch;
pub use model::budget::charge;
pub use model::contract::{Contract, Effect};
pub use model::delegation::{
    delegation_digest, sign_delegation, verify_delegation, VerifiedDelegation,
    DELEGATION_PAYLOAD_TYPE,
};
pub use model::evidence;
pub use model::ledger;
pub use model::notice::{notices, notices_value, Mark, Notice, NoticeKind, Within, MAX_MARKS};
pub use model::permit::{
    check, check_approval, check_set, check_set_with, check_with, Context, Verdict, MAX_SET,
};
pub use model::proof::calls as proof;
pub use model::proof::{
    base64url_decode, base64url_encode, ed25519_verify, pae, passkey_challenge, sign_approval,
    verify_batch_proof, verify_envelope, verify_passkey, verify_proof, DecisionRecord, KeySet,
    ProofPolicy, ProofRequirement, PublicKey, Registration, Signer, SigningKey, Verified,
    PAYLOAD_TYPE,
};
pub use model::quorum::{
    tally, Duty, Member, Order, Quorum, QuorumState, RoleCount, Veto, MAX_QUORUM,
};
pub use model::reason::{Outcome, Reason};
pub use model::rule::{operators, ApprovalRule, Requirement};
pub use model::schema::{self, Schema};
pub use model::sensitive;
pub use model::spoken::short_fingerprint;

/// The RFC 8785 canonical text of a JSON text, under the options' profile and limits.
pub fn canonicalize_json(input: &[u8], options: &Options) -> Result<String> {
    options.check()?;
    let mut direct = Vec::with_capacity(input.len());
    if json::canon::canonicalize_text(input, options, &mut direct) {
        if let Ok(text) = String::from_utf8(direct) {
            return Ok(text);
        }
    }
    // Not accepted by the direct path: the full parser gives the error (or, for input the
    // direct path does not handle, the value).
    let value = parse(input, options)?;
    let mut out = String::with_capacity(input.len());
    write_canonical(&value, &mut out);
    Ok(out)
}

/// The fingerprint of a value: SHA-256 of its canonical bytes.
pub fn fingerprint(value: &Value<'_>) -> Digest {
    with_scratch(|text| {
        write_canonical(value, text);
        Digest::of(text.as_bytes())
    })
}

/// Calls `f` with an empty string to write a text that is only read before `f` returns: the
/// buffer the thread's last call used (a ledger operation fingerprints several values of a few
/// hundred bytes, and a commit writes a disclosure for each sensitive value).
pub(crate) fn with_scratch<R>(f: impl FnOnce(&mut String) -> R) -> R {
    thread_local! {
        static TEXT: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
    }
    // A call inside `f` finds the cell empty and grows a buffer of its own.
    let mut text = TEXT.take();
    text.clear();
    let out = f(&mut text);
    if text.capacity() <= 1 << 16 {
        TEXT.set(text);
    }
    out
}

/// The fingerprint of a JSON text: SHA-256 of its canonical bytes.
pub fn fingerprint_json(input: &[u8], options: &Options) -> Result<Digest> {
    options.check()?;
    let mut hasher = json::digest::Hasher::new();
    if json::canon::canonicalize_text(input, options, &mut hasher) {
        return Ok(hasher.finish());
    }
    // As in canonicalize_json: the full parser gives the error.
    parse(input, options).map(|value| fingerprint(&value))
}
