//! Replaying each task's audit events by the ledger's rules, and holding a task's row to what
//! its events leave it at.
//!
//! The chains prove that no event was edited, removed or reordered, but not that the events
//! make sense, nor that the task rows the ledger acts on are the ones its events describe: a
//! row moved back from `succeeded` to `approved` is claimed a second time, and the chains still
//! verify. So the verifier replays every task's events through the same transitions the ledger
//! takes them from ([`next`]): each event must follow from the ones before it (its state, its
//! round's approval id, its fence, the digest it decides about), and where the rows are at hand
//! (a ledger verifying itself), each row must hold what the replay ends at: state, round,
//! fence, approval id, lease, when the round began, digests (the action, the model's proposal,
//! the approval record and its proof, the result), revocation and last event. The ledger's
//! proof policy is replayed from its own events and held to its row the same way. An export
//! alone is replayed too, without rows.

use crate::json::digest::Digest;
use crate::json::value::Value;
use crate::model::approval::Decision;
use crate::model::ledger::event::{Event, EventKind};
use crate::model::ledger::ids::{approval_id, task_id};
use crate::model::ledger::state::{next, Observed, Op, Reported, Snapshot, State};
use std::collections::{HashMap, HashSet};

mod batches;
mod round_decisions;

pub use batches::{StoredBatch, StoredLineage};

/// Where a task's events or its row break the rules: the task, and the member of the event
/// (`state`, `fence`, `detail/approval_id`, ...) or the column of the row (`state`,
/// `last_event`, ...) that does. Ledger-wide events and rows (the proof policy) name no task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The task, if the mismatch is about one.
    pub task: Option<String>,
    /// The event's member or the row's column.
    pub field: &'static str,
}

/// A row of a round's decisions as a ledger stores it: what [`Replay::compare_decisions`]
/// holds to the round's `decided` events. Texts are the canonical JSON the ledger stored.
#[derive(Clone, Copy, Debug)]
pub struct StoredDecision<'a> {
    /// The round (its approval id).
    pub approval_id: &'a str,
    /// Its position in the round: 1 for the first decision recorded, one more for each after.
    pub n: i64,
    pub decision_id: &'a str,
    /// Whom it counts for: the approver, or the root of the approver's delegation.
    pub counted_as: &'a str,
    pub role: Option<&'a str>,
    /// `approved` or `rejected`.
    pub decision: &'a str,
    /// The approval record.
    pub record: &'a str,
    /// How it was proven, as the task row's `proof` keeps it.
    pub proof: Option<&'a str>,
    pub decided_at: i64,
    /// When the ledger recorded it: its `decided` event's `at`.
    pub recorded_at: i64,
}

/// A task's row as a ledger stores it: what [`Replay::compare`] holds to the task's events.
/// Texts are the canonical JSON the ledger stored (their digests are their fingerprints).
#[derive(Clone, Copy, Debug)]
pub struct StoredTask<'a> {
    pub id: &'a str,
    pub state: State,
    /// The approval round (0 when no approval was ever requested).
    pub round: i64,
    pub fence: i64,
    /// The current round's approval id.
    pub approval_id: Option<&'a str>,
    /// When the task began awaiting its current decision.
    pub round_started_at: i64,
    pub lease_until: Option<i64>,
    /// The action's digest as stored, and the action's text.
    pub action_digest: Digest,
    pub action: &'a str,
    /// The model's proposal, once a reviewer amended it (digest and text).
    pub proposed_digest: Option<Digest>,
    pub proposed_action: Option<&'a str>,
    pub amendments: i64,
    /// The current round's approval record, once decided.
    pub approval: Option<&'a str>,
    /// How that decision was proven: `{"proof", "signer", "verified_at"}`, canonical.
    pub proof: Option<&'a str>,
    pub revoked_at: Option<i64>,
    /// The business system's answer.
    pub result: Option<&'a str>,
    /// The digest of the event the row names as the task's last (`None`: it names none, or
    /// one that is missing or about another task).
    pub last_event: Option<Digest>,
}

/// The ledger's proof policy as its row holds it.
#[derive(Clone, Copy, Debug)]
pub struct StoredPolicy<'a> {
    /// `optional` or `required`.
    pub proof: &'a str,
    pub changed_at: i64,
    pub changed_by: &'a str,
}

/// The decision recorded in a task's current round, as its `decided` event tells it.
#[derive(Clone, Debug)]
struct Decided {
    decision_id: String,
    decision: String,
    approver: String,
    decided_at: i64,
    expires_at: i64,
    proposed_digest: Option<Digest>,
    /// How it was proven, as the row keeps it (canonical), when the event says (a decision
    /// proven by a ledger that kept it on the row: its event has `verified_at`).
    proof: Option<String>,
    /// The batch whose decision this is (issue 28), for an item of one: the item's record is
    /// the batch's.
    batch: Option<BatchDecided>,
}

/// The batch decision an item's `decided` event names: the batch's approval id and digest.
#[derive(Clone, Debug)]
struct BatchDecided {
    approval_id: String,
    digest: Digest,
}

/// Where an event is: its export line, chain and seq.
pub type Place = (i64, i64, i64);

/// What a task's events say about it so far.
#[derive(Clone, Debug)]
struct Replayed {
    state: State,
    round: i64,
    approval_id: Option<String>,
    fence: i64,
    lease_until: Option<i64>,
    round_started_at: i64,
    action_digest: Digest,
    proposed_digest: Option<Digest>,
    amendments: i64,
    decided: Option<Decided>,
    /// The last decision recorded in the current round under a quorum before the quorum was
    /// met (its `decided` event names `counted_as`); it becomes `decided` when it completes
    /// the quorum (`quorum_met`).
    member: Option<Decided>,
    revoked_at: Option<i64>,
    result_digest: Option<Digest>,
    /// The digest of its last event, and where that event is (export line, chain, seq).
    last: Digest,
    at: Place,
}

/// Every task's replay, fed the events of an audit in the order they were written, and the
/// ledger's proof policy as its last change left it (requirement, time, actor, where).
#[derive(Default)]
pub struct Replay {
    tasks: HashMap<String, Replayed>,
    policy: Option<(String, i64, String, Place)>,
    /// Every approval round, with the decisions of its members under a quorum.
    rounds: round_decisions::Rounds,
    /// Every batch and batch lineage (issue 28).
    batches: batches::Batches,
    scope: Scope,
}

/// Which events a replay is fed, and so what it can hold them to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    /// Every event of a ledger: a batch item's claims and outcomes are also held to its
    /// lineage, which the batch events made.
    #[default]
    Ledger,
    /// One task's events (an evidence bundle): the batch and lineage events are not among
    /// them, so an item's events are held to its task's own rules only.
    Task,
}

/// The policy of a ledger whose policy never changed.
const FIRST_POLICY: (&str, i64, &str) = ("optional", 0, "ledger");

/// A member of an object.
fn member<'v, 'a>(v: &'v Value<'a>, key: &str) -> Option<&'v Value<'a>> {
    v.as_object().and_then(|o| o.get(key))
}

fn integer(v: Option<&Value<'_>>) -> Option<i64> {
    match v {
        Some(Value::Number(n)) => n.as_safe_integer(),
        _ => None,
    }
}

/// A string member of an event's `detail`.
fn detail_str<'e>(e: &'e Event, key: &str) -> Option<&'e str> {
    member(&e.detail, key).and_then(Value::as_str)
}

fn detail_int(e: &Event, key: &str) -> Option<i64> {
    integer(member(&e.detail, key))
}

fn detail_digest(e: &Event, key: &str) -> Option<Digest> {
    detail_str(e, key).and_then(|s| s.parse().ok())
}

fn same(a: Option<Digest>, b: Option<Digest>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.ct_eq(&b),
        _ => false,
    }
}

impl EventKind {
    /// Whether events of this kind are about a task (the others are about the ledger).
    pub fn is_about_a_task(self) -> bool {
        !matches!(
            self,
            EventKind::AppendOnlyRestored
                | EventKind::ProofPolicyChanged
                | EventKind::RetentionChanged
        ) && !batches::is_about_a_batch(self)
    }
}

impl Replay {
    /// A replay that has seen no event.
    pub fn new() -> Replay {
        Replay::default()
    }

    /// A replay of one task's events, as an evidence bundle holds them: an item's events are
    /// held to its task's own rules only, its batch's events not being among them.
    pub fn of_task() -> Replay {
        Replay {
            scope: Scope::Task,
            ..Replay::default()
        }
    }

    /// Takes the next event of the audit (`digest` its sealed digest; `at` its export line,
    /// chain and seq, for reports): an error names the member where it does not follow from
    /// the task's events before it.
    pub fn apply(&mut self, e: &Event, digest: Digest, at: Place) -> Result<(), Mismatch> {
        let task = match (&e.task, e.kind.is_about_a_task()) {
            (Some(t), true) => t,
            (None, false) => return self.ledger_event(e, at),
            (t, _) => {
                return Err(Mismatch {
                    task: t.clone(),
                    field: "task",
                })
            }
        };
        let bad = |field| Mismatch {
            task: Some(task.clone()),
            field,
        };
        match self.tasks.get_mut(task.as_str()) {
            None if e.kind == EventKind::Proposed => {
                let t = proposed(e, task, digest, at).map_err(bad)?;
                let round = t.approval_id.as_deref();
                self.rounds.apply(task, round, e, at).map_err(bad)?;
                self.tasks.insert(task.clone(), t);
                Ok(())
            }
            None => Err(bad("kind")),
            Some(t) => {
                step(t, e, task).map_err(bad)?;
                t.last = digest;
                t.at = at;
                let round = t.approval_id.as_deref();
                self.rounds.apply(task, round, e, at).map_err(bad)?;
                // An item's claim or outcome moves its batch lineage's totals or breaker.
                match self.scope {
                    Scope::Ledger => self.batches.lineage_changed(e, at).map_err(bad),
                    Scope::Task => Ok(()),
                }
            }
        }
    }

    /// An event about the ledger: a policy change must change the policy its last change left.
    fn ledger_event(&mut self, e: &Event, at: Place) -> Result<(), Mismatch> {
        if batches::is_about_a_batch(e.kind) {
            self.batches.apply(e, at)?;
            // A member's decision of a batch's round under a quorum takes its place there.
            if e.kind == EventKind::BatchDecided {
                let batch = detail_str(e, "batch_id").unwrap_or_default();
                let bad = |field| Mismatch {
                    task: Some(batch.to_owned()),
                    field,
                };
                let round = detail_str(e, "approval_id");
                self.rounds.apply(batch, round, e, at).map_err(bad)?;
            }
            return Ok(());
        }
        if e.kind != EventKind::ProofPolicyChanged {
            return Ok(());
        }
        let bad = |field| Mismatch { task: None, field };
        let before = self
            .policy
            .as_ref()
            .map_or(FIRST_POLICY.0, |p| p.0.as_str());
        if detail_str(e, "from") != Some(before) {
            return Err(bad("detail/from"));
        }
        let to = detail_str(e, "to").ok_or(bad("detail/to"))?;
        if e.outcome.as_deref() != Some(to) {
            return Err(bad("outcome"));
        }
        self.policy = Some((to.to_owned(), e.at, e.actor.clone(), at));
        Ok(())
    }

    /// Holds the ledger's policy row to its last change (or, with none, to the first policy):
    /// the mismatch, with where that change is (`None`: the row holds).
    pub fn compare_policy(&self, row: &StoredPolicy<'_>) -> Option<(Mismatch, Option<Place>)> {
        let (want, at) = match &self.policy {
            Some((p, t, by, at)) => ((p.as_str(), *t, by.as_str()), Some(*at)),
            None => (FIRST_POLICY, None),
        };
        let field = if row.proof != want.0 {
            "proof"
        } else if row.changed_at != want.1 {
            "changed_at"
        } else if row.changed_by != want.2 {
            "changed_by"
        } else {
            return None;
        };
        Some((Mismatch { task: None, field }, at))
    }

    /// Holds every row to its task's replay: the first mismatch in the order of the tasks'
    /// last events (with where that event is: line, chain, seq). A task with events and no
    /// row is a mismatch at `id`; a row without events, at `last_event`.
    pub fn compare(&self, rows: &[StoredTask<'_>]) -> Option<(Mismatch, Place)> {
        let mut first: Option<(Mismatch, Place)> = None;
        let mut keep = |m: Mismatch, at: Place| {
            if first.as_ref().is_none_or(|(_, f)| at.0 < f.0) {
                first = Some((m, at));
            }
        };
        for row in rows {
            let Some(t) = self.tasks.get(row.id) else {
                let chain = crate::model::ledger::event::chain_of(Some(row.id));
                keep(
                    Mismatch {
                        task: Some(row.id.to_owned()),
                        field: "last_event",
                    },
                    (i64::MAX, chain, 0),
                );
                continue;
            };
            if let Some(field) = differs(t, row) {
                keep(
                    Mismatch {
                        task: Some(row.id.to_owned()),
                        field,
                    },
                    t.at,
                );
            }
        }
        let ids: HashSet<&str> = rows.iter().map(|r| r.id).collect();
        for (id, t) in &self.tasks {
            if !ids.contains(id.as_str()) {
                keep(
                    Mismatch {
                        task: Some(id.clone()),
                        field: "id",
                    },
                    t.at,
                );
            }
        }
        first
    }

    /// Holds every row of the rounds' decisions under a quorum to their `decided` events (see
    /// [`StoredDecision`]): the first mismatch in line order, with where it is.
    pub fn compare_decisions(&self, rows: &[StoredDecision<'_>]) -> Option<(Mismatch, Place)> {
        self.rounds
            .compare(rows, |task| self.tasks.get(task).map(|t| t.at))
    }

    /// Holds every batch and batch lineage row to their events (see [`StoredBatch`]): the
    /// first mismatch in line order, with where it is; the mismatch names the batch or
    /// lineage id as its `task`, and `batches/...` or `lineages/...` as its field.
    pub fn compare_batches(
        &self,
        batches: &[StoredBatch<'_>],
        lineages: &[StoredLineage<'_>],
    ) -> Option<(Mismatch, Place)> {
        self.batches.compare(batches, lineages)
    }
}

/// A task as its `proposed` event (sealed as `digest`, found `at`) creates it.
fn proposed(e: &Event, task: &str, digest: Digest, at: Place) -> Result<Replayed, &'static str> {
    let (tenant, job, request) = (
        e.tenant.as_str(),
        detail_str(e, "job_id").ok_or("detail/job_id")?,
        detail_str(e, "request_id").ok_or("detail/request_id")?,
    );
    if task_id(tenant, job, request) != task {
        return Err("task");
    }
    let (state, round) = match member(&e.detail, "approval_required") {
        Some(Value::Bool(true)) => (State::AwaitingApproval, 1),
        Some(Value::Bool(false)) => (State::Approved, 0),
        _ => return Err("detail/approval_required"),
    };
    if e.state != Some(state) {
        return Err("state");
    }
    let apr = (round > 0).then(|| approval_id(task, round));
    if detail_str(e, "approval_id") != apr.as_deref() {
        return Err("detail/approval_id");
    }
    if e.fence.is_some() {
        return Err("fence");
    }
    Ok(Replayed {
        state,
        round,
        approval_id: apr,
        fence: 0,
        lease_until: None,
        round_started_at: e.at,
        action_digest: e.action_digest.ok_or("action_digest")?,
        proposed_digest: None,
        amendments: 0,
        decided: None,
        member: None,
        revoked_at: None,
        result_digest: None,
        last: digest,
        at,
    })
}

/// The transition an event records, checked against the task's replay so far and applied.
fn step(t: &mut Replayed, e: &Event, task: &str) -> Result<(), &'static str> {
    use EventKind::*;
    let snapshot = Snapshot {
        state: t.state,
        fence: t.fence,
        lease_until: t.lease_until,
    };
    // The state an operation moves the task to, by core's rules; the event must say it.
    let moved = |op: Op| -> Result<State, &'static str> {
        match next(&snapshot, op, e.at) {
            Ok(s) if e.state == Some(s) => Ok(s),
            _ => Err("state"),
        }
    };
    let outcome = e.outcome.as_deref().unwrap_or("");
    match e.kind {
        Proposed => return Err("kind"),
        // Refusals, repeats and exports change nothing.
        ProposeDuplicate | ProposeRefused | DecisionDuplicate | DecisionRefused | ClaimRefused
        | CompleteRefused | ReconcileRefused | AmendDuplicate | AmendRefused | EvidenceExported
        | Shredded => {
            if e.state != Some(t.state) {
                return Err("state");
            }
        }
        Amended => {
            moved(Op::Amend)?;
            if detail_digest(e, "amends").is_some_and(|d| !d.ct_eq(&t.action_digest)) {
                return Err("detail/amends");
            }
            t.proposed_digest.get_or_insert(t.action_digest);
            // Under a quorum an amendment starts a new round: its members decide again.
            let apr = approval_id(task, t.round + 1);
            if detail_str(e, "approval_id") == Some(apr.as_str()) {
                t.round += 1;
                t.approval_id = Some(apr);
                t.member = None;
                t.revoked_at = None;
            }
            // The action to decide about changed: its round begins again.
            t.round_started_at = e.at;
            t.action_digest = e.action_digest.ok_or("action_digest")?;
            t.amendments += 1;
        }
        Decided => {
            let decision = Decision::parse(outcome).map_err(|_| "outcome")?;
            // A member of a round under a quorum that did not veto it: the task still awaits
            // the rest of the round, in a first round or a re-approval's (the member that meets
            // it too: its quorum_met approves). A ledger before 2026-12-06 recorded that member
            // of a re-approval's round as awaiting approval.
            let counted = member(&e.detail, "counted_as").is_some();
            let met_as_written_before =
                t.state == State::AwaitingReapproval && e.state == Some(State::AwaitingApproval);
            let pending = counted && (e.state == Some(t.state) || met_as_written_before);
            if pending {
                if next(&snapshot, Op::Decide(decision), e.at).is_err() {
                    return Err("state");
                }
            } else {
                t.state = moved(Op::Decide(decision))?;
            }
            if detail_str(e, "approval_id") != t.approval_id.as_deref() {
                return Err("detail/approval_id");
            }
            if !same(e.action_digest, Some(t.action_digest)) {
                return Err("action_digest");
            }
            let decided = decided_of(e, outcome)?;
            if pending {
                t.member = Some(decided);
            } else {
                t.decided = Some(decided);
            }
        }
        QuorumMet => {
            t.state = moved(Op::Decide(Decision::Approved))?;
            if detail_str(e, "approval_id") != t.approval_id.as_deref() {
                return Err("detail/approval_id");
            }
            let last = t.member.take().ok_or("kind")?;
            if e.decision_id.as_deref() != Some(last.decision_id.as_str()) {
                return Err("decision_id");
            }
            t.decided = Some(last);
        }
        Claimed => {
            t.state = moved(Op::ClaimPermit)?;
            if e.fence != Some(t.fence + 1) {
                return Err("fence");
            }
            t.fence += 1;
            t.lease_until = Some(detail_int(e, "lease_until").ok_or("detail/lease_until")?);
        }
        ToolArgsDrift => t.state = moved(Op::ClaimDrift)?,
        SentToReapproval => {
            t.state = moved(Op::ClaimReapprove)?;
            t.round += 1;
            let apr = approval_id(task, t.round);
            if detail_str(e, "approval_id") != Some(apr.as_str()) {
                return Err("detail/approval_id");
            }
            t.approval_id = Some(apr);
            t.round_started_at = e.at;
            t.decided = None;
            t.member = None;
            t.revoked_at = None;
        }
        RejectedPreDispatch => t.state = moved(Op::ClaimReject)?,
        // Deselected from its batch by the reviewer: rejected with the batch's decision.
        Deselected => t.state = moved(Op::Decide(Decision::Rejected))?,
        Completed => {
            let reported = Reported::parse(outcome).map_err(|_| "outcome")?;
            let fence = e.fence.ok_or("fence")?;
            t.state = moved(Op::Complete { fence, reported })?;
            t.lease_until = None;
            if let Some(d) = detail_digest(e, "result_digest") {
                t.result_digest = Some(d);
            }
        }
        LeaseExpired => {
            t.state = moved(Op::ExpireLease)?;
            if !snapshot.lease_expired(e.at) {
                return Err("at");
            }
            t.lease_until = None;
        }
        Reconciled => {
            let observed = Observed::parse(outcome).map_err(|_| "outcome")?;
            t.state = moved(Op::Reconcile(observed))?;
            if let Some(d) = detail_digest(e, "result_digest") {
                t.result_digest = Some(d);
            }
        }
        Revoked => {
            if e.state != Some(t.state) {
                return Err("state");
            }
            let apr = detail_str(e, "approval_id").ok_or("detail/approval_id")?;
            if t.approval_id.as_deref() == Some(apr) {
                t.revoked_at = Some(e.at);
            }
        }
        AppendOnlyRestored
        | ProofPolicyChanged
        | RetentionChanged
        | BatchProposed
        | BatchProposeDuplicate
        | BatchAmended
        | BatchAmendRefused
        | BatchDecided
        | BatchDecisionDuplicate
        | BatchDecisionRefused
        | BatchClaimRefused
        | BreakerTripped
        | BreakerHalfOpened
        | BreakerClosed => return Err("task"),
    }
    Ok(())
}

/// The decision a `decided` event records.
fn decided_of(e: &Event, outcome: &str) -> Result<Decided, &'static str> {
    Ok(Decided {
        decision_id: e.decision_id.clone().ok_or("decision_id")?,
        decision: outcome.to_owned(),
        approver: detail_str(e, "approver")
            .ok_or("detail/approver")?
            .to_owned(),
        decided_at: detail_int(e, "decided_at").ok_or("detail/decided_at")?,
        expires_at: detail_int(e, "expires_at").ok_or("detail/expires_at")?,
        proposed_digest: detail_digest(e, "proposed_digest"),
        proof: proof_of(e),
        batch: match (
            detail_str(e, "batch_approval_id"),
            detail_digest(e, "batch_digest"),
        ) {
            (Some(approval_id), Some(digest)) => Some(BatchDecided {
                approval_id: approval_id.to_owned(),
                digest,
            }),
            (None, None) => None,
            _ => return Err("detail/batch_digest"),
        },
    })
}

/// The first column of `row` that is not what the replay `t` ends at.
fn differs(t: &Replayed, row: &StoredTask<'_>) -> Option<&'static str> {
    let text_is =
        |text: Option<&str>, d: Option<Digest>| same(text.map(|s| Digest::of(s.as_bytes())), d);
    let checks: [(&'static str, bool); 16] = [
        ("state", row.state == t.state),
        ("round", row.round == t.round),
        ("approval_id", row.approval_id == t.approval_id.as_deref()),
        ("fence", row.fence == t.fence),
        ("lease_until", row.lease_until == t.lease_until),
        ("action_digest", row.action_digest.ct_eq(&t.action_digest)),
        ("action", text_is(Some(row.action), Some(t.action_digest))),
        (
            "proposed_digest",
            same(row.proposed_digest, t.proposed_digest),
        ),
        (
            "proposed_action",
            text_is(row.proposed_action, t.proposed_digest),
        ),
        ("amendments", row.amendments == t.amendments),
        // An upgraded ledger began its rounds when it was upgraded, later than their events
        // say; a round moved earlier would admit decisions dated before it.
        (
            "round_started_at",
            row.round_started_at >= t.round_started_at,
        ),
        ("approval", approval_holds(row.approval, t)),
        (
            "proof",
            row.proof == t.decided.as_ref().and_then(|d| d.proof.as_deref()),
        ),
        ("revoked_at", row.revoked_at == t.revoked_at),
        ("result", text_is(row.result, t.result_digest)),
        ("last_event", same(row.last_event, Some(t.last))),
    ];
    checks.iter().find(|(_, ok)| !ok).map(|(field, _)| *field)
}

/// How a `decided` event's decision was proven, as the ledger keeps it on the row: its
/// `proof`, `signer` and `verified_at`, canonical; `None` for a bare decision, or one recorded
/// before the ledger kept proofs on the row (its event has no `verified_at`).
fn proof_of(e: &Event) -> Option<String> {
    let verified_at = member(&e.detail, "verified_at")?;
    let entries = ["proof", "signer"]
        .into_iter()
        .map(|k| (k, member(&e.detail, k).cloned().unwrap_or(Value::Null)))
        .chain([("verified_at", verified_at.clone())])
        .map(|(k, v)| (std::borrow::Cow::Borrowed(k), v))
        .collect();
    let v = Value::Object(crate::Object::from_entries(entries).ok()?);
    Some(crate::canonicalize(&v))
}

/// Whether the row's approval record is the decision of the task's current round: present
/// only once decided, and holding that decision, its times and the digests it was about.
fn approval_holds(record: Option<&str>, t: &Replayed) -> bool {
    let (record, d) = match (record, &t.decided) {
        (None, None) => return true,
        (Some(r), Some(d)) => (r, d),
        _ => return false,
    };
    let Ok(v) = crate::parse(record.as_bytes(), &crate::Options::default()) else {
        return false;
    };
    let text = |key| member(&v, key).and_then(Value::as_str);
    let int = |key| integer(member(&v, key));
    let digest = |key| text(key).and_then(|s| s.parse::<Digest>().ok());
    // An item's record is its batch's decision, over the batch's digest.
    let (approval_id, key, digest_is) = match &d.batch {
        Some(b) => (Some(b.approval_id.as_str()), "batch_digest", b.digest),
        None => (t.approval_id.as_deref(), "action_digest", t.action_digest),
    };
    text("approval_id") == approval_id
        && text("decision_id") == Some(d.decision_id.as_str())
        && text("decision") == Some(d.decision.as_str())
        && text("approver") == Some(d.approver.as_str())
        && int("decided_at") == Some(d.decided_at)
        && int("expires_at") == Some(d.expires_at)
        && same(digest(key), Some(digest_is))
        && same(digest("proposed_digest"), d.proposed_digest)
}

#[cfg(test)]
mod tests;
