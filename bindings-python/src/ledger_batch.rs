//! The ledger's batch operations (issue 28) as JSON requests, for `Ledger`'s batch methods:
//! each request is read with core's readers where the ledger has one (a claim, a completion,
//! a reconciliation are a task's), and the typed `Ledger` method runs it. The ledger's `Call`
//! has no batch arms yet; when it has, these become arms there, shared with Node.

use actionseal_core::batch::Semantics;
use actionseal_core::ledger::request;
use actionseal_core::{Code, Error, OwnedValue, Result, Value};
use actionseal_ledger::Ledger;

/// A batch operation, named as `Ledger`'s methods are.
#[derive(Clone, Copy, Debug)]
pub(crate) enum BatchCall {
    /// `{"actions", "contract", "semantics", "proposer"}` → the batch.
    Propose,
    /// `{"batch_id", "amends", "deselect", "reviewer", "reason"}` → the batch.
    Amend,
    /// A batch decision envelope → `{"batch", "duplicate", "signer"}`.
    Decide,
    /// A task's claim request, for an item of a per-item batch → the claim outcome.
    ClaimItem,
    /// A task's completion, for an item → the task.
    CompleteItem,
    /// A task's reconciliation, for an item → the task.
    ReconcileItem,
    /// `{"batch_id"}` → the batch.
    Batch,
}

/// `v`'s member `key`.
fn member<'v, 'a>(v: &'v Value<'a>, key: &str) -> Option<&'v Value<'a>> {
    v.as_object().and_then(|o| o.get(key))
}

impl BatchCall {
    /// Runs the operation on `ledger` and returns its result as JSON.
    pub(crate) fn run(self, ledger: &Ledger, v: &Value<'_>) -> Result<OwnedValue> {
        match self {
            BatchCall::Propose => {
                let Some(Value::Array(actions)) = member(v, "actions") else {
                    return Err(
                        Error::new(Code::InvalidBatch, "a batch is an array of actions")
                            .in_key("actions"),
                    );
                };
                let contract = member(v, "contract").ok_or_else(|| {
                    Error::new(
                        Code::InvalidRequest,
                        "a batch is proposed under its contract",
                    )
                    .in_key("contract")
                })?;
                let semantics =
                    Semantics::parse(member(v, "semantics").and_then(Value::as_str).unwrap_or(""))
                        .map_err(|e| e.in_key("semantics"))?;
                let proposer = request::identity(&only(v, "proposer")?, "proposer")?.to_owned();
                Ok(ledger
                    .propose_batch(actions, contract, semantics, &proposer)?
                    .to_value())
            }
            BatchCall::Amend => Ok(ledger.amend_batch(v)?.to_value()),
            BatchCall::Decide => Ok(ledger.decide_batch(v)?.to_value()),
            BatchCall::ClaimItem => {
                let r = request::Claim::from_value(v)?;
                Ok(ledger.claim_item(&r)?.to_value())
            }
            BatchCall::CompleteItem => {
                let r = request::Complete::from_value(v)?;
                Ok(ledger
                    .complete_item(r.task_id, r.fence, r.outcome, r.result, r.executor)?
                    .to_value())
            }
            BatchCall::ReconcileItem => {
                let r = request::Reconcile::from_value(v)?;
                Ok(ledger
                    .reconcile_item(r.task_id, r.observed, r.result, r.actor)?
                    .to_value())
            }
            BatchCall::Batch => Ok(ledger.batch(request::identity(v, "batch_id")?)?.to_value()),
        }
    }
}

/// `{key: v[key]}`: one member of a request, to read with core's one-member readers.
fn only(v: &Value<'_>, key: &'static str) -> Result<OwnedValue> {
    let value = member(v, key).map_or(Value::Null, |m| m.clone().into_owned());
    let entries = vec![(std::borrow::Cow::Borrowed(key), value)];
    Ok(Value::Object(actionseal_core::Object::from_entries(
        entries,
    )?))
}
