//! Verifying a chain of delegations, root first, for a decision made through it.
//!
//! A record that carries `on_behalf_of` and `delegation` was decided by its `approver` (the
//! last delegate) and counts under `on_behalf_of` (the root delegator). The chain holds when
//! each of these holds, checked in this order; the first that fails gives the reason:
//!
//! 1. depth: at most [`MAX_DELEGATION_LINKS`] links (`delegation_too_deep`);
//! 2. each link's form and proof ([`verify_delegation`], keys judged at the check's `now`; a
//!    bare link only where the context does not require proof) (`delegation_invalid`);
//! 3. connection: `on_behalf_of` is link 1's delegator, each link's delegate the next one's
//!    delegator, the last delegate the record's approver (`delegation_invalid`);
//! 4. no identity repeats along the root and the delegates (`delegation_cycle`);
//! 5. each link is within its parent (`delegation_widens`; see `scope.rs`);
//! 6. windows: `not_before <= now < not_after`, and the decision was made at or after
//!    `not_before`, for every link (`delegation_expired`);
//! 7. the action is within every link's scope (`delegation_out_of_scope`);
//! 8. every link has a revocation fact saying it is not revoked (`delegation_revoked`).
//!
//! The root must also be authorized (`approver_unauthorized`): the check asks that of every
//! counting identity, with or without a chain.

use super::{verify_delegation, Delegation, VerifiedDelegation};
use crate::json::digest::Digest;
use crate::json::value::Value;
use crate::model::approval::MAX_DELEGATION_LINKS;
use crate::model::proof::{KeySet, ProofPolicy};
use crate::model::reason::Reason;

/// What a chain is judged against: the server's time, proof policy and revocation facts (the
/// check's context, which implements it in the permit module).
pub(crate) trait ChainFacts {
    /// The check's time (ms since the epoch).
    fn now(&self) -> i64;
    /// The proof policy, if the context has one.
    fn proof(&self) -> Option<&ProofPolicy>;
    /// The revocation fact about the link with this digest: `Some(revoked)`, `None` when there
    /// is none.
    fn delegation_revoked(&self, digest: &Digest) -> Option<bool>;
}

/// A chain that holds: its links' digests, root first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Chain {
    pub(crate) links: Vec<Digest>,
}

/// Verifies `links` for a decision by `approver` on behalf of `on_behalf_of`, made at
/// `decided_at`, about `action` (an envelope), in the order above.
pub(crate) fn verify_chain(
    links: &[Value<'_>],
    on_behalf_of: &str,
    approver: &str,
    decided_at: i64,
    action: &Value<'_>,
    facts: &impl ChainFacts,
) -> Result<Chain, Reason> {
    static NO_KEYS: KeySet = KeySet::EMPTY;
    if links.len() > MAX_DELEGATION_LINKS {
        return Err(Reason::DelegationTooDeep);
    }
    if links.is_empty() {
        return Err(Reason::DelegationInvalid);
    }
    let now = facts.now();
    let policy = facts.proof();
    let keys = policy.map_or(&NO_KEYS, ProofPolicy::keys);
    let required = policy.is_some_and(ProofPolicy::required);
    let verified = links
        .iter()
        .map(|link| match verify_delegation(link, keys, now) {
            Ok(v) if v.signer().is_some() || !required => Ok(v),
            _ => Err(Reason::DelegationInvalid),
        })
        .collect::<Result<Vec<VerifiedDelegation>, Reason>>()?;
    let docs: Vec<&Delegation> = verified.iter().map(|v| &v.delegation).collect();

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
    if verified
        .iter()
        .any(|v| facts.delegation_revoked(&v.digest) != Some(false))
    {
        return Err(Reason::DelegationRevoked);
    }
    Ok(Chain {
        links: verified.iter().map(|v| v.digest).collect(),
    })
}
