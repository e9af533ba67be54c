//! propose: record a task with its frozen action and contract.

use super::{detail, event, refuse, view};
use crate::json::{canon, s};
use crate::model::Task;
use crate::store::{ApprovalRow, Done, TaskRow, Tx};
use actionseal_core::ledger::{approval_id, idempotency_key, task_id, EventKind, State};
use actionseal_core::sensitive::Disclosure;
use actionseal_core::{Action, Code, Contract, Error, Result, Value};

/// A validated proposal, read before the transaction.
pub(crate) struct Proposal {
    pub action: Action,
    pub contract: Contract,
    pub required: bool,
    pub proposer: String,
    /// The batch it is an item of (issue 28): its round is decided by the batch's decision, so
    /// it has no approval round of its own that a task's decision could name.
    pub batch: Option<String>,
    /// Under a contract with sensitive pointers (issue 29): `action` is committed (with fresh
    /// salts), and these are its disclosures.
    pub sensitive: Option<Vec<Disclosure>>,
}

pub(crate) fn run(tx: &mut dyn Tx, now: i64, p: &Proposal) -> Result<Done<Task>> {
    let a = &p.action;
    let (tenant, job, request) = (a.field("tenant"), a.field("job_id"), a.field("request_id"));
    let id = task_id(tenant, job, request);
    if let Some(existing) = tx.proposed_task(&id)? {
        let mut ev = event(&existing, now, EventKind::ProposeDuplicate, &p.proposer);
        ev.action_digest = Some(a.digest());
        // The model proposing again what it proposed, or what a reviewer amended it to, is
        // the same task.
        let proposed = existing.proposed_digest.unwrap_or(existing.action_digest);
        let same = match &p.sensitive {
            None => existing.action_digest.ct_eq(&a.digest()) || proposed.ct_eq(&a.digest()),
            Some(disclosures) => {
                super::shred::recognised(tx, &existing, &p.contract, &p.action, disclosures)?
            }
        };
        if same {
            tx.append(ev);
            return Ok(Done::Ok(view(existing)?));
        }
        ev.kind = EventKind::ProposeRefused;
        ev.approved_digest = Some(existing.action_digest);
        return refuse(
            tx,
            ev,
            Error::new(
                Code::TaskConflict,
                format!(
                    "task {id} (tenant {tenant:?}, job {job:?}, request {request:?}) was proposed \
                     with another action: a changed action is a new request, never the same task"
                ),
            ),
        );
    }
    let (state, round, apr) = if p.required {
        (State::AwaitingApproval, 1, Some(approval_id(&id, 1)))
    } else {
        (State::Approved, 0, None)
    };
    let t = TaskRow {
        id: id.clone(),
        tenant: tenant.to_owned(),
        job_id: job.to_owned(),
        request_id: request.to_owned(),
        state,
        action: canon(a.value()),
        action_digest: a.digest(),
        approval_required: p.required,
        cost_minor: p.contract.cost_minor(),
        idempotency_key: idempotency_key(tenant, job, request),
        proposer: p.proposer.clone(),
        fence: 0,
        round,
        approval_id: apr.clone(),
        executor: None,
        lease_until: None,
        budget: None,
        reserved: 0,
        result: None,
        created_at: now,
        updated_at: now,
        proposed_action: None,
        proposed_digest: None,
        amendments: 0,
        approval: None,
        revoked_at: None,
        round_started_at: now,
        proof: None,
        contract: super::quorum::kept_contract(&p.contract),
    };
    if !tx.insert_task(&t)? {
        // Another transaction inserted it first (PostgreSQL under READ COMMITTED): answer
        // as if this one had come second.
        return match tx.task(&id)? {
            Some(_) => run(tx, now, p),
            None => Err(crate::store::storage("task insert", "refused, yet no task")),
        };
    }
    if let Some(disclosures) = &p.sensitive {
        super::shred::keep(tx, now, &t, &p.contract, disclosures)?;
    }
    if let (Some(apr), None) = (&apr, &p.batch) {
        tx.put_approval(&ApprovalRow {
            approval_id: apr.clone(),
            task_id: id.clone(),
            round,
            decision_id: None,
            revoked_at: None,
        })?;
    }
    let mut ev = event(&t, now, EventKind::Proposed, &p.proposer);
    let mut entries = vec![
        ("tool", s(a.field("tool"))),
        ("contract", s(a.field("contract"))),
        ("subject", s(a.field("subject"))),
        ("job_id", s(job)),
        ("request_id", s(request)),
        ("policy_version", s(a.field("policy_version"))),
        ("approval_required", Value::Bool(p.required)),
        ("approval_id", crate::json::opt_s(apr.as_deref())),
        ("idempotency_key", s(&t.idempotency_key)),
    ];
    entries.extend(p.batch.as_deref().map(|b| ("batch_id", s(b))));
    ev.detail = detail(entries);
    tx.append(ev);
    // A new task has no decision yet; its action was just written from the value.
    let parsed = super::Parsed {
        action: true,
        ..Default::default()
    };
    let mut task = super::view_parsed(t, parsed)?;
    // Its round has no decision yet: where it stands needs no read.
    if apr.is_some() {
        task.quorum = super::quorum::state_of(&p.contract, &[])?;
    }
    Ok(Done::Ok(task))
}
