//! The ledger's batch operations (issue 28): core JSON values in, results with a
//! `to_value()` out, as for tasks, so that a binding wraps them without knowing the ledger.

use crate::model::{Batch, BatchClaimOutcome, BatchDecided, ClaimOutcome, Task};
use crate::ops::batch::{self, Server};
use crate::ops::propose::Proposal;
use crate::{ClaimRequest, Ledger};
use actionseal_core::batch::Semantics;
use actionseal_core::ledger::{
    batch_id, check_identity, request, BatchEnvelope, Observed, Presented, Reported,
};
#[cfg(doc)]
use actionseal_core::Code;
use actionseal_core::{Action, Result, Value};

/// A claim of a whole all-or-nothing batch: every item's action as the executor is about to
/// dispatch it, in the batch's order, with the facts, identity, lease, budget and proof
/// requirement of a task's claim ([`ClaimRequest`]), which apply to each item.
pub use actionseal_core::ledger::request::ClaimBatch as BatchClaimRequest;

impl Ledger {
    pub(crate) fn server(&self) -> Server<'_> {
        Server {
            contracts: &self.contracts,
            policy: self.batch_policy.as_ref(),
        }
    }

    /// Records a batch of `actions` (envelopes made under `contract`, in the order a
    /// reviewer sees them) with `semantics`, proposed by `proposer`: each item a task awaiting
    /// the batch's one decision, the batch's document frozen by core (its digest commits to
    /// every item's fingerprint), and a lineage whose caps totals and breaker start empty and
    /// closed. Refused as core refuses the batch ([`Code::BatchNotAllowed`],
    /// [`Code::BatchTooLarge`], [`Code::BatchCapExceeded`], [`Code::InvalidBatch`], under the
    /// contract's policy narrowed by the server's, [`LedgerOptions::batch_policy`]), or when
    /// an item's task exists already ([`Code::InvalidBatch`]). The same batch proposed again
    /// returns it as it is.
    ///
    /// [`LedgerOptions::batch_policy`]: crate::LedgerOptions::batch_policy
    pub fn propose_batch(
        &self,
        actions: &[Value<'_>],
        contract: &Value<'_>,
        semantics: Semantics,
        proposer: &str,
    ) -> Result<Batch> {
        check_identity("proposer", proposer)?;
        let contract = self
            .contracts
            .load(contract)
            .map_err(|e| e.in_key("contract"))?;
        batch::check_decidable(&contract)?;
        let built = actionseal_core::batch::Batch::build(
            &contract,
            semantics,
            actions,
            self.batch_policy.as_ref(),
        )
        .map_err(|e| e.in_key("actions"))?;
        if !self.contracts.stored(&contract) {
            self.keep_contract(&contract)?;
            self.contracts.mark_stored(&contract);
        }
        let tenant = built.header().tenant.clone();
        let id = batch_id(&tenant, &built.digest());
        let items = actions
            .iter()
            .map(|a| {
                Ok(Proposal {
                    action: Action::from_value(a)?,
                    contract: contract.clone(),
                    required: true,
                    proposer: proposer.to_owned(),
                    batch: Some(id.clone()),
                    sensitive: None,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let p = batch::propose::BatchProposal {
            id,
            batch: built,
            items,
            tenant,
            proposer: proposer.to_owned(),
        };
        self.write(|tx, now| batch::propose::run(tx, now, &p))
    }

    /// A reviewer deselects items of a batch awaiting its decision:
    /// `{"batch_id", "amends": <the batch digest the reviewer saw>, "deselect": [positions],
    /// "reviewer", "reason"}`. The batch gets the remainder's document and digest (the model's
    /// proposal kept beside it), which the decision must name; the deselected items end
    /// `rejected` when the batch is decided. Refused, changing nothing: after the decision
    /// ([`Code::TaskNotAwaitingDecision`]), when `amends` is no longer the batch's digest
    /// ([`Code::AmendConflict`]), for positions core refuses ([`Code::InvalidBatch`]).
    pub fn amend_batch(&self, amendment: &Value<'_>) -> Result<Batch> {
        let a = read_deselection(amendment)?;
        let srv = self.server();
        self.write(|tx, now| batch::amend::run(tx, now, &a, &srv))
    }

    /// Records one reviewer's decision over a batch: `{"approval_id", "decision_id",
    /// "batch_id", "batch_digest", "decision", "approver", "decided_at", "expires_at"}`
    /// ([`BatchEnvelope`]), once per `decision_id` as [`Ledger::decide`] records a task's (a
    /// repeat with the same content is a duplicate, with other content
    /// [`Code::DecisionConflict`]); about another batch or another selection it is
    /// [`Code::DecisionMismatch`]. Approving moves every selected item to `approved`, each
    /// with the batch's record and its own inclusion proof; either way the deselected items
    /// end `rejected`. A decision over the remainder a tripped breaker left half-opens it.
    ///
    /// `decision` may instead prove who made it, as for [`Ledger::decide`]: the batch decision
    /// record the ledger builds for the batch as it awaits its decision
    /// ([`Batch::decision`]), signed ([`actionseal_core::sign_approval`]) or approved with a
    /// passkey. Its proof is verified against the keys of [`crate::LedgerOptions::proof`] at
    /// the ledger's clock as it arrives, it is recorded only if that record is byte for byte
    /// the one the ledger builds ([`Code::DecisionMismatch`] at the first member that
    /// differs), a passkey's signature counter must have moved, and the proof is kept on the
    /// batch ([`Batch::proof`]) and in the `batch_decided` event, with an RFC 3161 token when
    /// a TSA is configured. Where the ledger requires proof, a bare envelope is
    /// [`Code::MissingProof`]. A decision made through a delegation has each link's proof
    /// verified, and its chain must hold for every item ([`Code::DelegationRefused`]).
    pub fn decide_batch(&self, decision: &Value<'_>) -> Result<BatchDecided> {
        // Keys are judged at the ledger's clock as the decision arrives.
        let arrived = self.clock.now_ms();
        let p =
            Presented::<BatchEnvelope>::read(decision, &self.keys, self.requirement(), arrived)?;
        // Asked before the write, which holds the batch's lock: never across a round trip.
        let token = crate::ops::decide::stamp(self.tsa.as_ref(), &p);
        let srv = self.server();
        self.write(|tx, now| batch::decide::run(tx, now, &p, token.as_deref(), &srv))
    }

    /// Claims one item of a per-item batch, as [`Ledger::claim`] claims a task, and in the
    /// same transaction: its inclusion proof, its drift against its frozen action and the
    /// batch decision (core's `check_item_with`), the lineage's breaker ([`Code::BreakerOpen`]
    /// while open; a claim over the rate trips it and is refused too) and its caps against
    /// the lineage's running totals ([`Code::BatchCapExceeded`]). An item of an
    /// all-or-nothing batch is [`Code::BatchAllOrNothing`]; a task that is no batch's item
    /// [`Code::BatchItem`]. The claim carries the item (`{"action", "proof"}`) beside the
    /// batch's record ([`crate::Claim::item`]).
    pub fn claim_item(&self, r: &ClaimRequest<'_, '_>) -> Result<ClaimOutcome> {
        let r = self.checked_claim(r)?;
        let srv = self.server();
        self.write(|tx, now| batch::claim::item(tx, now, &r, &srv))
    }

    /// Claims every remaining item of an all-or-nothing batch, or none: each item's check
    /// must permit, and the caps, the budget and the breaker must admit them all. A drift
    /// claims nothing and changes nothing ([`BatchClaimOutcome::Drift`]); an item the check
    /// rejects or sends back stops the batch: every remaining item ends
    /// `rejected_pre_dispatch` ([`BatchClaimOutcome::Stopped`]).
    pub fn claim_batch(&self, r: &BatchClaimRequest<'_, '_>) -> Result<BatchClaimOutcome> {
        let one = ClaimRequest {
            task_id: r.batch_id,
            action: &Value::Null,
            facts: r.facts,
            executor: r.executor,
            lease_ms: r.lease_ms,
            budget: r.budget,
            proof: r.proof,
        };
        let checked = self.checked_claim(&one)?;
        let w = batch::claim::Whole {
            batch_id: r.batch_id,
            actions: r.actions,
            facts: r.facts,
            executor: r.executor,
            lease_ms: r.lease_ms,
            budget: r.budget,
            proof: checked.proof,
        };
        let srv = self.server();
        self.write(|tx, now| batch::claim::whole(tx, now, &w, &srv))
    }

    /// Reports the outcome of an item's claim, as [`Ledger::complete`] does a task's, fed to
    /// its lineage's breaker: a failed or unknown outcome counts toward a trip, which moves
    /// every remaining unclaimed item to `awaiting_reapproval` in this transaction and
    /// proposes a batch over them; a success counts toward closing a half-open breaker.
    pub fn complete_item(
        &self,
        task_id: &str,
        fence: i64,
        reported: Reported,
        result: Option<&Value<'_>>,
        executor: &str,
    ) -> Result<Task> {
        check_identity("executor", executor)?;
        let result = result.map(|r| r.clone().into_owned());
        let srv = self.server();
        self.write(|tx, now| {
            batch::outcome::complete(
                tx,
                now,
                task_id,
                (fence, reported),
                result.as_ref(),
                executor,
                &srv,
            )
        })
    }

    /// Records what the business system answered about an item in doubt, as
    /// [`Ledger::reconcile`] does a task's. Its doubt was counted as a failure when it began,
    /// so only `succeeded` is fed to the breaker again.
    pub fn reconcile_item(
        &self,
        task_id: &str,
        observed: Observed,
        result: Option<&Value<'_>>,
        actor: &str,
    ) -> Result<Task> {
        check_identity("actor", actor)?;
        let result = result.map(|r| r.clone().into_owned());
        let srv = self.server();
        self.write(|tx, now| {
            batch::outcome::reconcile(tx, now, task_id, observed, result.as_ref(), actor, &srv)
        })
    }

    /// One batch, with its lineage's totals and breaker and its items' states.
    pub fn batch(&self, id: &str) -> Result<Batch> {
        self.read(|tx| {
            let (l, b) = batch::lock(tx, id)?;
            let items = batch::locked_items(tx, &b)?;
            batch::view(&b, &l, &items)
        })
    }
}

/// Reads a deselection with core's reader.
fn read_deselection(v: &Value<'_>) -> Result<batch::amend::Deselection> {
    let r = request::AmendBatch::from_value(v)?;
    Ok(batch::amend::Deselection {
        batch_id: r.batch_id.to_owned(),
        amends: r.amends,
        deselect: r.deselect,
        reviewer: r.reviewer.to_owned(),
        reason: r.reason.to_owned(),
    })
}
