//! Batches: many actions of one tool, reviewed as one list and decided once, each item still
//! checked and claimed on its own.
//!
//! A batch is an ordered list of actions under one contract and one tenant, each with its
//! own fingerprint, task identity and idempotency key. Its header commits to the list with
//! an RFC 9162 Merkle tree ([`Header`]), and a decision binds the header's fingerprint
//! ([`BatchDecision`]), so that each item is verified against the decision on its own, with
//! a proof of at most one hash per level ([`verify_item`], [`check_item`]).
//!
//! The contract's `batch` member ([`Policy`]) allows batches and bounds them: the most items
//! one decision covers, caps on the whole ([`Caps`], [`Totals`]), and a circuit breaker
//! ([`Breaker`]). A server's policy may narrow the contract's, never widen it.

mod breaker;
pub mod calls;
mod caps;
mod decision;
mod policy;
pub(crate) mod tree;

pub use crate::model::permit::{
    check_batch, check_batch_values, check_batch_with, check_item, check_item_with, BatchVerdict,
};
pub use breaker::{Breaker, BreakerState, Transition, Trip};
pub use caps::Totals;
pub use decision::BatchDecision;
pub use policy::{
    BreakerPolicy, Caps, DistinctCap, Policy, SumCap, MAX_BREAKER_THRESHOLD, MAX_ITEMS_LIMIT,
};
pub use tree::{leaf, verify_item, Batch, Header, Item, ItemProof};

use crate::error::{Code, Error, Result};
use crate::model::contract::Contract;

/// How the items of a batch stand together, declared per batch and frozen in its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Semantics {
    /// No item runs until every item's pre-dispatch check passes, and the batch is claimed
    /// whole; one item that drifts or is rejected before dispatch stops the rest.
    AllOrNothing,
    /// Each item stands on its own, under the batch's shared caps and breaker.
    PerItem,
}

impl Semantics {
    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Semantics::AllOrNothing => "all_or_nothing",
            Semantics::PerItem => "per_item",
        }
    }

    /// The semantics with this name; anything else is [`Code::InvalidBatch`].
    pub fn parse(s: &str) -> Result<Semantics> {
        match s {
            "all_or_nothing" => Ok(Semantics::AllOrNothing),
            "per_item" => Ok(Semantics::PerItem),
            _ => Err(Error::new(
                Code::InvalidBatch,
                format!("{s:?} is not one of [\"all_or_nothing\", \"per_item\"]"),
            )),
        }
    }
}

/// The batch policy in force for `contract`'s calls: its own, narrowed by the server's;
/// [`Code::BatchNotAllowed`] when the contract has none, or marks values sensitive: a batch
/// freezes its items as given, so their values would be kept in the clear wherever the batch
/// is, where a single call's are committed (see [`crate::sensitive`]).
pub fn policy_of(contract: &Contract, server: Option<&Policy>) -> Result<Policy> {
    let refused = |why: &str| {
        Error::new(
            Code::BatchNotAllowed,
            format!(
                "the contract of {:?} {why}: its calls are decided one at a time",
                contract.tool()
            ),
        )
    };
    let own = contract
        .batch()
        .ok_or_else(|| refused("has no batch member"))?;
    if contract.sensitive().is_some() {
        return Err(refused(
            "marks values sensitive, which a batch would freeze in the clear",
        ));
    }
    Ok(match server {
        Some(s) => own.narrow(s),
        None => own.clone(),
    })
}

#[cfg(test)]
mod tests;
