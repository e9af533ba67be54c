//! The trusted key set, supplied by the executor's server (never by the caller's payload):
//!
//! ```json
//! {
//!   "service_keys": {"<keyid>": {"key": <JWK or raw base64url>, "valid_from"?: ms, "valid_until"?: ms,
//!                                "approvers"?: ["user:bob", ...]}},
//!   "passkeys": {"<credential id, base64url>": {"public_key": "<COSE_Key, base64url>",
//!                "approver": "user:bob", "valid_from"?: ms, "valid_until"?: ms}},
//!   "webauthn": {"rp_id": "example.com", "origins": ["https://example.com"]}
//! }
//! ```
//!
//! Every member is optional except `webauthn` when there are passkeys. A service key's keyid
//! must be its RFC 7638 thumbprint, so a key set cannot file a key under another key's name.
//! `approvers` limits whom a service key may sign for (absent: anyone); a passkey signs for its
//! one approver.
//!
//! A key's window is judged at a time the verifier chooses, never at the record's
//! `decided_at`, which the signer writes: a key holds at `at` when
//! `valid_from <= at < valid_until` (either bound may be absent). [`crate::check`] judges it at
//! the context's `now`; a ledger at its own clock when the decision arrives, which it records,
//! so an executor can judge a claimed decision at that recorded time. Retiring a key is
//! setting its `valid_until`: decisions that reached a ledger before then keep holding, while
//! a record checked without a ledger stops verifying at `valid_until` (keep the key listed
//! until the last approval it signed has expired, as `docs/CONTRACTS.md` explains). A key
//! that must no longer vouch for anything leaves the set.

use super::base64url;
use super::cose::CoseKey;
use super::ed25519::PublicKey;
use crate::error::{Code, Error, Result};
use crate::json::value::Value;
use crate::model::fields::{check_identity, Fields};

/// Keys and passkey credentials the executor trusts, with what each may sign for.
#[derive(Clone, Debug, Default)]
pub struct KeySet {
    service: Vec<ServiceKey>,
    passkeys: Vec<Passkey>,
    relying_party: Option<RelyingParty>,
}

/// A service key and what it may sign.
#[derive(Clone, Debug)]
pub(crate) struct ServiceKey {
    pub(crate) key: PublicKey,
    window: Window,
    approvers: Option<Vec<String>>,
}

/// A reviewer's registered passkey credential.
#[derive(Clone, Debug)]
pub(crate) struct Passkey {
    pub(crate) id: String,
    pub(crate) key: CoseKey,
    approver: String,
    window: Window,
}

/// The WebAuthn relying party: the rpId whose hash authenticator data must carry, and the
/// origins a ceremony may run on.
#[derive(Clone, Debug)]
pub(crate) struct RelyingParty {
    pub(crate) rp_id_hash: [u8; 32],
    pub(crate) origins: Vec<String>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Window {
    from: Option<i64>,
    until: Option<i64>,
}

/// Whether approvals must carry proof of who decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProofRequirement {
    /// A bare decision is accepted; a decision that carries proof must still prove it.
    #[default]
    Optional,
    /// Only a decision whose proof verifies is accepted.
    Required,
}

impl ProofRequirement {
    /// Both, weakest first.
    pub const ALL: &'static [ProofRequirement] =
        &[ProofRequirement::Optional, ProofRequirement::Required];

    /// `optional` or `required`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProofRequirement::Optional => "optional",
            ProofRequirement::Required => "required",
        }
    }

    /// The requirement with this name; anything else is [`Code::InvalidRequest`].
    pub fn parse(s: &str) -> Result<ProofRequirement> {
        match s {
            "optional" => Ok(ProofRequirement::Optional),
            "required" => Ok(ProofRequirement::Required),
            _ => Err(Error::new(
                Code::InvalidRequest,
                format!("{s:?} is not \"optional\" or \"required\""),
            )),
        }
    }
}

/// What the executor requires of approvals: whether each must carry proof, and the keys that
/// can give it. The `proof` member of a trusted context: `{"required", "keys"}`.
#[derive(Clone, Debug, Default)]
pub struct ProofPolicy {
    required: bool,
    keys: KeySet,
}

impl ProofPolicy {
    /// A policy from its parts.
    pub fn new(required: bool, keys: KeySet) -> ProofPolicy {
        ProofPolicy { required, keys }
    }

    /// Whether an approval without proof is refused, as a requirement.
    pub fn requirement(&self) -> ProofRequirement {
        if self.required {
            ProofRequirement::Required
        } else {
            ProofRequirement::Optional
        }
    }

    /// Reads `{"required": bool, "keys": <key set>}`; its shape is [`Code::InvalidContext`],
    /// the key set's problems keep their codes under `/keys`.
    pub fn from_value(v: &Value<'_>) -> Result<ProofPolicy> {
        let f = Fields::new(v, Code::InvalidContext, "proof", &["required", "keys"])?;
        Ok(ProofPolicy {
            required: f.boolean("required")?,
            keys: KeySet::from_value(f.required("keys")?).map_err(|e| e.in_key("keys"))?,
        })
    }

    /// Whether an approval without proof is refused.
    pub fn required(&self) -> bool {
        self.required
    }

    /// The trusted keys.
    pub fn keys(&self) -> &KeySet {
        &self.keys
    }
}

impl KeySet {
    /// The set with no keys: every proof is refused as `unknown_key`.
    pub const EMPTY: KeySet = KeySet {
        service: Vec::new(),
        passkeys: Vec::new(),
        relying_party: None,
    };

    /// Reads a key set; problems are [`Code::InvalidKeySet`], or the key's own code
    /// ([`Code::InvalidKey`], [`Code::InvalidBase64`]) at the key.
    pub fn from_value(v: &Value<'_>) -> Result<KeySet> {
        let f = Fields::new(
            v,
            Code::InvalidKeySet,
            "key set",
            &["service_keys", "passkeys", "webauthn"],
        )?;
        let mut set = KeySet::default();
        if let Some(keys) = f.get("service_keys") {
            for (keyid, entry) in members(keys, "service_keys")? {
                set.service.push(
                    read_service_key(keyid, entry)
                        .map_err(|e| e.in_key(keyid).in_key("service_keys"))?,
                );
            }
        }
        if let Some(keys) = f.get("passkeys") {
            for (id, entry) in members(keys, "passkeys")? {
                set.passkeys
                    .push(read_passkey(id, entry).map_err(|e| e.in_key(id).in_key("passkeys"))?);
            }
        }
        match f.get("webauthn") {
            Some(rp) => {
                set.relying_party = Some(read_relying_party(rp).map_err(|e| e.in_key("webauthn"))?);
            }
            None if !set.passkeys.is_empty() => {
                return Err(Error::new(
                    Code::InvalidKeySet,
                    "passkeys need the relying party: webauthn {rp_id, origins}",
                )
                .in_key("webauthn"));
            }
            None => {}
        }
        Ok(set)
    }

    /// The keyids of the service keys, in canonical order.
    pub fn service_keyids(&self) -> impl Iterator<Item = &str> {
        self.service.iter().map(|k| k.key.keyid())
    }

    /// The service key filed under `keyid`, or [`Code::UnknownKey`].
    pub(crate) fn service_key(&self, keyid: &str) -> Result<&ServiceKey> {
        self.service
            .iter()
            .find(|k| k.key.keyid() == keyid)
            .ok_or_else(|| {
                Error::new(
                    Code::UnknownKey,
                    format!("no trusted service key has keyid {keyid:?}"),
                )
            })
    }

    /// The passkey with this credential id (base64url), or [`Code::UnknownKey`].
    pub(crate) fn passkey(&self, id: &str) -> Result<&Passkey> {
        self.passkeys.iter().find(|p| p.id == id).ok_or_else(|| {
            Error::new(
                Code::UnknownKey,
                format!("no trusted passkey has credential id {id:?}"),
            )
        })
    }

    /// The relying party (present whenever there are passkeys).
    pub(crate) fn relying_party(&self) -> Option<&RelyingParty> {
        self.relying_party.as_ref()
    }
}

impl ServiceKey {
    /// Whether this key may vouch for `approver`'s decision, judged at the verifier's `at`.
    pub(crate) fn authorize(&self, approver: &str, at: i64) -> Result<()> {
        self.window.holds(at)?;
        match &self.approvers {
            Some(list) if !list.iter().any(|a| a == approver) => Err(Error::new(
                Code::SignerNotAllowed,
                format!(
                    "service key {} may not sign for approver {approver:?}",
                    self.key.keyid()
                ),
            )),
            _ => Ok(()),
        }
    }
}

impl Passkey {
    /// Whether this credential may vouch for `approver`'s decision, judged at the verifier's
    /// `at`.
    pub(crate) fn authorize(&self, approver: &str, at: i64) -> Result<()> {
        self.window.holds(at)?;
        if self.approver != approver {
            return Err(Error::new(
                Code::SignerNotAllowed,
                format!(
                    "passkey {} belongs to {:?}, not to approver {approver:?}",
                    self.id, self.approver
                ),
            ));
        }
        Ok(())
    }
}

impl Window {
    fn read(f: &Fields<'_, '_>) -> Result<Window> {
        let bound = |key| {
            f.required(key)
                .is_ok()
                .then(|| f.integer(key, 0))
                .transpose()
        };
        let w = Window {
            from: bound("valid_from")?,
            until: bound("valid_until")?,
        };
        if let (Some(from), Some(until)) = (w.from, w.until) {
            if until <= from {
                return Err(Error::new(
                    Code::InvalidKeySet,
                    "valid_until must be after valid_from",
                )
                .in_key("valid_until"));
            }
        }
        Ok(w)
    }

    fn holds(&self, at: i64) -> Result<()> {
        if self.from.is_some_and(|from| at < from) || self.until.is_some_and(|until| at >= until) {
            return Err(Error::new(
                Code::KeyOutsideWindow,
                format!(
                    "the key is not valid at {at}, outside its window [{}, {})",
                    self.from.map_or("-".into(), |n| n.to_string()),
                    self.until.map_or("-".into(), |n| n.to_string())
                ),
            ));
        }
        Ok(())
    }
}

/// The members of an object-valued key set field.
fn members<'v, 'a>(
    v: &'v Value<'a>,
    key: &str,
) -> Result<impl Iterator<Item = (&'v str, &'v Value<'a>)>> {
    match v {
        Value::Object(o) => Ok(o.iter()),
        other => Err(Error::new(
            Code::InvalidKeySet,
            format!("{key} must be an object, not {}", other.type_name()),
        )
        .in_key(key)),
    }
}

fn read_service_key(keyid: &str, entry: &Value<'_>) -> Result<ServiceKey> {
    let f = Fields::new(
        entry,
        Code::InvalidKeySet,
        "service key",
        &["key", "valid_from", "valid_until", "approvers"],
    )?;
    let key = PublicKey::from_value(f.required("key")?).map_err(|e| e.in_key("key"))?;
    if key.keyid() != keyid {
        return Err(Error::new(
            Code::InvalidKeySet,
            format!(
                "the keyid must be the key's RFC 7638 thumbprint {}",
                key.keyid()
            ),
        ));
    }
    let approvers = match f.get("approvers") {
        None => None,
        Some(list) => Some(identities(list).map_err(|e| e.in_key("approvers"))?),
    };
    Ok(ServiceKey {
        key,
        window: Window::read(&f)?,
        approvers,
    })
}

fn read_passkey(id: &str, entry: &Value<'_>) -> Result<Passkey> {
    base64url::decode(id)?;
    let f = Fields::new(
        entry,
        Code::InvalidKeySet,
        "passkey",
        &["public_key", "approver", "valid_from", "valid_until"],
    )?;
    let cose = base64url::decode(f.string("public_key")?).map_err(|e| e.in_key("public_key"))?;
    Ok(Passkey {
        id: id.to_owned(),
        key: CoseKey::from_bytes(&cose).map_err(|e| e.in_key("public_key"))?,
        approver: f.identity("approver")?.to_owned(),
        window: Window::read(&f)?,
    })
}

fn read_relying_party(v: &Value<'_>) -> Result<RelyingParty> {
    let f = Fields::new(v, Code::InvalidKeySet, "webauthn", &["rp_id", "origins"])?;
    let rp_id = f.identity("rp_id")?;
    let origins = identities(f.required("origins")?).map_err(|e| e.in_key("origins"))?;
    Ok(RelyingParty {
        rp_id_hash: *crate::Digest::of(rp_id.as_bytes()).as_bytes(),
        origins,
    })
}

/// A non-empty array of distinct identity strings.
fn identities(v: &Value<'_>) -> Result<Vec<String>> {
    let invalid = |m: String| Error::new(Code::InvalidKeySet, m);
    let Value::Array(items) = v else {
        return Err(invalid(format!(
            "must be an array of strings, not {}",
            v.type_name()
        )));
    };
    if items.is_empty() {
        return Err(invalid("must not be empty: leave it out instead".into()));
    }
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let s = item
            .as_str()
            .ok_or_else(|| invalid(format!("must be a string, not {}", item.type_name())))
            .and_then(|s| check_identity(s).map(|()| s).map_err(invalid))
            .map_err(|e| e.in_index(i))?;
        if out.iter().any(|o| o == s) {
            return Err(invalid(format!("{s:?} is listed twice")).in_index(i));
        }
        out.push(s.to_owned());
    }
    Ok(out)
}
