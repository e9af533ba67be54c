//! The ledger's batch operations (issue 28) on `Ledger`: each is one `Call` of the ledger,
//! its request read by core as the Python binding's is, run on libuv's pool like every other
//! operation.

use crate::ledger::{member, owned, with_contract_document, Ledger, Op};
use actionseal_ledger::Call;
use napi::bindgen_prelude::{AsyncTask, Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

#[napi]
impl Ledger {
    /// Records a batch of actions, each item a task awaiting the batch's one decision.
    ///
    /// Records a batch of `actions` (envelopes under `contract`, a `Contract` or its
    /// document, in the order a reviewer sees them) with `semantics` (`'per_item'` or
    /// `'all_or_nothing'`), proposed by `proposer`: each item a task of its own, the batch's
    /// header frozen by core, its lineage's caps totals empty and its breaker closed. Rejects
    /// as core refuses the batch (`batch_not_allowed`, `batch_too_large`,
    /// `batch_cap_exceeded`, `invalid_batch`). Resolves to the batch.
    #[napi(
        ts_args_type = "request: ProposeBatchRequest",
        ts_return_type = "Promise<LedgerBatch>"
    )]
    pub fn propose_batch(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::ProposeBatch, |js| {
            with_contract_document(js, request.raw())
        })
    }

    /// A reviewer leaves items of a batch awaiting its decision out: another batch digest.
    ///
    /// A reviewer leaves the items at positions `deselect` out of batch `batch_id`, which
    /// awaits its decision, having seen digest `amends` (`amend_conflict` when the batch
    /// moved on). The batch gets the remainder's header and digest, which the decision must
    /// name (the proposed digest is kept); the items left out end `rejected` when the batch
    /// is decided. Resolves to the batch.
    #[napi(
        ts_args_type = "request: AmendBatchRequest",
        ts_return_type = "Promise<LedgerBatch>"
    )]
    pub fn amend_batch(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::AmendBatch, |js| owned(js, request.raw()))
    }

    /// Records one decision over a batch (de-duplicated by `decision_id` as `decide`).
    ///
    /// Records a decision over a batch: approving moves every selected item to `approved`
    /// with its inclusion proof; the items left out end `rejected`. A repeat is a duplicate;
    /// another batch digest rejects with `decision_mismatch`. Resolves to `{ batch,
    /// duplicate, signer }`.
    #[napi(
        ts_args_type = "decision: BatchDecisionEnvelope",
        ts_return_type = "Promise<BatchDecided>"
    )]
    pub fn decide_batch(&self, env: Env, decision: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::DecideBatch, |js| owned(js, decision.raw()))
    }

    /// Claims one item of a per-item batch, under the batch's caps and breaker.
    ///
    /// Claims an item of a per-item batch as `claim` claims a task (the same request and
    /// result), checking in the same transaction its inclusion in the decided batch, its
    /// drift against its frozen action, the lineage's breaker (`breaker_open`) and caps
    /// (`batch_cap_exceeded`). The claim carries the item (`claim.item`).
    #[napi(
        ts_args_type = "request: ClaimRequest",
        ts_return_type = "Promise<ClaimOutcome>"
    )]
    pub fn claim_item(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::ClaimItem, |js| owned(js, request.raw()))
    }

    /// Claims every remaining item of an all-or-nothing batch, or none.
    ///
    /// Claims every remaining item of an all-or-nothing batch at once, or none: `actions` are
    /// the items' actions as the executor is about to dispatch them, in the batch's order;
    /// the facts, executor, lease, budget and proof are a claim's and apply to each item.
    /// Resolves to `{ result, claimed, items }`: `'claimed'` (each item's claim),
    /// `'tool_args_drift'` (nothing claimed or changed) or `'stopped'` (every remaining item
    /// is `rejected_pre_dispatch`).
    #[napi(
        ts_args_type = "request: ClaimBatchRequest",
        ts_return_type = "Promise<BatchClaimOutcome>"
    )]
    pub fn claim_batch(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::ClaimBatch, |js| owned(js, request.raw()))
    }

    /// Reports an item's outcome as `complete` does, fed to its batch's breaker.
    ///
    /// Reports the outcome of an item's claim as `complete` does a task's; a `'failed'` or
    /// `'unknown'` outcome counts toward the breaker's trip, which sends every remaining
    /// unclaimed item back for approval in the same transaction. Resolves to the task.
    #[napi(
        ts_args_type = "request: CompleteRequest",
        ts_return_type = "Promise<LedgerTask>"
    )]
    pub fn complete_item(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::CompleteItem, |js| owned(js, request.raw()))
    }

    /// Records what the business system answered about an item in doubt.
    ///
    /// Records what the business system answered about an item in doubt, as `reconcile`
    /// does a task's; a `'succeeded'` is fed to its batch's breaker. Resolves to the task.
    #[napi(
        ts_args_type = "request: ReconcileRequest",
        ts_return_type = "Promise<LedgerTask>"
    )]
    pub fn reconcile_item(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::ReconcileItem, |js| owned(js, request.raw()))
    }

    /// A batch, with its lineage's totals and breaker and its items' states.
    ///
    /// A batch (`batch_not_found`): its header and digests, its decision, its items' states,
    /// its lineage's totals and breaker, and, once a trip or an expired decision sent its
    /// remaining items back, the batch over them (`successor`).
    #[napi(
        ts_args_type = "batchId: string",
        ts_return_type = "Promise<LedgerBatch>"
    )]
    pub fn batch(&self, env: Env, batch_id: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Batch, |js| {
            member(js, batch_id.raw(), "batch_id")
        })
    }
}
