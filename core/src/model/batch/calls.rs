//! The batch functions as the bindings and the CLI call them: every argument a JSON value,
//! every result a JSON value, so every runtime reads its arguments with the same rules and
//! fails with the same codes.

use super::breaker::{Breaker, Transition};
use super::policy::{BreakerPolicy, Policy};
use super::tree::{verify_item as verify, Batch, Header, Item};
use super::{BatchDecision, Semantics};
use crate::error::{Code, Error, Result};
use crate::json::value::{OwnedValue, Value};
use crate::model::approval::DecisionInput;
use crate::model::contract::Contract;
use crate::model::fields::Fields;
use crate::model::ledger::values::{int, object, string};
use crate::model::ledger::Reported;
use crate::model::proof::KeySet;

/// Builds the batch of `actions` (an array) under `contract` with `semantics` (a string),
/// narrowed by the server's batch policy `server` (`null` for none), and returns
/// [`Batch::to_value`].
pub fn build(
    contract: &Value<'_>,
    semantics: &Value<'_>,
    actions: &Value<'_>,
    server: &Value<'_>,
) -> Result<OwnedValue> {
    Ok(read(contract, semantics, actions, server)?.to_value())
}

/// The batch [`build`] makes, without the items at `indices` (an array of indices): a
/// reviewer's deselection. Returns the remainder's [`Batch::to_value`] with
/// `"proposed_digest"`, the fingerprint of the batch as proposed.
pub fn deselect(
    contract: &Value<'_>,
    semantics: &Value<'_>,
    actions: &Value<'_>,
    server: &Value<'_>,
    indices: &Value<'_>,
) -> Result<OwnedValue> {
    let batch = read(contract, semantics, actions, server)?;
    let bad = || {
        Error::new(
            Code::InvalidBatch,
            "indices must be an array of item indices",
        )
    };
    let Value::Array(list) = indices else {
        return Err(bad());
    };
    let indices = list
        .iter()
        .map(|i| match i {
            Value::Number(n) => n.as_safe_integer().filter(|n| *n >= 0).map(|n| n as u64),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(bad)?;
    let kept = batch.deselect(&indices)?;
    let mut entries = match kept.to_value() {
        Value::Object(o) => o.into_entries(),
        _ => Vec::new(),
    };
    entries.push((
        "proposed_digest".into(),
        string(&batch.digest().to_string()),
    ));
    Ok(Value::Object(crate::json::value::Object::from_entries(
        entries,
    )?))
}

fn read(
    contract: &Value<'_>,
    semantics: &Value<'_>,
    actions: &Value<'_>,
    server: &Value<'_>,
) -> Result<Batch> {
    let contract = Contract::from_value(contract)?;
    let semantics = Semantics::parse(semantics.as_str().unwrap_or(""))?;
    let Value::Array(actions) = actions else {
        return Err(Error::new(
            Code::InvalidBatch,
            "a batch is an array of actions",
        ));
    };
    let server = match server {
        Value::Null => None,
        s => Some(Policy::from_value(s).map_err(|e| e.with_code(Code::InvalidRequest))?),
    };
    Batch::build(&contract, semantics, actions, server.as_ref())
}

/// Verifies `item` (`{"action", "proof"}`) against the batch `header` and returns
/// `{"action_digest", "batch_digest", "index"}`; [`Code::NotInBatch`] when it is not in it.
pub fn verify_item(header: &Value<'_>, item: &Value<'_>) -> Result<OwnedValue> {
    let h = Header::from_value(header)?;
    let item = Item::from_value(item)?;
    let digest = verify(&h, item.action(), item.proof())?;
    Ok(object(vec![
        ("action_digest", string(&digest.to_string())),
        (
            "batch_digest",
            string(&crate::fingerprint(header).to_string()),
        ),
        ("index", int(item.proof().index as i64)),
    ]))
}

/// Records a decision (`{"approval_id", "decision_id", "decision", "approver",
/// "decided_at", "expires_at"}` and the optional members of [`DecisionInput::from_value`])
/// about the batch `header` describes, and returns the record.
pub fn decide(header: &Value<'_>, decision: &Value<'_>) -> Result<OwnedValue> {
    let h = Header::from_value(header)?;
    let d = DecisionInput::from_value(decision)?;
    Ok(BatchDecision::decide(&h, &d)?.value().clone())
}

/// Verifies the proof a batch decision carries against the key set `keys`, judging the key
/// at `at` (ms since the epoch), and returns `{"approval", "signer"}`.
pub fn verify_decision(
    decision: &Value<'_>,
    keys: &Value<'_>,
    at: &Value<'_>,
) -> Result<OwnedValue> {
    let keys = KeySet::from_value(keys)?;
    let at = at.non_negative_ms("the time a key is judged at")?;
    Ok(crate::verify_batch_proof(decision, &keys, at)?.to_value())
}

/// One event for a breaker: `policy` its thresholds (`null`: none), `breaker` its stored
/// state (`null`: a new, closed one), `event` `{"kind": "claim" | "outcome" | "redecided",
/// "outcome": "succeeded" | "failed" | "unknown" (outcomes only), "at": ms}`. Returns
/// `{"breaker", "transition": "none" | "tripped" | "half_opened" | "closed", "trip":
/// "failures" | "claim_rate" | null}`; a claim while open is [`Code::BreakerOpen`].
pub fn breaker_step(
    policy: &Value<'_>,
    breaker: &Value<'_>,
    event: &Value<'_>,
) -> Result<OwnedValue> {
    let policy = match policy {
        Value::Null => None,
        p => Some(BreakerPolicy::from_value(p).map_err(|e| e.with_code(Code::InvalidRequest))?),
    };
    let mut b = match breaker {
        Value::Null => Breaker::default(),
        b => Breaker::from_value(b)?,
    };
    let f = Fields::new(
        event,
        Code::InvalidRequest,
        "event",
        &["kind", "outcome", "at"],
    )?;
    let kind = f.one_of("kind", &["claim", "outcome", "redecided"])?;
    let at = || f.integer("at", 0);
    let transition = match kind {
        "claim" => b.on_claim(policy.as_ref(), at()?)?,
        "outcome" => {
            let outcome = Reported::parse(f.string("outcome")?).map_err(|e| e.in_key("outcome"))?;
            b.on_outcome(policy.as_ref(), outcome, at()?)
        }
        _ => b.on_redecided(),
    };
    let (name, trip) = match transition {
        Transition::None => ("none", Value::Null),
        Transition::Tripped(t) => ("tripped", string(t.as_str())),
        Transition::HalfOpened => ("half_opened", Value::Null),
        Transition::Closed => ("closed", Value::Null),
    };
    Ok(object(vec![
        ("breaker", b.to_value()),
        ("transition", string(name)),
        ("trip", trip),
    ]))
}
