//! Verifying a chain of delegations, root first, for a decision made through it.
//!
//! A record that carries `on_behalf_of` and `delegation` was decided by its `approver` (the
//! last delegate) and counts under `on_behalf_of` (the root delegator). The chain holds when
//! each of these holds, checked in this order; the first that fails gives the reason:
//!
//! 1. depth: at most [`MAX_DELEGATION_DEPTH`] links (`delegation_too_deep`);
//! 2. each link's form and proof ([`verify_delegation`], keys judged at the check's `now`; a
//!    bare link only where the context does not require proof) (`delegation_invalid`);
//! 3. connection: `on_behalf_of` is link 1's delegator, each link's delegate the next one's
//!    delegator, the last delegate the record's approver (`delegation_invalid`);
//! 4. no identity repeats along the root and the delegates (`delegation_cycle`);
//! 5. each link is within its parent (`delegation_widens`; see `scope.rs`);
//! 6. windows: `not_before <= now < not_after`, and the decision was made at or after
//!    `not_before`, for every link (`delegation_expired`);
//! 7. the action is within every link's scope (`delegation_out_of_scope`);
//! 8. every link has a revocation fact saying it is not revoked (`delegation_revoked`);
//! 9. the root is authorized, like any counting identity (`approver_unauthorized`).

use super::{verify_delegation, Delegation, VerifiedDelegation, MAX_DELEGATION_DEPTH};
use crate::json::digest::Digest;
use crate::json::value::Value;
use crate::model::proof::{KeySet, ProofPolicy};

/// Why a chain does not hold (the check's reason of the same name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    DelegationInvalid,
    DelegationTooDeep,
    DelegationCycle,
    DelegationWidens,
    DelegationExpired,
    DelegationOutOfScope,
    DelegationRevoked,
    ApproverUnauthorized,
}

/// What a chain is judged against: the server's time, proof policy and facts.
pub(crate) trait ChainFacts {
    /// The check's time (ms since the epoch).
    fn now(&self) -> i64;
    /// The proof policy, if the context has one.
    fn proof(&self) -> Option<&ProofPolicy>;
    /// The revocation fact about the link with this digest: `Some(revoked)`, `None` when there
    /// is none.
    fn delegation_revoked(&self, digest: &Digest) -> Option<bool>;
    /// Whether a fact says this identity may approve (no fact: it may not).
    fn approver_authorized(&self, identity: &str) -> bool;
}

/// A chain that holds.
#[allow(dead_code)] // Until check_set reads it (its branch is merged next).
#[derive(Clone, Debug)]
pub(crate) struct Chain {
    /// The root delegator: the counting identity.
    pub(crate) root: String,
    /// The delegates, in chain order; the last is the record's approver.
    pub(crate) delegates: Vec<String>,
    /// The links' digests, root first.
    pub(crate) links: Vec<Digest>,
}

/// Verifies `links` for a decision by `approver` on behalf of `on_behalf_of`, made at
/// `decided_at`, about `action` (an envelope), in the order above.
#[allow(dead_code)] // Until check_set calls it (its branch is merged next).
pub(crate) fn verify_chain(
    links: &[Value<'_>],
    on_behalf_of: &str,
    approver: &str,
    decided_at: i64,
    action: &Value<'_>,
    facts: &impl ChainFacts,
) -> Result<Chain, Refused> {
    static NO_KEYS: KeySet = KeySet::EMPTY;
    if links.len() > MAX_DELEGATION_DEPTH {
        return Err(Refused::DelegationTooDeep);
    }
    if links.is_empty() {
        return Err(Refused::DelegationInvalid);
    }
    let now = facts.now();
    let policy = facts.proof();
    let keys = policy.map_or(&NO_KEYS, ProofPolicy::keys);
    let required = policy.is_some_and(ProofPolicy::required);
    let verified = links
        .iter()
        .map(|link| match verify_delegation(link, keys, now) {
            Ok(v) if v.signer().is_some() || !required => Ok(v),
            _ => Err(Refused::DelegationInvalid),
        })
        .collect::<Result<Vec<VerifiedDelegation>, Refused>>()?;
    let docs: Vec<&Delegation> = verified.iter().map(|v| &v.delegation).collect();

    let mut expected = on_behalf_of;
    for d in &docs {
        if d.delegator != expected {
            return Err(Refused::DelegationInvalid);
        }
        expected = &d.delegate;
    }
    if expected != approver {
        return Err(Refused::DelegationInvalid);
    }
    let mut seen = vec![on_behalf_of];
    for d in &docs {
        if seen.contains(&d.delegate.as_str()) {
            return Err(Refused::DelegationCycle);
        }
        seen.push(&d.delegate);
    }
    if docs.windows(2).any(|pair| !pair[1].within(pair[0])) {
        return Err(Refused::DelegationWidens);
    }
    if docs
        .iter()
        .any(|d| now < d.not_before || now >= d.not_after || decided_at < d.not_before)
    {
        return Err(Refused::DelegationExpired);
    }
    if docs.iter().any(|d| !d.scope.covers(action)) {
        return Err(Refused::DelegationOutOfScope);
    }
    if verified
        .iter()
        .any(|v| facts.delegation_revoked(&v.digest) != Some(false))
    {
        return Err(Refused::DelegationRevoked);
    }
    if !facts.approver_authorized(on_behalf_of) {
        return Err(Refused::ApproverUnauthorized);
    }
    Ok(Chain {
        root: on_behalf_of.to_owned(),
        delegates: docs.iter().map(|d| d.delegate.clone()).collect(),
        links: verified.iter().map(|v| v.digest).collect(),
    })
}
