//! The task ledger's pure half: task states and the transitions each operation may make, the
//! error of every refused transition, the identities derived from a task (task id, approval
//! ids, the business idempotency key), the decision envelope, reviewers' amendments before a
//! decision, the trusted context a claim is checked against, and the audit event format with
//! its chain verifier, the replay of every task's events and the exported heads. No I/O: the
//! `actionseal-ledger` crate stores all of this in SQLite or PostgreSQL, one transaction per
//! operation, and both backends take every decision from here.

mod amend;
mod batch_decision;
mod budget;
mod claim;
mod decision;
mod envelope;
mod event;
mod gate;
mod heads;
mod ids;
mod proven;
mod replay;
pub mod request;
mod retention;
mod state;
mod telemetry;
pub(crate) mod values;

pub use amend::{
    amend, amend_action, amended_pointers, AmendedAction, Amendment, MAX_REASON_CHARS,
};
pub use batch_decision::BatchEnvelope;
pub use budget::{reserve, settle};
pub use claim::{
    claim_step, context, context_recorded, context_with, drift_between, ClaimStep, Recorded,
    FACT_FIELDS,
};
pub use decision::DecisionEnvelope;
pub(crate) use envelope::Arrival;
pub use envelope::{link_digest, Envelope};
pub use event::{
    chain_of, verify_audit, verify_audit_with, verify_audit_with_batches, AuditReport, BatchRows,
    Break, ChainHead, Event, EventKind, Expected, Problem, CHAINS,
};
pub use gate::{
    defaults as gate_defaults, gate_step, Gate, Refusal, TurnBatch, Unit, DEFAULT_EXECUTOR,
    DEFAULT_LEASE_MS, DEFAULT_PROPOSER, MESSAGE_PREFIX,
};
pub use heads::{ExportedHeads, HEADS_VERSION};
pub use ids::{approval_id, batch_id, idempotency_key, remainder_id, task_id};
pub use proven::{has_bare_link, reattach, Presented, ProvenDecision};
pub use replay::{
    Mismatch, Place, Replay, StoredBatch, StoredDecision, StoredLineage, StoredPolicy, StoredTask,
};
pub use retention::{check_class, AtFinish};
pub use state::{next, Observed, Op, Reported, Snapshot, State};
pub use telemetry::telemetry_schema;

/// Checks an identity a ledger operation takes besides its JSON documents (an executor, a
/// proposer, a budget name, ...): the same rule as every identity in an action.
/// Problems are [`crate::Code::InvalidRequest`] naming `what`.
pub fn check_identity(what: &str, s: &str) -> crate::Result<()> {
    crate::model::fields::check_identity(s)
        .map_err(|why| crate::Error::new(crate::Code::InvalidRequest, format!("{what} {why}")))
}

#[cfg(test)]
mod tests;
