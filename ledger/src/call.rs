//! Every operation as one JSON request and one JSON result: what the Python and Node bindings
//! call, so that both take the same requests (read by `actionseal_core::ledger::request`),
//! return the same data and raise the same codes, and a new operation is one more arm here and
//! one more method in each binding.

use crate::{Ledger, Query};
use actionseal_core::ledger::request;
use actionseal_core::{Error, OwnedValue, Result, Value};
use std::borrow::Cow;
use std::time::Duration;

/// An operation, named as the bindings' methods are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// `{"action", "contract", "proposer"}` → the task.
    Propose,
    /// `{"task_id", "amends", "action", "reviewer", "reason", "contract"}` →
    /// `{"task", "amendment", "duplicate"}`.
    Amend,
    /// `{"task_id"}` → the task's amendments, in order.
    Amendments,
    /// A decision envelope → `{"task", "decision", "duplicate"}`.
    Decide,
    /// `{"task_id", "action", "facts", "executor", "lease_ms", "budget"?}` → the claim outcome.
    Claim,
    /// `{"task_id", "fence", "outcome", "executor", "result"?}` → the task.
    Complete,
    /// `{"task_id", "observed", "actor", "result"?}` → the task.
    Reconcile,
    /// `{"approval_id", "actor"}` → the revocation.
    Revoke,
    /// `{}` → the ids of the tasks whose lease ran out, now `unknown`.
    ExpireLeases,
    /// `{"name", "limit_minor"}` → the budget account.
    SetBudget,
    /// `{"name"}` → the budget account.
    Budget,
    /// `{"task_id"}` → the task.
    Task,
    /// `{"task_id"}` → `{"task", "events"}`: the task and its audit events, in order.
    History,
    /// `{"state"?, "tenant"?, "since"?, "until"?}` → the tasks, oldest first.
    Tasks,
    /// `{"state"?, "tenant"?, "since"?, "until"?, "limit"?, "after"?}` → `{"tasks", "next"}`:
    /// a page of [`Ledger::tasks_where`], `next` the cursor of the following page or `null`.
    TasksPage,
    /// `{}` → the audit as JSON Lines (a string).
    AuditExport,
    /// The query of [`Call::TasksPage`] → `{"lines", "next"}`: a page of
    /// [`Ledger::audit_export_where`], each line an event of the export (no newline).
    AuditPage,
    /// `{"exported"?}` → the audit report of the stored chains, replayed and held to the task
    /// rows (and to heads exported earlier, if given).
    AuditVerify,
    /// `{}` → the chains' heads to keep outside the database (`{"version", "at", "heads"}`).
    AuditHeads,
    /// `{}` → the ledger's policy, `{"proof", "changed_at", "changed_by"}`.
    Policy,
    /// `{"proof", "actor", "reason"}` → the ledger's policy after the change.
    SetProofRequirement,
    /// `{"task_id", "states", "timeout_ms"}` → `{"outcome": "reached" | "timed_out", "task"}`.
    Wait,
    /// `{"after"?, "limit"?, "timeout_ms"?}` → `{"changes", "cursor"}`.
    Changes,
    /// `{"actions", "contract", "semantics", "proposer"}` → the batch.
    ProposeBatch,
    /// `{"batch_id", "amends", "deselect", "reviewer", "reason"}` → the batch.
    AmendBatch,
    /// A batch decision → `{"batch", "duplicate", "signer"}`.
    DecideBatch,
    /// [`Call::Claim`]'s request, for an item of a per-item batch → the claim outcome.
    ClaimItem,
    /// `{"batch_id", "actions", "facts", "executor", "lease_ms", "budget"?, "proof"?}` →
    /// `{"result", "claimed", "items"}`: every item of an all-or-nothing batch, or none.
    ClaimBatch,
    /// [`Call::Complete`]'s request, for an item → the task.
    CompleteItem,
    /// [`Call::Reconcile`]'s request, for an item → the task.
    ReconcileItem,
    /// `{"batch_id"}` → the batch.
    Batch,
    /// `{"task_id", "actor"}` → `{"task_id", "places"}`: what was shredded (issue 29).
    Redact,
    /// `{"task_id"}` → the task's disclosures, for its reviewer (issue 29).
    Disclosures,
    /// `{"tenant", "class", "keep_ms", "at_finish", "actor"}` → the retention policy.
    SetRetention,
    /// `{}` → every retention policy.
    Retention,
    /// `{"actor"}` → what the retention run shredded, one entry per task.
    RetentionRun,
}

fn string(s: String) -> OwnedValue {
    Value::String(Cow::Owned(s))
}

fn list<T>(items: &[T], f: impl Fn(&T) -> OwnedValue) -> OwnedValue {
    Value::Array(items.iter().map(f).collect())
}

/// The ledger's query of a request's filter and page.
fn query(f: request::Filter<'_>, limit: Option<u32>, after: Option<&str>) -> Query {
    Query {
        tenant: f.tenant.map(str::to_owned),
        state: f.state,
        since: f.since,
        until: f.until,
        limit,
        after: after.map(str::to_owned),
    }
}

/// `{<items>: [...], "next": cursor | null}`.
fn paged(items: &'static str, rows: OwnedValue, next: Option<String>) -> Result<OwnedValue> {
    let entries = vec![
        (Cow::Borrowed(items), rows),
        (Cow::Borrowed("next"), next.map_or(Value::Null, string)),
    ];
    Ok(Value::Object(actionseal_core::Object::from_entries(
        entries,
    )?))
}

impl Ledger {
    /// Runs `call` with its request and returns its result as JSON. A request that is not
    /// one is [`actionseal_core::Code::InvalidRequest`] at the field (the documents inside it
    /// keep their own codes); everything else is the operation's own result or error.
    pub fn call(&self, call: Call, v: &Value<'_>) -> Result<OwnedValue> {
        match call {
            Call::Propose => {
                let r = request::Propose::from_value(v)?;
                Ok(self.propose(r.action, r.contract, r.proposer)?.to_value())
            }
            Call::Amend => {
                let r = request::Amend::from_value(v)?;
                Ok(self.amend_with(&r.amendment, r.contract)?.to_value())
            }
            Call::Amendments => {
                let all = self.amendments(request::identity(v, "task_id")?)?;
                Ok(list(&all, |a| a.to_value()))
            }
            Call::Decide => Ok(self.decide(v)?.to_value()),
            Call::Claim => {
                let r = request::Claim::from_value(v)?;
                Ok(self.claim(&r)?.to_value())
            }
            Call::Complete => {
                let r = request::Complete::from_value(v)?;
                let t = self.complete(r.task_id, r.fence, r.outcome, r.result, r.executor)?;
                Ok(t.to_value())
            }
            Call::Reconcile => {
                let r = request::Reconcile::from_value(v)?;
                let t = self.reconcile(r.task_id, r.observed, r.result, r.actor)?;
                Ok(t.to_value())
            }
            Call::Revoke => {
                let r = request::Revoke::from_value(v)?;
                Ok(self.revoke(r.approval_id, r.actor)?.to_value())
            }
            Call::ExpireLeases => {
                request::nothing(v)?;
                Ok(list(&self.expire_leases()?, |id| string(id.clone())))
            }
            Call::SetBudget => {
                let r = request::SetBudget::from_value(v)?;
                Ok(self.set_budget(r.name, r.limit_minor)?.to_value())
            }
            Call::Budget => Ok(self.budget(request::identity(v, "name")?)?.to_value()),
            Call::Task => Ok(self.task(request::identity(v, "task_id")?)?.to_value()),
            Call::History => {
                let (task, events) = self.task_history(request::identity(v, "task_id")?)?;
                let entries = vec![
                    (Cow::Borrowed("task"), task.to_value()),
                    (Cow::Borrowed("events"), list(&events, |e| e.to_value())),
                ];
                Ok(Value::Object(actionseal_core::Object::from_entries(
                    entries,
                )?))
            }
            Call::Tasks => {
                let f = request::Filter::from_value(v)?;
                let page = self.tasks_where(&query(f, None, None))?;
                Ok(list(&page.items, |t| t.to_value()))
            }
            Call::TasksPage => {
                let q = request::PageQuery::from_value(v)?;
                let page = self.tasks_where(&query(q.filter, q.limit, q.after))?;
                paged("tasks", list(&page.items, |t| t.to_value()), page.next)
            }
            Call::AuditPage => {
                let q = request::PageQuery::from_value(v)?;
                let page = self.audit_export_where(&query(q.filter, q.limit, q.after))?;
                paged("lines", list(&page.items, |l| string(l.clone())), page.next)
            }
            Call::AuditExport => {
                request::nothing(v)?;
                Ok(string(self.audit_export()?))
            }
            Call::AuditVerify => {
                let exported = request::audit_verify(v)?;
                Ok(self.audit_verify_with(exported.as_ref())?.to_value())
            }
            Call::AuditHeads => {
                request::nothing(v)?;
                Ok(self.audit_heads()?.to_value())
            }
            Call::Policy => {
                request::nothing(v)?;
                Ok(self.policy()?.to_value())
            }
            Call::SetProofRequirement => {
                let r = request::SetProofRequirement::from_value(v)?;
                Ok(self
                    .set_proof_requirement(r.proof, r.actor, r.reason)?
                    .to_value())
            }
            Call::Wait => {
                let r = request::Wait::from_value(v)?;
                let timeout = Duration::from_millis(r.timeout_ms.unsigned_abs());
                Ok(self.wait(r.task_id, &r.states, timeout)?.to_value())
            }
            Call::Changes => {
                let r = request::Changes::from_value(v)?;
                let after = r.after.parse().map_err(|e: Error| e.in_key("after"))?;
                let limit = usize::try_from(r.limit).unwrap_or(1);
                let read = match r.timeout_ms {
                    Some(ms) => {
                        self.changes_wait(&after, limit, Duration::from_millis(ms.unsigned_abs()))
                    }
                    None => self.changes(&after, limit),
                };
                Ok(read?.to_value())
            }
            Call::ProposeBatch => {
                let r = request::ProposeBatch::from_value(v)?;
                let b = self.propose_batch(r.actions, r.contract, r.semantics, r.proposer)?;
                Ok(b.to_value())
            }
            Call::AmendBatch => Ok(self.amend_batch(v)?.to_value()),
            Call::DecideBatch => Ok(self.decide_batch(v)?.to_value()),
            Call::ClaimItem => {
                let r = request::Claim::from_value(v)?;
                Ok(self.claim_item(&r)?.to_value())
            }
            Call::ClaimBatch => {
                let r = request::ClaimBatch::from_value(v)?;
                Ok(self.claim_batch(&r)?.to_value())
            }
            Call::CompleteItem => {
                let r = request::Complete::from_value(v)?;
                let t = self.complete_item(r.task_id, r.fence, r.outcome, r.result, r.executor)?;
                Ok(t.to_value())
            }
            Call::ReconcileItem => {
                let r = request::Reconcile::from_value(v)?;
                let t = self.reconcile_item(r.task_id, r.observed, r.result, r.actor)?;
                Ok(t.to_value())
            }
            Call::Batch => Ok(self.batch(request::identity(v, "batch_id")?)?.to_value()),
            Call::Redact => {
                let r = request::Redact::from_value(v)?;
                Ok(self.redact(r.task_id, r.actor)?.to_value())
            }
            Call::Disclosures => {
                let d = self.disclosures(request::identity(v, "task_id")?)?;
                Ok(list(&d, |d| string(d.encoded().to_owned())))
            }
            Call::SetRetention => {
                let r = request::SetRetention::from_value(v)?;
                let p = self.set_retention(r.tenant, r.class, r.keep_ms, r.at_finish, r.actor)?;
                Ok(p.to_value())
            }
            Call::Retention => {
                request::nothing(v)?;
                Ok(list(&self.retention()?, |p| p.to_value()))
            }
            Call::RetentionRun => {
                let done = self.retention_run(request::identity(v, "actor")?)?;
                Ok(list(&done, |d| d.to_value()))
            }
        }
    }
}
