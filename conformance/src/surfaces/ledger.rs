//! The ledger's data shapes, for the Node declarations and the Python stub (the wasm build has
//! no ledger): the requests the Node `Ledger` takes, the decision envelope and the claim's
//! facts, and everything a ledger returns. `ledger_probes.rs` holds them to the ledger.

use super::shape_types::{field, Field, Shape, Ty};
use super::shapes::shapes as model_shapes;
use actionseal_core::ledger::{AtFinish, EventKind, Observed, Reported, State};
use actionseal_core::ProofRequirement;

/// A union of string literals: its name, its doc, its members.
pub struct Union {
    pub name: &'static str,
    pub doc: &'static str,
    pub members: Vec<&'static str>,
}

/// What a claim's `result` says, in the order a claim decides.
const CLAIM_RESULTS: [&str; 4] = [
    "claimed",
    "tool_args_drift",
    "awaiting_reapproval",
    "rejected_pre_dispatch",
];

fn problems_of_audits() -> Vec<&'static str> {
    use actionseal_core::ledger::Problem::*;
    // A match, so that a new problem does not go unnamed here.
    [
        Malformed,
        DigestMismatch,
        SeqGap,
        PrevMismatch,
        HeadMismatch,
        InvalidTransition,
        RowMismatch,
        Truncated,
        Resealed,
    ]
    .into_iter()
    .map(|p| match p {
        Malformed | DigestMismatch | SeqGap | PrevMismatch | HeadMismatch | InvalidTransition
        | RowMismatch | Truncated | Resealed => p.as_str(),
    })
    .collect()
}

/// The ledger's unions, from core.
pub fn unions() -> Vec<Union> {
    vec![
        Union {
            name: "TaskState",
            doc: "Where a task is in its life (the transitions are in core/src/model/ledger/state.rs).",
            members: State::ALL.iter().map(|s| s.as_str()).collect(),
        },
        Union {
            name: "ClaimResult",
            doc: "What a claim did: only `claimed` means dispatch.",
            members: CLAIM_RESULTS.to_vec(),
        },
        Union {
            name: "ReportedOutcome",
            doc: "What an executor reports when it completes a claim (`unknown`: reconcile later, never retry).",
            members: Reported::ALL.iter().map(|r| r.as_str()).collect(),
        },
        Union {
            name: "ObservedOutcome",
            doc: "What the business system answered about a task in doubt.",
            members: Observed::ALL.iter().map(|o| o.as_str()).collect(),
        },
        Union {
            name: "ProofRequirement",
            doc: "Whether decisions must carry proof of who decided: a signed envelope or a passkey-approved record.",
            members: ProofRequirement::ALL.iter().map(|r| r.as_str()).collect(),
        },
        Union {
            name: "EventKind",
            doc: "What an audit event records.",
            members: EventKind::ALL.iter().map(|k| k.as_str()).collect(),
        },
        Union {
            name: "WaitOutcome",
            doc: "How a wait ended: the task reached a state waited for, or the timeout passed first.",
            members: vec!["reached", "timed_out"],
        },
        Union {
            name: "AuditProblem",
            doc: "Why an audit chain breaks.",
            members: problems_of_audits(),
        },
    ]
}

/// The names of a retention policy's modes at a task's finish, from core.
fn at_finish() -> Vec<&'static str> {
    AtFinish::ALL.iter().map(|a| a.as_str()).collect()
}

fn optional(f: Field) -> Field {
    Field {
        optional: true,
        ..f
    }
}

fn nullable(t: Ty) -> Ty {
    Ty::Nullable(Box::new(t))
}

fn list(t: Ty) -> Ty {
    Ty::List(Box::new(t))
}

fn input(name: &'static str, doc: &'static str, fields: Vec<Field>) -> Shape {
    Shape {
        name,
        doc,
        extends: None,
        fields,
        output: false,
    }
}

fn output(name: &'static str, doc: &'static str, fields: Vec<Field>) -> Shape {
    Shape {
        output: true,
        ..input(name, doc, fields)
    }
}

/// The ledger's shapes, its batch shapes ([`super::ledger_batch`]) last, in declaration order.
pub fn shapes() -> Vec<Shape> {
    let mut all = task_shapes();
    all.extend(super::ledger_batch::shapes());
    all
}

/// The ledger's task shapes, in declaration order.
fn task_shapes() -> Vec<Shape> {
    use Ty::*;
    vec![
        input("TaskIdentity", "A task's identity, from which its id is derived: a framework's run or thread is the job, its tool call id the request.", vec![
            field("tenant", Identity, ""),
            field("job_id", Identity, ""),
            field("request_id", Identity, ""),
        ]),
        input("ProposeRequest", "What `propose` takes.", vec![
            field("action", Shape("ActionEnvelope"), "The action envelope the reviewer will see."),
            field("contract", Ty::Contract, "The contract it was made under: a `Contract` or its document."),
            field("proposer", Identity, "Who proposes it (the agent)."),
        ]),
        input("AmendRequest", "What `amend` takes: a reviewer's edit of a task awaiting a decision.", vec![
            field("task_id", Identity, ""),
            field("amends", Digest, "The digest of the action the reviewer edited: applied only if the task still holds it."),
            field("action", Shape("ActionEnvelope"), "The whole envelope with the new arguments; nothing else may change."),
            field("reviewer", Identity, "Who amended it (a trusted reviewer, never the model)."),
            field("reason", Str, "Why, in the reviewer's words (at most 1,000 characters; the audit keeps its digest)."),
            field("contract", Ty::Contract, "The task's contract as the server holds it: a `Contract` or its document."),
        ]),
        input("DecisionEnvelope", "A reviewer's decision about one task's frozen action (seed 003); times in integer milliseconds since the epoch.", vec![
            field("approval_id", Identity, "The task's current approval round (`LedgerTask.approval_id`)."),
            field("decision_id", Identity, "Identity of the decision callback: repeated deliveries carry the same one."),
            field("job_id", Identity, ""),
            field("request_id", Identity, ""),
            field("action_digest", Digest, "The fingerprint of the action the reviewer saw: the task's `action_digest`."),
            field("decision", OneOf(vec!["approved", "rejected"]), ""),
            field("approver", Identity, ""),
            field("decided_at", Millis, ""),
            field("expires_at", Millis, "When the decision stops holding; after `decided_at`."),
        ]),
        input("ClaimFacts", "What only the executor's server knows at dispatch; `now`, `revoked`, `proposer` and `amended_by` come from the ledger, never from the caller.", vec![
            field("tenant", Identity, ""),
            field("policy_version", Identity, "The policy version now in force."),
            field("contract", nullable(Shape("ContractDocument")), "The tool's current contract document (`contract.document` of a `Contract`); `null` when the server has none."),
            field("approver_authorized", nullable(Either(vec![Shape("ApproverFact"), list(Shape("ApproverFact"))])), "Whether the stored approval's approver may still approve (under a quorum, one fact per counting identity of the round)."),
            field("subject_authorized", Shape("SubjectFact"), "Whether the action's subject may still perform it."),
            optional(field("approver_roles", list(Shape("RoleFact")), "Who holds which role, for a quorum's roles.")),
            optional(field("delegations_revoked", list(Shape("DelegationRevokedFact")), "Whether each link of each delegation chain was revoked, by its digest; a link without a fact is refused.")),
        ]),
        input("ClaimRequest", "What `claim` takes.", vec![
            field("task_id", Identity, ""),
            field("action", Shape("ActionEnvelope"), "The action the executor is about to dispatch."),
            field("facts", Shape("ClaimFacts"), ""),
            field("executor", Identity, "Who claims."),
            field("lease_ms", Int, "How long the claim holds: complete before it runs out, or the task becomes `unknown`."),
            optional(field("budget", nullable(Identity), "The budget account to reserve the contract's cost on.")),
            optional(field("proof", nullable(Shape("ProofRequirement")), "The least the claim requires of the task's decision (`null` or left out: `optional`); the ledger's policy may require more. With `required`, a task whose decision was recorded without proof is refused (`missing_proof`), unchanged.")),
        ]),
        input("CompleteRequest", "What `complete` takes.", vec![
            field("task_id", Identity, ""),
            field("fence", Int, "The claim's fence token."),
            field("outcome", Shape("ReportedOutcome"), ""),
            field("executor", Identity, ""),
            optional(field("result", Unknown, "What the business system answered (only its digest goes into the audit).")),
        ]),
        input("ReconcileRequest", "What `reconcile` takes.", vec![
            field("task_id", Identity, ""),
            field("observed", Shape("ObservedOutcome"), ""),
            field("actor", Identity, "Who reconciles."),
            optional(field("result", Unknown, "What the business system answered.")),
        ]),
        input("RevokeRequest", "What `revoke` takes.", vec![
            field("approval_id", Identity, ""),
            field("actor", Identity, ""),
        ]),
        input("RedactRequest", "What `redact` takes (issue 29).", vec![
            field("task_id", Identity, ""),
            field("actor", Identity, "Who asks (kept in the audit)."),
        ]),
        input("RetentionRequest", "What `setRetention` takes: how long a tenant keeps its sensitive values of a class, and whether they go when their task finishes.", vec![
            field("tenant", Identity, ""),
            field("class", Str, "A class the contracts' `sensitive` member names (1 to 64 lowercase letters, digits or `_`, starting with a letter)."),
            field("keep_ms", nullable(Int), "How long after the proposal (ms); `null`: until redacted. Required, so that values are never kept forever by omission."),
            field("at_finish", OneOf(at_finish()), "What happens to them when their task succeeds, fails or is rejected."),
            field("actor", Identity, "Who sets it."),
        ]),
        input("BudgetLimit", "What `setBudget` takes.", vec![
            field("name", Identity, ""),
            field("limit_minor", Int, "The most that may be spent, in minor units."),
        ]),
        input("SetProofRequirementRequest", "What `setProofRequirement` takes: an explicit, audited change of the ledger's proof requirement, for every handle on its database.", vec![
            field("proof", Shape("ProofRequirement"), ""),
            field("actor", Identity, "Who changes it."),
            field("reason", Str, "Why (1 to 1,000 characters; kept in the audit, so never argument values)."),
        ]),
        input("TaskFilter", "Which tasks `tasks` lists (a member left out or `null`: any).", vec![
            optional(field("state", nullable(Shape("TaskState")), "")),
            optional(field("tenant", nullable(Identity), "")),
            optional(field("since", nullable(Millis), "Proposed at or after this time (for the audit, an event's time).")),
            optional(field("until", nullable(Millis), "Proposed before this time (exclusive).")),
        ]),
        input("PageQuery", "What `tasksPage` and `auditExportPage` take: a `TaskFilter` read a page at a time.", vec![
            optional(field("state", nullable(Shape("TaskState")), "")),
            optional(field("tenant", nullable(Identity), "")),
            optional(field("since", nullable(Millis), "Proposed at or after this time (for the audit, an event's time).")),
            optional(field("until", nullable(Millis), "Proposed before this time (exclusive).")),
            optional(field("limit", nullable(Int), "At most this many (from 1; left out: all that follow).")),
            optional(field("after", nullable(Str), "The `next` of the previous page of the same read (left out: the first page).")),
        ]),
        input("WaitRequest", "What `wait` takes.", vec![
            field("task_id", Identity, ""),
            field("states", list(Shape("TaskState")), "The states waited for (at least one)."),
            field("timeout_ms", Int, "The longest to wait, in ms (0: read once)."),
        ]),
        input("ChangesRequest", "What `changes` takes (a member left out or `null`: its default).", vec![
            optional(field("after", nullable(Str), "The `cursor` a previous read returned (default: the beginning).")),
            optional(field("limit", nullable(Int), "The most changes to return, 1 to 1000 (default 100).")),
            optional(field("timeout_ms", nullable(Int), "How long to wait for at least one change, in ms (default: not waiting).")),
        ]),
        output("LedgerTask", "A task: one proposed action and everything the ledger knows about it.", vec![
            field("id", Str, "`task_` and 32 hex digits, derived from (tenant, job_id, request_id)."),
            field("tenant", Str, ""),
            field("job_id", Str, ""),
            field("request_id", Str, ""),
            field("state", Shape("TaskState"), ""),
            field("action", Shape("ActionEnvelope"), "The frozen action: what the reviewer decides about and what a claim must present."),
            field("action_digest", Digest, ""),
            field("proposed_action", Shape("ActionEnvelope"), "The action as the model proposed it (equal to `action` unless a reviewer amended it)."),
            field("proposed_digest", Digest, ""),
            field("amendments", Int, "How many times a reviewer amended the action."),
            field("amended_pointers", list(Str), "JSON Pointers of the arguments where `action` differs from `proposed_action`."),
            field("approval_required", Bool, "Whether its contract asked for a person's approval when it was proposed."),
            field("approval_id", nullable(Str), "The current approval round: the one a decision must name."),
            field("approval", nullable(Either(vec![Shape("ApprovalRecord"), Shape("BatchDecisionRecord")])), "The current approval record, once decided (for a batch's item, the batch's)."),
            field("proof", nullable(Shape("DecisionProof")), "How the current decision was proven, when it carried proof."),
            field("round_started_at", Millis, "When the task began awaiting its current decision (its proposal, re-approval or last amendment): a decision is dated between it and its arrival."),
            field("idempotency_key", Str, "The business idempotency key: one value for the task's whole life."),
            field("proposer", Str, ""),
            field("fence", Int, "The current fence token (0 before the first claim)."),
            field("executor", nullable(Str), "The executor of the current or last claim."),
            field("lease_until", nullable(Millis), "When the current claim's lease runs out."),
            field("budget", nullable(Str), "The budget account of the current claim."),
            field("reserved_minor", Int, "Minor units the current claim holds on that budget."),
            field("result", Unknown, "What the business system answered (`null`: nothing yet)."),
            field("created_at", Millis, ""),
            field("updated_at", Millis, ""),
            optional(field("quorum", Shape("QuorumState"), "Where the current round stands, when the task's contract needs a quorum: who counted and what is still missing.")),
        ]),
        output("AmendmentRecord", "One recorded amendment.", vec![
            field("task_id", Str, ""),
            field("n", Int, "1 for the task's first amendment, one more for each after it."),
            field("amends", Digest, "The digest of the action it replaced."),
            field("action", Shape("ActionEnvelope"), "The amended action."),
            field("action_digest", Digest, ""),
            field("reviewer", Str, ""),
            field("reason", Str, ""),
            field("at", Millis, ""),
        ]),
        output("Amended", "What `amend` returns.", vec![
            field("task", Shape("LedgerTask"), "The task after the amendment."),
            field("amendment", nullable(Shape("AmendmentRecord")), "The amendment that set the task's action (`null` for a duplicate of an action never amended)."),
            field("duplicate", Bool, "Whether the task already held this action (nothing changed)."),
        ]),
        output("Decided", "What `decide` returns.", vec![
            field("task", Shape("LedgerTask"), "The task after the decision."),
            field("decision", Shape("DecisionEnvelope"), "The decision as recorded."),
            field("duplicate", Bool, "Whether this delivery repeated a recorded decision (nothing changed)."),
            field("signer", nullable(Either(vec![Shape("ServiceSigner"), Shape("PasskeySigner")])), "Who signed this delivery, when it carried proof (a signed envelope or a passkey-approved record); `null` for a bare decision envelope."),
        ]),
        output("Claim", "A won claim: dispatch `action` with `idempotency_key`, then complete with `fence`.", vec![
            field("task_id", Str, ""),
            field("fence", Int, ""),
            field("idempotency_key", Str, ""),
            field("lease_until", Millis, ""),
            field("executor", Str, ""),
            field("action", Shape("ActionEnvelope"), "The exact approved action to dispatch."),
            field("approval", nullable(Either(vec![Shape("ApprovalRecord"), Shape("BatchDecisionRecord")])), "The approval record the claim was checked against (`null` for a tool that needs no approval; for a batch's item, the batch's): verify it before dispatching."),
            field("proof", nullable(Shape("ClaimedProof")), "That record's decision as it was proven (`null` for a bare decision)."),
            optional(field("item", Shape("BatchItem"), "For a batch's item: its frozen action and inclusion proof, to verify against the batch's record.")),
            optional(field("revealed", Shape("ActionEnvelope"), "Under a contract that marks values sensitive: `action` with its values in place, each checked against its commitment, to run the call with (`action` keeps the commitments the approval binds).")),
        ]),
        output("DecisionProof", "How a task's decision was proven: the proof without its record, who signed, and the ledger's time at which the key was judged.", vec![
            field("proof", Object, "A signed envelope without its payload, or a passkey assertion."),
            field("signer", Either(vec![Shape("ServiceSigner"), Shape("PasskeySigner")]), ""),
            field("verified_at", Millis, "The ledger's clock when the decision arrived."),
        ]),
        output("ClaimedProof", "A claimed decision as it was proven, whole again: verify `proven` with the executor's key set at `verified_at` (`verifyProof`).", vec![
            field("proven", Either(vec![Shape("SignedEnvelope"), Shape("PasskeyApprovedRecord")]), "The signed envelope, or the passkey-approved record."),
            field("signer", Either(vec![Shape("ServiceSigner"), Shape("PasskeySigner")]), ""),
            field("verified_at", Millis, "The ledger's clock when the decision arrived, at which its key was judged."),
        ]),
        output("LedgerPolicy", "The ledger's policy, as its database records it for every handle.", vec![
            field("proof", Shape("ProofRequirement"), "Whether every decision must carry proof."),
            field("changed_at", Millis, "When it last changed (0: never)."),
            field("changed_by", Str, "Who changed it (`ledger`: a handle opened requiring proof)."),
        ]),
        output("ClaimOutcome", "What `claim` returns: drift, re-approval and rejection are outcomes, not errors.", vec![
            field("result", Shape("ClaimResult"), ""),
            field("claimed", Bool, "`result === 'claimed'`."),
            field("task", Shape("LedgerTask"), "The task after the claim."),
            field("claim", nullable(Shape("Claim")), "The claim, when it won."),
            field("verdict", nullable(Shape("Verdict")), "Why it did not win (reasons and drift pointers)."),
            field("approved_action", nullable(Shape("ActionEnvelope")), "On drift: the approved action, to resume with."),
        ]),
        output("Revocation", "What `revoke` returns.", vec![
            field("approval_id", Str, ""),
            field("task_id", Str, ""),
            field("revoked_at", Millis, ""),
            field("duplicate", Bool, "Whether it was revoked already (nothing changed)."),
        ]),
        output("Shredded", "What a shredding removed from one task: places and classes, never values.", vec![
            field("task_id", Str, ""),
            field("places", list(Object), "`{pointer, class}` of each disclosure shredded (empty: none was held)."),
        ]),
        output("RetentionPolicy", "A tenant's retention of a class of sensitive values.", vec![
            field("tenant", Str, ""),
            field("class", Str, ""),
            field("keep_ms", nullable(Int), "How long after the proposal (ms); `null`: until redacted."),
            field("at_finish", OneOf(at_finish()), ""),
            field("changed_at", Millis, ""),
            field("changed_by", Str, ""),
        ]),
        output("LedgerBudget", "A budget account, in minor units.", vec![
            field("name", Str, ""),
            field("limit_minor", Int, ""),
            field("spent_minor", Int, "Spent by succeeded claims."),
            field("reserved_minor", Int, "Held by claims whose outcome is not known yet."),
        ]),
        output("LedgerEvent", "An audit event: digests, identities and pointers, never argument values.", vec![
            field("chain", Int, ""),
            field("seq", Int, "Position in its chain, from 1, without gaps."),
            field("at", Millis, ""),
            field("tenant", Str, ""),
            field("task", nullable(Str), ""),
            field("kind", Shape("EventKind"), ""),
            field("actor", Str, ""),
            field("action_digest", nullable(Digest), ""),
            field("approved_digest", nullable(Digest), ""),
            field("decision_id", nullable(Str), ""),
            field("fence", nullable(Int), ""),
            field("outcome", nullable(Str), "The verdict's outcome, the reported or observed outcome, or the refusal's error code."),
            field("reasons", list(Str), ""),
            field("drift", list(Str), ""),
            field("state", nullable(Shape("TaskState")), "The task's state after the event."),
            field("detail", Object, "Identities and digests specific to the kind."),
            field("prev", nullable(Digest), "The previous event's digest in the chain."),
        ]),
        output("Waited", "What `wait` returns: a timeout is an outcome, not an error.", vec![
            field("outcome", Shape("WaitOutcome"), ""),
            field("task", Shape("LedgerTask"), "The task as read last."),
        ]),
        output("TaskChange", "One change of a task in the change feed: an audit event about it, never an argument value.", vec![
            field("event_id", Int, "The event's id: unique, not commit order across tasks."),
            field("task_id", Str, ""),
            field("kind", Shape("EventKind"), ""),
            field("state", nullable(Shape("TaskState")), "The task's state after the event."),
            field("at", Millis, ""),
        ]),
        output("ChangesRead", "What `changes` returns.", vec![
            field("changes", list(Shape("TaskChange")), "In id order, each task's in the order they happened."),
            field("cursor", Str, "Where the next read starts (the cursor given, when there were none): keep it as it is."),
        ]),
        output("TasksPage", "A page of tasks (`tasksPage`).", vec![
            field("tasks", list(Shape("LedgerTask")), "Oldest first."),
            field("next", nullable(Str), "The cursor of the following page; `null` when none follows."),
        ]),
        output("AuditPage", "A page of the audit export (`auditExportPage`).", vec![
            field("lines", list(Str), "Each an event as the export writes it, without its newline, in the export's order."),
            field("next", nullable(Str), "The cursor of the following page; `null` when none follows."),
        ]),
        output("LogCheckpoint", "A signed checkpoint of the ledger's Merkle log (`checkpoint`): keep `note` outside the database or have witnesses cosign it.", vec![
            field("size", Int, "How many events the tree holds."),
            field("root", Str, "The tree's root (RFC 9162), standard base64 as the note writes it."),
            field("note", Str, "The C2SP signed note: the checkpoint and the ledger's signature line, then any cosignatures."),
            field("at", Millis, "When it was made, by the ledger's clock."),
            field("cosignatures", list(Str), "The witnesses' cosignature lines kept with it, oldest first."),
        ]),
        output("TaskHistory", "What `history` returns.", vec![
            field("task", Shape("LedgerTask"), ""),
            field("events", list(Shape("LedgerEvent")), "The audit events about the task, in order."),
        ]),
        input("AuditHead", "The last event of an audit chain.", vec![
            field("chain", Int, ""),
            field("seq", Int, ""),
            field("digest", Digest, ""),
        ]),
        output("AuditBreak", "Where an audit breaks first.", vec![
            field("line", Int, "The line of the export, from 1."),
            field("chain", nullable(Int), ""),
            field("seq", nullable(Int), ""),
            field("problem", Shape("AuditProblem"), ""),
            field("task", nullable(Identity), "The task whose events (`invalid_transition`) or row (`row_mismatch`) broke."),
            field("field", nullable(Str), "The event's member or the row's column that broke."),
        ]),
        input("ExportedHeads", "The chains' heads exported to keep outside the database (`auditHeads`, `audit heads`), written as canonical JSON; verifying against them finds a chain truncated or sealed again since.", vec![
            field("version", Int, "The file's version: 1."),
            field("at", Millis, "The ledger's time when the heads were taken."),
            field("heads", list(Shape("AuditHead")), "The last event of every chain that had any."),
        ]),
        output("AuditReport", "What verifying an audit says.", vec![
            field("valid", Bool, ""),
            field("events", Int, "Events read before the first break."),
            field("heads", list(Shape("AuditHead")), "The last good event of each chain."),
            field("broken", nullable(Shape("AuditBreak")), ""),
        ]),
    ]
}

/// The model's shapes and the ledger's: what the Node declarations and the Python stub
/// describe (the wasm build has only the model's).
pub fn all_shapes() -> Vec<Shape> {
    let mut all = model_shapes();
    all.extend(shapes());
    all
}

/// Whether `name` is a union of string literals rather than an object shape.
pub(super) fn is_union(name: &str) -> bool {
    matches!(name, "ErrorCode" | "Reason" | "Outcome") || unions().iter().any(|u| u.name == name)
}
