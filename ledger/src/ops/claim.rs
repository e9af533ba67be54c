//! claim: re-prove the stored approval against the presented action and the executor's facts,
//! and only on permit move the task to `claimed`, with a lease, a higher fence and the task's
//! idempotency key, reserving the contract's cost on a budget in the same transaction.

use super::quorum::contract_of;
use super::{detail, event, expire_if_due, locked_task, refuse, save, snapshot, view_parsed};
use crate::contracts::Contracts;
use crate::json::{n, obj, opt_s, s, stored};
use crate::model::{Claim, ClaimOutcome};
use crate::store::{increment, storage, ApprovalRow, Done, Tx};
use actionseal_core::ledger::request::Claim as ClaimRequest;
use actionseal_core::ledger::{
    approval_id, claim_step, context_recorded, drift_between, has_bare_link, next, reattach,
    reserve, ClaimStep, EventKind, Op, Recorded, State,
};
use actionseal_core::sensitive::{recommit, reveal, reveal_presented, Coverage};
use actionseal_core::{
    check_set_with, check_with, Code, Contract, Error, OwnedValue, ProofRequirement, Result, Value,
    Verdict,
};

/// Runs claim `c`, whose `proof` is already the request's or the ledger's requirement,
/// whichever asks more; `contracts` loads the contract the facts name.
pub(crate) fn run(
    tx: &mut dyn Tx,
    now: i64,
    c: &ClaimRequest<'_, '_>,
    contracts: &Contracts,
) -> Result<Done<ClaimOutcome>> {
    let mut t = locked_task(tx, c.task_id)?;
    if super::batch::is_item(&t)? {
        let ev = refused_claim(&t, now, c);
        return refuse(tx, ev, super::batch::item_only("claim"));
    }
    expire_if_due(tx, &mut t, now)?;
    let presented_digest = actionseal_core::fingerprint(c.action);
    let mut ev = refused_claim(&t, now, c);

    // Refused on the task's state before anything else: a losing claim changes nothing.
    let before = snapshot(&t);
    if let Err(e) = next(&before, Op::ClaimPermit, now) {
        return refuse(tx, ev, e);
    }
    // The current round's record and revocation live on the task row itself.
    let record = t.approval.as_deref().map(stored).transpose()?;
    let revoked = t
        .approval_id
        .as_deref()
        .map(|id| (id, t.revoked_at.is_some()));
    // Under a kept contract (issue 25) the proposer and the amender are the ledger's own
    // records, and a quorum's whole round is checked again as a set.
    let kept = contract_of(&t, contracts)?;
    let amended_by = match (&kept, t.amendments) {
        (None, _) => None,
        (Some(_), 0) => Some(None),
        (Some(_), _) => Some(tx.amendments(&t.id)?.pop().map(|a| a.reviewer)),
    };
    let recorded = Recorded {
        revoked,
        proposer: kept.is_some().then_some(t.proposer.as_str()),
        amended_by: amended_by.as_ref().map(Option::as_deref),
    };
    let ctx = context_recorded(c.facts, now, &recorded, |doc| contracts.load(doc))?;
    // A task frozen with commitments (issue 29): its disclosures, kept apart, are the check's,
    // which commits the presented action again with their salts; shredded ones cannot run.
    let disclosed = match super::shred::may_hold(&t) {
        false => Vec::new(),
        true => match super::shred::held(tx, &t)? {
            Ok(d) => d,
            Err(e) => return refuse(tx, ev, e),
        },
    };
    let sensitive = ctx.contract().and_then(Contract::sensitive).cloned();
    // A resume presents the claim's `approved_action`, committed as it was frozen: the task's
    // disclosures open it, and it is checked, committed again and audited in the clear.
    let opened = sensitive
        .as_ref()
        .and_then(|s| reveal_presented(s, c.action, &disclosed));
    let action = opened.as_ref().unwrap_or(c.action);
    let ctx = match disclosed.is_empty() {
        true => ctx,
        false => ctx.with_disclosures(disclosed.clone()),
    };
    let members = match (kept.as_ref().and_then(Contract::quorum), &t.approval_id) {
        (Some(_), Some(apr)) => Some(tx.round_decisions(apr)?),
        _ => None,
    };
    let set = members
        .iter()
        .flatten()
        .map(|r| stored(&r.record))
        .collect::<Result<Vec<_>>>()?;
    let mut verdict = match members {
        Some(_) => check_set_with(&set, action, &ctx),
        None => check_with(record.as_ref(), action, &ctx),
    };
    // A decision recorded without proof, or made through a bare delegation link: the task's,
    // or any member's of its round.
    let unproven = match &members {
        Some(rows) => rows
            .iter()
            .zip(&set)
            .any(|(r, v)| r.proof.is_none() || has_bare_link(v)),
        None => record
            .as_ref()
            .is_some_and(|r| t.proof.is_none() || has_bare_link(r)),
    };
    // Returned to the caller (the approved action, to dispatch or to resume with).
    let frozen = stored(&t.action)?.into_owned();
    let mut step = claim_step(&verdict);
    // Committed again, the presented action is what the audit names (never the clear one's
    // fingerprint, which a guess at a value could be hashed to).
    let committed = sensitive
        .as_ref()
        .map(|s| recommit(s, action, ctx.disclosures()));
    let (presented, presented_digest) = match &committed {
        Some(v) => (v, verdict.action_digest),
        None => (c.action, presented_digest),
    };
    if committed.is_some() {
        ev.action_digest = Some(presented_digest);
    }
    if record.is_none() && !presented_digest.ct_eq(&t.action_digest) && step != ClaimStep::Drift {
        // No approval to compare with: compare with the proposed action.
        verdict.drift = drift_between(&frozen, presented);
        step = ClaimStep::Drift;
    }
    // The values to run with, each checked against its commitment.
    let revealed = match (&sensitive, step) {
        (Some(s), ClaimStep::Permit) if !disclosed.is_empty() => {
            match reveal(s, &frozen, &disclosed, Coverage::Every) {
                Ok(v) => Some(v),
                Err(e) => return refuse(tx, ev, e),
            }
        }
        _ => None,
    };
    let checked = Checked {
        verdict,
        step,
        frozen,
        record: record.map(Value::into_owned),
        set: set.into_iter().map(Value::into_owned).collect(),
        unproven,
        proof: t.proof.clone(),
        item: None,
        decider: Decider::Task,
        revealed,
    };
    conclude(tx, now, c, (t, before), ev, checked, |_, _, _| {
        Ok(Ok(Vec::new()))
    })
}

/// The event of a refused claim of `t`, until it is one.
pub(crate) fn refused_claim(
    t: &crate::store::TaskRow,
    now: i64,
    c: &ClaimRequest<'_, '_>,
) -> actionseal_core::ledger::Event {
    let mut ev = event(t, now, EventKind::ClaimRefused, c.executor);
    // A task with commitments is presented in the clear: its digest is named once the action
    // is committed again (issue 29), never the clear one's.
    ev.action_digest = (!super::shred::may_hold(t)).then(|| actionseal_core::fingerprint(c.action));
    ev.detail = detail(vec![("executor", s(c.executor))]);
    ev
}

/// What a claim's check found, for [`conclude`] to act on.
pub(crate) struct Checked {
    pub verdict: Verdict,
    pub step: ClaimStep,
    /// The frozen action (to dispatch, or to resume with).
    pub frozen: OwnedValue,
    /// The decision record the check ran against, and under a quorum its whole round.
    pub record: Option<OwnedValue>,
    pub set: Vec<OwnedValue>,
    /// Whether that decision was recorded without proof (or through a bare link).
    pub unproven: bool,
    /// How that decision was proven, as stored (canonical `{"proof", "signer",
    /// "verified_at"}`).
    pub proof: Option<String>,
    /// A batch item's frozen action and inclusion proof (issue 28), handed to the executor.
    pub item: Option<OwnedValue>,
    pub decider: Decider,
    /// The frozen action with its sensitive values revealed (issue 29), to run with.
    pub revealed: Option<OwnedValue>,
}

/// Who decides a task that a claim sends back for approval.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decider {
    /// A decision about the task: its new round has an approval row a decision names.
    Task,
    /// A batch's decision (issue 28): the task's new round has no approval row, so no
    /// decision about the task alone can approve it.
    Batch,
}

/// What a permitted claim adds before it wins: more of the event's detail, or a refusal.
pub(crate) type Extra = Vec<(&'static str, OwnedValue)>;

/// Acts on a claim's check: a drift is refused (audited), a decision that no longer holds
/// sends the task back to a reviewer, a rejection ends it, and a permit claims it once
/// `admit` (a batch item's caps, issue 28) lets it, with the detail `admit` adds.
pub(crate) fn conclude(
    tx: &mut dyn Tx,
    now: i64,
    c: &ClaimRequest<'_, '_>,
    (mut t, before): (crate::store::TaskRow, actionseal_core::ledger::Snapshot),
    mut ev: actionseal_core::ledger::Event,
    checked: Checked,
    admit: impl FnOnce(
        &mut dyn Tx,
        &crate::store::TaskRow,
        &mut actionseal_core::ledger::Event,
    ) -> Result<std::result::Result<Extra, Error>>,
) -> Result<Done<ClaimOutcome>> {
    let Checked {
        verdict,
        step,
        frozen,
        record,
        set,
        unproven,
        proof,
        item,
        decider,
        revealed,
    } = checked;
    // Both texts are parsed now: the task handed back needs no second parse of them.
    let parsed = super::Parsed {
        action: true,
        approval: true,
        result: false,
    };
    ev.approved_digest = verdict.approved_digest.or(Some(t.action_digest));
    ev.reasons = verdict
        .reasons
        .iter()
        .map(|r| r.as_str().to_owned())
        .collect();
    ev.drift = verdict.drift.clone();
    ev.outcome = Some(verdict.outcome.as_str().to_owned());
    let state = next(&before, step.op(), now)?;

    match step {
        ClaimStep::Drift => {
            ev.kind = EventKind::ToolArgsDrift;
            ev.outcome = Some("tool_args_drift".to_owned());
            tx.append(ev);
            Ok(Done::Ok(ClaimOutcome::Drift {
                task: view_parsed(t, parsed)?,
                verdict,
                approved_action: frozen,
            }))
        }
        ClaimStep::Reapprove => {
            t.round = increment(t.round, "approval round")?;
            let apr = approval_id(&t.id, t.round);
            if decider == Decider::Task {
                tx.put_approval(&ApprovalRow {
                    approval_id: apr.clone(),
                    task_id: t.id.clone(),
                    round: t.round,
                    decision_id: None,
                    revoked_at: None,
                })?;
            }
            t.approval_id = Some(apr.clone());
            t.approval = None;
            t.proof = None;
            t.revoked_at = None;
            t.round_started_at = now;
            t.state = state;
            t.updated_at = now;
            save(tx, &t, &before)?;
            ev.kind = EventKind::SentToReapproval;
            ev.state = Some(t.state);
            ev.detail = detail(vec![("executor", s(c.executor)), ("approval_id", s(&apr))]);
            tx.append(ev);
            Ok(Done::Ok(ClaimOutcome::Reapproval {
                task: view_parsed(t, parsed)?,
                verdict,
            }))
        }
        ClaimStep::Reject => {
            t.state = state;
            t.updated_at = now;
            save(tx, &t, &before)?;
            ev.kind = EventKind::RejectedPreDispatch;
            ev.state = Some(t.state);
            tx.append(ev);
            // It will never run: its values go now where its tenant shreds them at a finish.
            super::shred::at_finish(tx, now, &t, super::LEDGER_ACTOR)?;
            Ok(Done::Ok(ClaimOutcome::Rejected {
                task: view_parsed(t, parsed)?,
                verdict,
            }))
        }
        ClaimStep::Permit if c.proof == ProofRequirement::Required && unproven => {
            // Checked once the approval holds otherwise: a revoked or expired one goes back to
            // the reviewer as usual, for a decision that can be proven.
            refuse(
                tx,
                ev,
                Error::new(
                    Code::MissingProof,
                    "the task's decision was recorded without proof (or made through a \
                     delegation link without it), and this claim requires proof: revoke the \
                     approval to send the task back for a proven decision",
                ),
            )
        }
        ClaimStep::Permit => {
            let extra = match admit(tx, &t, &mut ev)? {
                Ok(extra) => extra,
                Err(e) => return refuse(tx, ev, e),
            };
            let proof = claimed_proof(record.as_ref(), proof.as_deref())?;
            let claimed = Claimed {
                action: frozen,
                revealed,
                approval: record,
                proof,
                approvals: set,
                item,
                extra,
            };
            permit(tx, now, c, (t, before, state), ev, claimed, parsed)
        }
    }
}

/// What a won claim hands the executor: the action to dispatch, and the decision it was
/// checked against, to verify before dispatching.
struct Claimed {
    action: OwnedValue,
    revealed: Option<OwnedValue>,
    approval: Option<OwnedValue>,
    proof: Option<OwnedValue>,
    approvals: Vec<OwnedValue>,
    item: Option<OwnedValue>,
    /// What the claimed event's detail adds (a batch item's lineage, issue 28).
    extra: Extra,
}

/// The claimed decision as it was proven: the stored proof and the record put together
/// again, with the signer and the time its key was judged.
fn claimed_proof(record: Option<&OwnedValue>, proof: Option<&str>) -> Result<Option<OwnedValue>> {
    let (Some(record), Some(proof)) = (record, proof) else {
        return Ok(None);
    };
    let stored = stored(proof)?;
    let member = |k: &str| stored.as_object().and_then(|o| o.get(k)).cloned();
    let proven = reattach(record, &member("proof").unwrap_or(Value::Null));
    if matches!(proven, Value::Null) {
        return Err(storage(
            "task proof",
            "the stored proof does not fit its record",
        ));
    }
    Ok(Some(obj(vec![
        ("proven", proven),
        (
            "signer",
            member("signer").unwrap_or(Value::Null).into_owned(),
        ),
        (
            "verified_at",
            member("verified_at").unwrap_or(Value::Null).into_owned(),
        ),
    ])))
}

fn permit(
    tx: &mut dyn Tx,
    now: i64,
    c: &ClaimRequest<'_, '_>,
    (mut t, before, state): (
        crate::store::TaskRow,
        actionseal_core::ledger::Snapshot,
        State,
    ),
    mut ev: actionseal_core::ledger::Event,
    claimed: Claimed,
    parsed: super::Parsed,
) -> Result<Done<ClaimOutcome>> {
    let mut cost = 0;
    if let Some(name) = c.budget {
        let mut b = tx.budget(name)?.ok_or_else(|| {
            Error::new(Code::BudgetNotFound, format!("no budget {name:?}")).in_key("budget")
        })?;
        // The cost of the contract the task was proposed under (the check has just proved
        // it is still the one in force).
        cost = t.cost_minor;
        match reserve(b.limit_minor, b.spent_minor, b.reserved_minor, cost) {
            Ok(reserved) => b.reserved_minor = reserved,
            Err(e) => {
                ev.detail = detail(vec![
                    ("executor", s(c.executor)),
                    ("budget", s(name)),
                    ("cost_minor", n(cost)),
                ]);
                return refuse(tx, ev, e);
            }
        }
        tx.put_budget(&b)?;
    }
    t.state = state;
    t.fence = increment(t.fence, "fence")?;
    t.executor = Some(c.executor.to_owned());
    t.lease_until = Some(now.saturating_add(c.lease_ms));
    t.budget = c.budget.map(str::to_owned);
    t.reserved = cost;
    t.updated_at = now;
    if !tx.update_task(&t, before.state, before.fence)? {
        // Only possible if something wrote the task without its lock.
        return Err(Error::new(
            Code::AlreadyClaimed,
            "the task was claimed concurrently",
        ));
    }
    ev.kind = EventKind::Claimed;
    ev.state = Some(t.state);
    ev.fence = Some(t.fence);
    let mut entries = vec![
        ("executor", s(c.executor)),
        ("lease_until", n(now.saturating_add(c.lease_ms))),
        ("idempotency_key", s(&t.idempotency_key)),
        ("budget", opt_s(c.budget)),
        ("cost_minor", n(cost)),
    ];
    entries.extend(claimed.extra);
    ev.detail = super::detail_of(&t, entries);
    tx.append(ev);
    let claim = Claim {
        task_id: t.id.clone(),
        fence: t.fence,
        idempotency_key: t.idempotency_key.clone(),
        lease_until: now.saturating_add(c.lease_ms),
        executor: c.executor.to_owned(),
        action: claimed.action,
        revealed: claimed.revealed,
        approval: claimed.approval,
        proof: claimed.proof,
        approvals: claimed.approvals,
        item: claimed.item,
    };
    Ok(Done::Ok(ClaimOutcome::Claimed(
        claim,
        view_parsed(t, parsed)?,
    )))
}
