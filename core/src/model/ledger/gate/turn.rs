//! Which calls of one model turn an adapter proposes as a batch (issue 28): the parallel tool
//! calls a framework hands over together, reviewed by a person once instead of once per call.
//!
//! Decided here for every runtime, so that the same turn is the same batch, with the same
//! fingerprint, in Python and Node:
//! - calls join a batch only with calls under the same contract (its fingerprint) in the same
//!   tenant, whose contract has a `batch` member, and only calls that need a person's approval:
//!   a call the rule lets run alone still runs without one;
//! - a group larger than the contract's `max_items` is cut, in the turn's order, into batches
//!   of at most `max_items`, because that is the most a person reviews at once;
//! - a group (or a cut) of one call, or one the contract refuses as a batch (its caps), stays a
//!   single task, reviewed on its own as before;
//! - every batch is `per_item`: a framework runs each call of a turn as its own tool
//!   invocation, in any order, and answers the model per call, so an item claims itself when
//!   its call runs; all-or-nothing would need every call's presented arguments in one claim.

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{OwnedValue, Value};
use crate::model::action::Action;
use crate::model::batch::{Batch, Semantics};
use crate::model::contract::Contract;
use crate::model::fields::Fields;
use crate::model::ledger::ids::batch_id;
use crate::model::ledger::values::{int, object, string};

/// One batch of a turn: the positions of its calls in the turn, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnBatch {
    /// Positions in the turn's `calls`.
    pub calls: Vec<usize>,
    /// The id the ledger gives the batch (`batch_id` of its tenant and digest).
    pub batch_id: String,
    /// The batch fingerprint a person's decision binds.
    pub batch_digest: Digest,
    /// Always [`Semantics::PerItem`] (see the module's header).
    pub semantics: Semantics,
}

impl TurnBatch {
    /// `{"calls", "batch_id", "batch_digest", "semantics"}`.
    pub fn to_value(&self) -> OwnedValue {
        let calls = self
            .calls
            .iter()
            .map(|&i| int(i64::try_from(i).unwrap_or(i64::MAX)))
            .collect();
        object(vec![
            ("calls", Value::Array(calls)),
            ("batch_id", string(&self.batch_id)),
            ("batch_digest", string(&self.batch_digest.to_string())),
            ("semantics", string(self.semantics.as_str())),
        ])
    }
}

/// One governed call of the turn, read.
struct Call {
    contract: Contract,
    action: OwnedValue,
    /// Whether the call may join a batch at all.
    joins: bool,
}

/// The batches of a turn whose governed calls are `calls` (`[{"action", "contract"}]`: each
/// call frozen by the adapter and its contract's document, in the turn's order). Calls in no
/// batch are proposed one by one, as before.
pub(super) fn plan(calls: &Value<'_>) -> Result<Vec<TurnBatch>> {
    let Value::Array(items) = calls else {
        return Err(Error::new(Code::InvalidRequest, "calls is an array").in_key("calls"));
    };
    let read = items
        .iter()
        .enumerate()
        .map(|(i, c)| read_call(c).map_err(|e| e.in_index(i).in_key("calls")))
        .collect::<Result<Vec<_>>>()?;
    // Groups in the order of their first call: (contract, tenant) and the calls' positions.
    let mut groups: Vec<((Digest, &str), Vec<usize>)> = Vec::new();
    for (i, c) in read.iter().enumerate().filter(|(_, c)| c.joins) {
        let key = (c.contract.digest(), tenant(&c.action));
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, at)) => at.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    let mut batches = Vec::new();
    for (_, at) in groups {
        let contract = &read[at[0]].contract;
        let max = contract
            .batch()
            .map_or(1, |p| usize::try_from(p.max_items).unwrap_or(usize::MAX));
        for cut in at.chunks(max.max(1)).filter(|cut| cut.len() > 1) {
            let actions: Vec<OwnedValue> = cut.iter().map(|&i| read[i].action.clone()).collect();
            // The contract's caps refuse the batch: its calls are reviewed one by one.
            let Ok(built) = Batch::build(contract, Semantics::PerItem, &actions, None) else {
                continue;
            };
            batches.push(TurnBatch {
                calls: cut.to_vec(),
                batch_id: batch_id(&built.header().tenant, &built.digest()),
                batch_digest: built.digest(),
                semantics: Semantics::PerItem,
            });
        }
    }
    Ok(batches)
}

fn read_call(v: &Value<'_>) -> Result<Call> {
    let f = Fields::new(
        v,
        Code::InvalidRequest,
        "turn call",
        &["action", "contract"],
    )?;
    let contract =
        Contract::from_value(f.required("contract")?).map_err(|e| e.in_key("contract"))?;
    let action = f.required("action")?;
    contract
        .validate_action(action)
        .map_err(|e| e.in_key("action"))?;
    let parsed = Action::from_value(action).map_err(|e| e.in_key("action"))?;
    let needs_person = contract
        .requires_approval(parsed.args())
        .map_err(|e| e.in_key("action"))?
        .required;
    Ok(Call {
        joins: needs_person && crate::batch::policy_of(&contract, None).is_ok(),
        contract,
        action: action.clone().into_owned(),
    })
}

fn tenant(action: &OwnedValue) -> &str {
    action
        .pointer("/tenant")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "turn_tests.rs"]
mod tests;
