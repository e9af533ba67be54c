//! The ledger's batch shapes (issue 28), for the Node declarations and the Python stub: the
//! requests of `proposeBatch`, `amendBatch`, `decideBatch` and `claimBatch` (an item's claim,
//! completion and reconciliation take a task's), and what the batch operations return. Held to
//! core's readers and to a real ledger's batch run, as the other ledger shapes are.

use super::shape_types::{field, optional, Field, Shape, Ty};
use crate::decisions::core_value;
use actionseal_core::ledger::{request, BatchEnvelope};
use actionseal_core::{Action, Contract};
use actionseal_ledger::{Call, Ledger, LedgerOptions, ManualClock};
use serde_json::{json, Value as Json};
use std::sync::Arc;

fn list(t: Ty) -> Ty {
    Ty::List(Box::new(t))
}

fn nullable(t: Ty) -> Ty {
    Ty::Nullable(Box::new(t))
}

fn semantics() -> Ty {
    Ty::OneOf(vec!["all_or_nothing", "per_item"])
}

fn shape(name: &'static str, doc: &'static str, output: bool, fields: Vec<Field>) -> Shape {
    Shape {
        name,
        doc,
        extends: None,
        fields,
        output,
    }
}

/// The batch shapes, in declaration order.
pub fn shapes() -> Vec<Shape> {
    use Ty::*;
    vec![
        shape("ProposeBatchRequest", "What `proposeBatch` takes.", false, vec![
            field("actions", list(Shape("ActionEnvelope")), "The items' action envelopes, in the order a reviewer sees them."),
            field("contract", Ty::Contract, "The contract every item was made under: a `Contract` or its document."),
            field("semantics", semantics(), "How the items stand together."),
            field("proposer", Identity, "Who proposes them (the agent)."),
        ]),
        shape("AmendBatchRequest", "What `amendBatch` takes: a reviewer leaves items of a batch awaiting its decision out.", false, vec![
            field("batch_id", Identity, ""),
            field("amends", Digest, "The batch digest the reviewer saw: applied only if the batch still has it."),
            field("deselect", list(Int), "The positions of the items left out, from 0, in the batch's order."),
            field("reviewer", Identity, "Who left them out (a trusted reviewer, never the model)."),
            field("reason", Str, "Why, in the reviewer's words (at most 1,000 characters)."),
        ]),
        shape("BatchDecisionEnvelope", "A reviewer's decision over a whole batch as the reviewer saw it; times in integer milliseconds since the epoch.", false, vec![
            field("approval_id", Identity, "The batch's approval id (`LedgerBatch.approval_id`)."),
            field("decision_id", Identity, "Identity of the decision callback: repeated deliveries carry the same one."),
            field("batch_id", Identity, ""),
            field("batch_digest", Digest, "The batch fingerprint the reviewer saw (after any deselection)."),
            field("decision", OneOf(vec!["approved", "rejected"]), ""),
            field("approver", Identity, ""),
            field("decided_at", Millis, ""),
            field("expires_at", Millis, "When the decision stops holding; after `decided_at`."),
        ]),
        shape("ClaimBatchRequest", "What `claimBatch` takes: a claim of every remaining item of an all-or-nothing batch, or none.", false, vec![
            field("batch_id", Identity, ""),
            field("actions", list(Shape("ActionEnvelope")), "Every remaining item's action as the executor is about to dispatch it, in the batch's order."),
            field("facts", Shape("ClaimFacts"), "A claim's facts, for each item."),
            field("executor", Identity, "Who claims."),
            field("lease_ms", Int, "How long each item's claim holds."),
            optional("budget", nullable(Identity), "The budget account to reserve each item's cost on."),
            optional("proof", nullable(Shape("ProofRequirement")), "The least the claim requires of the batch's decision, as a task claim's `proof`."),
        ]),
        shape("LedgerBatchItem", "Where one item of a ledger's batch is.", true, vec![
            field("task_id", Str, "The item's task."),
            field("state", Shape("TaskState"), ""),
        ]),
        shape("LedgerBatch", "A batch in the ledger: its frozen header, its decision, where its items are, and its lineage's caps totals and breaker.", true, vec![
            field("id", Str, "`batch_` and 32 hex digits."),
            field("lineage", Str, "The id of the lineage's first batch: a remainder sent back for re-approval shares its totals and breaker."),
            field("tenant", Str, ""),
            field("semantics", semantics(), ""),
            field("state", Shape("TaskState"), "`awaiting_approval`, `approved` or `rejected`."),
            field("header", Shape("BatchHeader"), "The frozen batch document a decision binds."),
            field("digest", Digest, "Its fingerprint: the decision's `batch_digest`."),
            field("proposed_digest", Digest, "The batch as the model proposed it, before any deselection."),
            field("approval_id", Str, "The approval id a decision over the batch names."),
            field("decision_id", nullable(Str), ""),
            field("record", nullable(Shape("BatchDecisionRecord")), "The decision record, once decided."),
            field("amendments", Int, "How many deselections it went through."),
            field("items", list(Shape("LedgerBatchItem")), "The selected items, in the header's order."),
            field("proposed_items", list(Str), "Every item's task id as proposed."),
            field("current", Bool, "Whether it is its lineage's current batch, whose items may be claimed."),
            field("successor", nullable(Str), "The batch its remaining items were sent back in (a trip of the breaker, an expired decision): follow it to their re-approval; `null` while none were."),
            field("totals", Object, "The lineage's running totals under the caps: `{ count, sum, targets }`, targets as digests, never values."),
            field("breaker", Shape("Breaker"), "The lineage's circuit breaker."),
            field("created_at", Millis, ""),
            field("updated_at", Millis, ""),
        ]),
        shape("BatchDecided", "What `decideBatch` returns.", true, vec![
            field("batch", Shape("LedgerBatch"), "The batch after the decision."),
            field("duplicate", Bool, "Whether this delivery repeated a recorded decision (nothing changed)."),
            field("signer", Unknown, "Who signed this delivery, when it carried proof; `null` for a bare decision."),
        ]),
        shape("BatchClaimOutcome", "What `claimBatch` returns: drift and a stopped batch are outcomes, not errors.", true, vec![
            field("result", OneOf(vec!["claimed", "tool_args_drift", "stopped"]), "`claimed`: dispatch every item; `tool_args_drift`: nothing claimed or changed; `stopped`: every remaining item is `rejected_pre_dispatch`."),
            field("claimed", Bool, "`result === 'claimed'`."),
            field("items", list(Either(vec![Shape("Claim"), Shape("ClaimOutcome")])), "Each item's claim when claimed, else each item's claim outcome."),
        ]),
    ]
}

/// Whether core's reader of the batch request `name` accepts `v`; `None` for a name that is
/// not one.
pub fn core_accepts(name: &str, v: &Json) -> Option<Result<(), String>> {
    let value = match core_value(&v.to_string()) {
        Ok(x) => x,
        Err(e) => return Some(Err(e.to_string())),
    };
    let actions = |items: &[actionseal_core::Value<'_>]| {
        items
            .iter()
            .try_for_each(|a| Action::from_value(a).map(drop))
    };
    let facts =
        |f: &actionseal_core::Value<'_>| actionseal_core::ledger::context(f, 0, None).map(drop);
    let r = match name {
        "ProposeBatchRequest" => request::ProposeBatch::from_value(&value).and_then(|r| {
            actions(r.actions)?;
            Contract::from_value(r.contract).map(drop)
        }),
        "AmendBatchRequest" => request::AmendBatch::from_value(&value).map(drop),
        "BatchDecisionEnvelope" => BatchEnvelope::from_value(&value).map(drop),
        "ClaimBatchRequest" => request::ClaimBatch::from_value(&value).and_then(|r| {
            actions(r.actions)?;
            facts(r.facts)
        }),
        _ => return None,
    };
    Some(r.map_err(|e| e.to_string()))
}

/// A batch's life in an in-memory ledger, every batch operation's result with the shape it
/// must have: a per-item batch deselected, decided, claimed (one claim drifts), tripped by
/// failures and its remainder named; an all-or-nothing batch claimed whole after a drift; a
/// third stopped by an item its check rejects.
pub fn written() -> Result<Vec<(&'static str, Json)>, String> {
    let value = |j: &Json| core_value(&j.to_string()).map_err(|e| e.to_string());
    let contract = json!({"tool": "refund_create", "version": "1", "effect": "write", "cost_minor": 0,
        "approval": "always", "args": {"type": "object", "properties": {"amount_minor": {"type": "integer"}}},
        "batch": {"max_items": 10, "breaker": {"max_failures": 2, "window_ms": 600_000, "close_after": 1}}});
    let loaded = Contract::from_value(&value(&contract)?).map_err(|e| e.to_string())?;
    let envelope = |job: &str, i: usize, amount: i64| -> Result<Json, String> {
        let ids = json!({"tenant": "t", "subject": "user:s", "job_id": job,
            "request_id": format!("r{i}"), "policy_version": "p"});
        let ids = value(&ids)?;
        let ids = actionseal_core::ActionIds::from_value(&ids).map_err(|e| e.to_string())?;
        let a = Action::build(&loaded, &value(&json!({"amount_minor": amount}))?, &ids)
            .map_err(|e| e.to_string())?;
        serde_json::from_str(&actionseal_core::canonicalize(a.value())).map_err(|e| e.to_string())
    };
    let options = LedgerOptions {
        clock: Arc::new(ManualClock::new(1_000_000)),
        ..LedgerOptions::default()
    };
    let l = Ledger::open_with("sqlite::memory:", options).map_err(|e| e.to_string())?;
    let call = |c: Call, v: Json| -> Result<Json, String> {
        let out = l.call(c, &value(&v)?).map_err(|e| format!("{c:?}: {e}"))?;
        serde_json::from_str(&actionseal_core::canonicalize(&out)).map_err(|e| e.to_string())
    };
    let facts = |subject_ok: bool| {
        json!({"tenant": "t", "policy_version": "p", "contract": contract,
        "approver_authorized": {"approver": "user:b", "authorized": true},
        "subject_authorized": {"subject": "user:s", "authorized": subject_ok}})
    };
    let decision = |b: &Json, id: &str| {
        json!({"approval_id": b["approval_id"], "decision_id": id, "batch_id": b["id"],
            "batch_digest": b["digest"], "decision": "approved", "approver": "user:b",
            "decided_at": 1_000_000, "expires_at": 2_000_000})
    };
    let batch_of = |job: &str, semantics: &str| -> Result<(Json, Vec<Json>), String> {
        let actions = (0..4)
            .map(|i| envelope(job, i, 5))
            .collect::<Result<Vec<_>, _>>()?;
        let b = call(
            Call::ProposeBatch,
            json!({"actions": actions, "contract": contract, "semantics": semantics, "proposer": "agent"}),
        )?;
        Ok((b, actions))
    };
    let mut out = Vec::new();

    // Per item: the reviewer leaves the last item out, decides; one claim drifts, two fail.
    let (b, actions) = batch_of("j1", "per_item")?;
    out.push(("LedgerBatch", b.clone()));
    let b = call(
        Call::AmendBatch,
        json!({"batch_id": b["id"], "amends": b["digest"], "deselect": [3], "reviewer": "user:r", "reason": "r"}),
    )?;
    out.push(("LedgerBatch", b.clone()));
    let decided = call(Call::DecideBatch, decision(&b, "d1"))?;
    out.push(("BatchDecided", decided.clone()));
    let b = decided["batch"].clone();
    let task = |i: usize| b["items"][i]["task_id"].clone();
    let claim = |c: Call, i: usize, a: &Json| {
        call(
            c,
            json!({"task_id": task(i), "action": a, "facts": facts(true), "executor": "w", "lease_ms": 1000}),
        )
    };
    out.push((
        "ClaimOutcome",
        claim(Call::ClaimItem, 2, &envelope("j1", 2, 6)?)?,
    ));
    for (i, action) in actions.iter().enumerate().take(2) {
        let won = claim(Call::ClaimItem, i, action)?;
        out.push(("ClaimOutcome", won.clone()));
        let done = json!({"task_id": task(i), "fence": won["claim"]["fence"], "outcome": "failed", "executor": "w"});
        out.push(("LedgerTask", call(Call::CompleteItem, done)?));
    }
    let tripped = call(Call::Batch, json!({"batch_id": b["id"]}))?;
    out.push(("LedgerBatch", tripped.clone()));
    let remainder = call(Call::Batch, json!({"batch_id": tripped["successor"]}))?;
    out.push(("LedgerBatch", remainder.clone()));
    let remainder = call(Call::DecideBatch, decision(&remainder, "d2"))?["batch"].clone();
    let won = claim(Call::ClaimItem, 2, &actions[2])?;
    let unknown = json!({"task_id": task(2), "fence": won["claim"]["fence"], "outcome": "unknown", "executor": "w"});
    call(Call::CompleteItem, unknown)?;
    let reconciled = json!({"task_id": task(2), "observed": "succeeded", "actor": "ops"});
    out.push(("LedgerTask", call(Call::ReconcileItem, reconciled)?));
    out.push((
        "LedgerBatch",
        call(Call::Batch, json!({"batch_id": remainder["id"]}))?,
    ));

    // All or nothing: a drift claims nothing; the frozen actions claim every item.
    let whole = |b: &Json, actions: &[Json], subject_ok: bool| {
        call(
            Call::ClaimBatch,
            json!({"batch_id": b["id"], "actions": actions, "facts": facts(subject_ok),
                "executor": "w", "lease_ms": 1000}),
        )
    };
    let (b, actions) = batch_of("j2", "all_or_nothing")?;
    let b = call(Call::DecideBatch, decision(&b, "d3"))?["batch"].clone();
    let mut drifted = actions.clone();
    drifted[1] = envelope("j2", 1, 6)?;
    out.push(("BatchClaimOutcome", whole(&b, &drifted, true)?));
    out.push(("BatchClaimOutcome", whole(&b, &actions, true)?));
    // An item whose subject lost the right stops the batch.
    let (b, actions) = batch_of("j3", "all_or_nothing")?;
    let b = call(Call::DecideBatch, decision(&b, "d4"))?["batch"].clone();
    out.push(("BatchClaimOutcome", whole(&b, &actions, false)?));
    Ok(out)
}
