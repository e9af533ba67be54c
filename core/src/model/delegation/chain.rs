//! Verifying a chain of delegations, root first, for a decision made through it.
//!
//! A record that carries `on_behalf_of` and `delegation` was decided by its `approver` (the
//! last delegate) and counts under `on_behalf_of` (the root delegator). The chain holds when
//! each of these holds, checked in this order; the first that fails gives the reason:
//!
//! 1. depth: at most [`MAX_DELEGATION_LINKS`] links (`delegation_too_deep`);
//! 2. each link's form and proof, as [`LinkSource`] says (`delegation_invalid`);
//! 3. connection: `on_behalf_of` is link 1's delegator, each link's delegate the next one's
//!    delegator, the last delegate the record's approver (`delegation_invalid`);
//! 4. no identity repeats along the root and the delegates (`delegation_cycle`);
//! 5. each link is within its parent (`delegation_widens`; see `scope.rs`);
//! 6. windows: `not_before <= now < not_after`, and the decision was made at or after
//!    `not_before`, for every link (`delegation_expired`);
//! 7. the action is within every link's scope (`delegation_out_of_scope`);
//! 8. every link has a revocation fact saying it is not revoked (`delegation_revoked`):
//!    [`Chain::unrevoked`], apart because a ledger verifies steps 1 to 7 when a decision
//!    arrives, before anyone has stated a revocation fact.
//!
//! The root must also be authorized (`approver_unauthorized`): the check asks that of every
//! counting identity, with or without a chain.

use super::{verify_delegation, Delegation};
use crate::json::digest::Digest;
use crate::json::value::{OwnedValue, Value};
use crate::model::approval::MAX_DELEGATION_LINKS;
use crate::model::proof::{dsse, webauthn, KeySet, ProofPolicy};
use crate::model::reason::Reason;

/// How the links of a chain are authenticated where it is verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LinkSource {
    /// Presented to this check: a signed link or a passkey-approved one is verified
    /// ([`verify_delegation`]) against the proof policy's keys, each key judged at the check's
    /// time; a bare link holds only where there is no policy or it does not require proof.
    Presented,
    /// Read back from a ledger's storage: its `decide` verified each link's proof against the
    /// server's keys when the decision arrived (each key judged then) and refused a bare link
    /// where it required proof, so the storage vouches for them and each link's document is
    /// read, not verified again.
    Recorded,
}

/// What a chain is judged against: the server's time, where its links come from and the
/// proof policy (the check's context, which implements it in the permit module).
pub(crate) trait ChainFacts {
    /// The check's time (ms since the epoch).
    fn now(&self) -> i64;
    /// How the links are authenticated.
    fn link_source(&self) -> LinkSource;
    /// The proof policy, if the context has one.
    fn proof(&self) -> Option<&ProofPolicy>;
}

/// A chain that holds: its links' digests, root first, and every delegate along it (the
/// last is the approver who decided).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Chain {
    pub(crate) links: Vec<Digest>,
    pub(crate) delegates: Vec<String>,
}

impl Chain {
    /// Step 8: the chain, when every link has a fact saying it is not revoked (`revoked`
    /// gives the fact about a link's digest, `None` when there is none).
    pub(crate) fn unrevoked(
        self,
        revoked: impl Fn(&Digest) -> Option<bool>,
    ) -> Result<Chain, Reason> {
        if self.links.iter().any(|d| revoked(d) != Some(false)) {
            return Err(Reason::DelegationRevoked);
        }
        Ok(self)
    }
}

/// Verifies `links` for a decision by `approver` on behalf of `on_behalf_of`, made at
/// `decided_at`, about `action` (an envelope), by steps 1 to 7 above.
pub(crate) fn verify_chain(
    links: &[Value<'_>],
    on_behalf_of: &str,
    approver: &str,
    decided_at: i64,
    action: &Value<'_>,
    facts: &impl ChainFacts,
) -> Result<Chain, Reason> {
    if links.len() > MAX_DELEGATION_LINKS {
        return Err(Reason::DelegationTooDeep);
    }
    if links.is_empty() {
        return Err(Reason::DelegationInvalid);
    }
    let now = facts.now();
    let verified = links
        .iter()
        .map(|link| read_link(link, facts))
        .collect::<Result<Vec<(Delegation, Digest)>, Reason>>()?;
    let docs: Vec<&Delegation> = verified.iter().map(|(d, _)| d).collect();

    let mut expected = on_behalf_of;
    for d in &docs {
        if d.delegator != expected {
            return Err(Reason::DelegationInvalid);
        }
        expected = &d.delegate;
    }
    if expected != approver {
        return Err(Reason::DelegationInvalid);
    }
    let mut seen = vec![on_behalf_of];
    for d in &docs {
        if seen.contains(&d.delegate.as_str()) {
            return Err(Reason::DelegationCycle);
        }
        seen.push(&d.delegate);
    }
    if docs.windows(2).any(|pair| !pair[1].within(pair[0])) {
        return Err(Reason::DelegationWidens);
    }
    if docs
        .iter()
        .any(|d| now < d.not_before || now >= d.not_after || decided_at < d.not_before)
    {
        return Err(Reason::DelegationExpired);
    }
    if docs.iter().any(|d| !d.scope.covers(action)) {
        return Err(Reason::DelegationOutOfScope);
    }
    Ok(Chain {
        links: verified.iter().map(|(_, digest)| *digest).collect(),
        delegates: docs.iter().map(|d| d.delegate.clone()).collect(),
    })
}

/// Step 2 for one link: its document and digest, authenticated as `facts.link_source()` says.
fn read_link(link: &Value<'_>, facts: &impl ChainFacts) -> Result<(Delegation, Digest), Reason> {
    static NO_KEYS: KeySet = KeySet::EMPTY;
    match facts.link_source() {
        LinkSource::Presented => {
            let policy = facts.proof();
            let keys = policy.map_or(&NO_KEYS, ProofPolicy::keys);
            match verify_delegation(link, keys, facts.now()) {
                Ok(v) if v.signer.is_some() || !policy.is_some_and(ProofPolicy::required) => {
                    Ok((v.delegation, v.digest))
                }
                _ => Err(Reason::DelegationInvalid),
            }
        }
        LinkSource::Recorded => {
            let document = recorded_document(link).ok_or(Reason::DelegationInvalid)?;
            let delegation =
                Delegation::from_value(&document).map_err(|_| Reason::DelegationInvalid)?;
            Ok((delegation, crate::fingerprint(&document)))
        }
    }
}

/// The document a stored link carries, not verified again: a signed envelope's payload (still
/// required to be canonical), a passkey-approved document without its assertion, or a bare
/// document; `None` when an envelope's payload cannot be read.
pub(crate) fn recorded_document(link: &Value<'_>) -> Option<OwnedValue> {
    if dsse::looks_like_envelope(link) {
        let text = link.as_object()?.get("payload")?.as_str()?;
        let bytes = crate::model::proof::base64url::decode(text).ok()?;
        return dsse::read_payload(&bytes).ok().map(Value::into_owned);
    }
    Some(webauthn::split(link).0.into_owned())
}
