//! The ledger's data shapes, for the Node declarations and the Python stub (the wasm build has
//! no ledger): the requests the Node `Ledger` takes, the decision envelope and the claim's
//! facts, and everything a ledger returns.
//!
//! Inputs are held to core's readers as the model's shapes are (a sample is accepted; every
//! field left out or retyped is refused). Outputs are held to what a real ledger writes: an
//! in-memory ledger runs every operation, and each result must have exactly the shape's
//! members, each of its type, every nullable member seen with a value at least once, and every
//! member of a union seen where the union says.

use super::shapes::{all_fields, field, shape, Field, Shape, Ty};
use actionseal_core::ledger::{
    self, request, DecisionEnvelope, EventKind, Observed, Reported, State,
};
use actionseal_core::{Action, Contract, ProofRequirement};
use actionseal_ledger::{Call, Ledger, LedgerOptions, ManualClock};
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

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
            name: "AuditProblem",
            doc: "Why an audit chain breaks.",
            members: problems_of_audits(),
        },
    ]
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

/// The ledger's shapes, in declaration order.
pub fn shapes() -> Vec<Shape> {
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
        input("ClaimFacts", "What only the executor's server knows at dispatch; `now` and `revoked` come from the ledger, never from the caller.", vec![
            field("tenant", Identity, ""),
            field("policy_version", Identity, "The policy version now in force."),
            field("contract", nullable(Shape("ContractDocument")), "The tool's current contract document (`contract.document` of a `Contract`); `null` when the server has none."),
            field("approver_authorized", nullable(Shape("ApproverFact")), "Whether the stored approval's approver may still approve."),
            field("subject_authorized", Shape("SubjectFact"), "Whether the action's subject may still perform it."),
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
            field("approval", nullable(Shape("ApprovalRecord")), "The current approval record, once decided."),
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
            field("approval", nullable(Shape("ApprovalRecord")), "The approval record the claim was checked against (`null` for a tool that needs no approval): verify it before dispatching."),
            field("proof", nullable(Shape("ClaimedProof")), "That record's decision as it was proven (`null` for a bare decision)."),
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

fn value(text: &Json) -> Result<actionseal_core::OwnedValue, String> {
    crate::decisions::core_value(&text.to_string()).map_err(|e| e.to_string())
}

/// Whether core's reader of the ledger input `name` accepts `v`; `None` for a name that is
/// not one.
pub fn core_accepts(name: &str, v: &Json) -> Option<Result<(), String>> {
    let value = match value(v) {
        Ok(x) => x,
        Err(e) => return Some(Err(e)),
    };
    let facts = |f: &actionseal_core::Value<'_>| ledger::context(f, 0, None).map(drop);
    let r = match name {
        "TaskIdentity" => request::TaskIdentity::from_value(&value).map(drop),
        "SetProofRequirementRequest" => request::SetProofRequirement::from_value(&value).map(drop),
        "ProposeRequest" => request::Propose::from_value(&value).and_then(|r| {
            Action::from_value(r.action)?;
            Contract::from_value(r.contract).map(drop)
        }),
        "AmendRequest" => request::Amend::from_value(&value).and_then(|r| {
            Action::from_value(&r.amendment.action)?;
            Contract::from_value(r.contract).map(drop)
        }),
        "DecisionEnvelope" => DecisionEnvelope::from_value(&value).map(drop),
        "ClaimFacts" => facts(&value),
        "ClaimRequest" => request::Claim::from_value(&value).and_then(|r| {
            Action::from_value(r.action)?;
            facts(r.facts)
        }),
        "CompleteRequest" => request::Complete::from_value(&value).map(drop),
        "ReconcileRequest" => request::Reconcile::from_value(&value).map(drop),
        "RevokeRequest" => request::Revoke::from_value(&value).map(drop),
        "BudgetLimit" => request::SetBudget::from_value(&value).map(drop),
        "TaskFilter" => request::Filter::from_value(&value).map(drop),
        "AuditHead" => request::heads(&super::probes::json_value(&format!("[{v}]"))).map(drop),
        "ExportedHeads" => ledger::ExportedHeads::from_value(&value).map(drop),
        _ => return None,
    };
    Some(r.map_err(|e| e.to_string()))
}

// ---------------------------------------------------------------------------------------
// Outputs

/// What the checks of the outputs saw.
#[derive(Default)]
struct Seen {
    /// (shape, field) seen with a value other than `null`.
    present: BTreeSet<(String, String)>,
    /// Union members seen.
    members: BTreeMap<String, BTreeSet<String>>,
}

fn conforms(
    all: &[Shape],
    ty: &Ty,
    v: &Json,
    at: &str,
    seen: &mut Seen,
    problems: &mut Vec<String>,
) {
    let mut bad =
        |what: &str| problems.push(format!("{at}: expected {what}, the ledger wrote {v}"));
    match ty {
        Ty::Str | Ty::Identity => {
            if !v.is_string() {
                bad("a string")
            }
        }
        Ty::Digest => {
            if v.as_str()
                .is_none_or(|s| s.parse::<actionseal_core::Digest>().is_err())
            {
                bad("a digest")
            }
        }
        Ty::Millis | Ty::Int => {
            if !v.is_i64() {
                bad("an integer")
            }
        }
        Ty::Bool => {
            if !v.is_boolean() {
                bad("a boolean")
            }
        }
        Ty::OneOf(m) => {
            if !v.as_str().is_some_and(|s| m.contains(&s)) {
                bad(&format!("one of {m:?}"))
            }
        }
        Ty::Object => {
            if !v.is_object() {
                bad("an object")
            }
        }
        Ty::Unknown => {}
        Ty::Nullable(t) => {
            if !v.is_null() {
                conforms(all, t, v, at, seen, problems)
            }
        }
        Ty::List(t) => match v.as_array() {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    conforms(all, t, item, &format!("{at}/{i}"), seen, problems);
                }
            }
            None => bad("a list"),
        },
        Ty::Shape(name) => {
            if let Some(u) = unions().into_iter().find(|u| u.name == *name) {
                match v.as_str() {
                    Some(s) if u.members.contains(&s) => {
                        seen.members
                            .entry(u.name.into())
                            .or_default()
                            .insert(s.into());
                    }
                    _ => bad(&format!("one of {name}")),
                }
                return;
            }
            if matches!(*name, "ErrorCode" | "Reason" | "Outcome") {
                if !v.is_string() {
                    bad("a string")
                }
                return;
            }
            let s = shape(all, name);
            let Some(obj) = v.as_object() else {
                return bad(&format!("a {name}"));
            };
            // An optional member the ledger left out is not described as written.
            let fields: Vec<_> = all_fields(all, s)
                .into_iter()
                .filter(|f| !f.optional || obj.contains_key(f.name))
                .collect();
            let mut want: Vec<&str> = fields.iter().map(|f| f.name).collect();
            let mut got: Vec<&str> = obj.keys().map(String::as_str).collect();
            want.sort_unstable();
            got.sort_unstable();
            if want != got {
                problems.push(format!(
                    "{at}: {name} has {want:?}, the ledger wrote {got:?}"
                ));
                return;
            }
            for f in fields {
                let x = &obj[f.name];
                if !x.is_null() {
                    seen.present.insert((name.to_string(), f.name.to_owned()));
                }
                conforms(all, &f.ty, x, &format!("{at}/{}", f.name), seen, problems);
            }
        }
        Ty::Map(t) => match v.as_object() {
            Some(m) => {
                for (k, item) in m {
                    conforms(all, t, item, &format!("{at}/{k}"), seen, problems);
                }
            }
            None => bad("an object"),
        },
        // One of the types: the first that fits without a problem.
        Ty::Either(tys) => {
            let fits = tys.iter().any(|t| {
                let mut trial = Vec::new();
                conforms(all, t, v, at, seen, &mut trial);
                trial.is_empty()
            });
            if !fits {
                bad("one of the alternatives")
            }
        }
        Ty::Contract | Ty::ContractOrDocument | Ty::ApprovalRule => bad("no contract in an output"),
    }
}

/// Runs every operation of an in-memory ledger; returns each result with the shape it must
/// have.
fn outputs() -> Result<Vec<(&'static str, Json)>, String> {
    let contract = json!({"tool": "refund_create", "version": "1", "effect": "write", "cost_minor": 25,
        "approval": "always", "args": {"type": "object", "properties": {"amount_minor": {"type": "integer"}}}});
    let loaded = Contract::from_value(&value(&contract)?).map_err(|e| e.to_string())?;
    let envelope = |job: &str, amount: i64| -> Result<Json, String> {
        let ids = json!({"tenant": "t", "subject": "user:s", "job_id": job, "request_id": "r", "policy_version": "p"});
        let ids = value(&ids)?;
        let ids = actionseal_core::ActionIds::from_value(&ids).map_err(|e| e.to_string())?;
        let a = Action::build(&loaded, &value(&json!({"amount_minor": amount}))?, &ids)
            .map_err(|e| e.to_string())?;
        serde_json::from_str(&actionseal_core::canonicalize(a.value())).map_err(|e| e.to_string())
    };
    let clock = ManualClock::new(1_000_000);
    // Proof is optional here, so that both a bare and a signed decision are recorded.
    let keys = actionseal_core::KeySet::from_value(&value(&super::proof::service_keys())?)
        .map_err(|e| e.to_string())?;
    let options = LedgerOptions {
        clock: Arc::new(clock.clone()),
        proof: Some(actionseal_core::ProofPolicy::new(false, keys)),
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
    let mut out = Vec::new();
    // A task approved, drifted, claimed with a budget, completed; another revoked and sent back;
    // a third rejected before dispatch.
    let mut tasks = Vec::new();
    for job in ["j1", "j2", "j3"] {
        let action = envelope(job, 5)?;
        let proposed = call(
            Call::Propose,
            json!({"action": envelope(job, 7)?, "contract": contract, "proposer": "agent"}),
        )?;
        out.push(("LedgerTask", proposed.clone()));
        // A reviewer amends 7 to 5 before deciding (the retry is a duplicate).
        let amend = json!({"task_id": proposed["id"], "amends": proposed["action_digest"],
            "action": action, "reviewer": "user:r", "reason": "r", "contract": contract});
        out.push(("Amended", call(Call::Amend, amend.clone())?));
        out.push(("Amended", call(Call::Amend, amend)?));
        for a in call(Call::Amendments, json!({"task_id": proposed["id"]}))?
            .as_array()
            .into_iter()
            .flatten()
        {
            out.push(("AmendmentRecord", a.clone()));
        }
        let task = call(Call::Task, json!({"task_id": proposed["id"]}))?;
        let bare = json!({"approval_id": task["approval_id"], "decision_id": format!("d-{job}"),
            "job_id": job, "request_id": "r", "action_digest": task["action_digest"], "decision": "approved",
            "approver": "user:b", "decided_at": 1_000_000, "expires_at": 2_000_000});
        // The second task's decision arrives signed: the record the ledger builds, as a
        // reviewer's approval system signs it.
        let decision = if job == "j2" {
            super::proof::envelope(&json!({"approval_id": task["approval_id"],
                "decision_id": format!("d-{job}"), "action": task["action"],
                "action_digest": task["action_digest"], "proposed_digest": task["proposed_digest"],
                "decision": "approved", "approver": "user:b", "decided_at": 1_000_000,
                "expires_at": 2_000_000}))
        } else {
            bare
        };
        let decided = call(Call::Decide, decision)?;
        out.push(("Decided", decided));
        tasks.push((task, action));
    }
    out.push((
        "LedgerBudget",
        call(Call::SetBudget, json!({"name": "b", "limit_minor": 100}))?,
    ));
    let claim = |t: &Json, a: &Json, subject_ok: bool, budget: Json| {
        call(
            Call::Claim,
            json!({"task_id": t["id"], "action": a, "facts": facts(subject_ok),
            "executor": "w", "lease_ms": 1000, "budget": budget}),
        )
    };
    let (t1, a1) = &tasks[0];
    out.push((
        "ClaimOutcome",
        claim(t1, &envelope("j1", 6)?, true, Json::Null)?,
    ));
    out.push(("ClaimOutcome", claim(t1, a1, true, json!("b"))?));
    clock.advance(10);
    out.push((
        "LedgerTask",
        call(
            Call::Complete,
            json!({"task_id": t1["id"], "fence": 1, "outcome": "succeeded",
        "executor": "w", "result": {"ok": true}}),
        )?,
    ));
    let (t2, a2) = &tasks[1];
    out.push((
        "Revocation",
        call(
            Call::Revoke,
            json!({"approval_id": t2["approval_id"], "actor": "admin"}),
        )?,
    ));
    out.push(("ClaimOutcome", claim(t2, a2, true, Json::Null)?));
    let (t3, a3) = &tasks[2];
    out.push(("ClaimOutcome", claim(t3, a3, false, Json::Null)?));
    // A signed decision claimed by a claim that requires proof: the claim carries it.
    let proven = call(
        Call::Propose,
        json!({"action": envelope("j4", 5)?, "contract": contract, "proposer": "agent"}),
    )?;
    let record = json!({"approval_id": proven["approval_id"], "decision_id": "d-j4",
        "action": proven["action"], "action_digest": proven["action_digest"],
        "decision": "approved", "approver": "user:b", "decided_at": l.now(),
        "expires_at": 2_000_000});
    out.push((
        "Decided",
        call(Call::Decide, super::proof::envelope(&record))?,
    ));
    out.push((
        "ClaimOutcome",
        call(
            Call::Claim,
            json!({"task_id": proven["id"], "action": proven["action"], "facts": facts(true),
            "executor": "w", "lease_ms": 1000, "proof": "required"}),
        )?,
    ));
    out.push(("LedgerPolicy", call(Call::Policy, json!({}))?));
    out.push((
        "LedgerPolicy",
        call(
            Call::SetProofRequirement,
            json!({"proof": "required", "actor": "admin", "reason": "every decision signed"}),
        )?,
    ));
    out.push((
        "TaskHistory",
        call(Call::History, json!({"task_id": t1["id"]}))?,
    ));
    out.push(("LedgerBudget", call(Call::Budget, json!({"name": "b"}))?));
    for t in call(Call::Tasks, json!({}))?
        .as_array()
        .into_iter()
        .flatten()
    {
        out.push(("LedgerTask", t.clone()));
    }
    let heads = call(Call::AuditHeads, json!({}))?;
    out.push(("ExportedHeads", heads.clone()));
    let report = call(Call::AuditVerify, json!({"exported": heads}))?;
    out.push(("AuditReport", report));
    // The same export with its first line edited: a report with a break.
    let export = call(Call::AuditExport, json!({}))?;
    let text = export
        .as_str()
        .unwrap_or_default()
        .replacen("\"seq\":1", "\"seq\":2", 1);
    let broken = ledger::verify_audit(text.as_bytes(), &[]).to_value();
    out.push((
        "AuditReport",
        serde_json::from_str(&actionseal_core::canonicalize(&broken)).map_err(|e| e.to_string())?,
    ));
    // And with its first claim's fence changed and its chain sealed again: a replay break,
    // naming the task and the member.
    let text = reseal_first_claim(export.as_str().unwrap_or_default())?;
    let broken = ledger::verify_audit(text.as_bytes(), &[]).to_value();
    out.push((
        "AuditReport",
        serde_json::from_str(&actionseal_core::canonicalize(&broken)).map_err(|e| e.to_string())?,
    ));
    Ok(out)
}

/// The export with its first `claimed` event given another fence, and every event of that
/// chain from there sealed again.
fn reseal_first_claim(export: &str) -> Result<String, String> {
    let mut events = Vec::new();
    for line in export.lines() {
        let mut v = value(&serde_json::from_str::<Json>(line).map_err(|e| e.to_string())?)?;
        if let actionseal_core::Value::Object(o) = &mut v {
            let kept = o
                .clone()
                .into_entries()
                .into_iter()
                .filter(|(k, _)| k != "digest")
                .collect();
            *o = actionseal_core::Object::from_entries(kept).map_err(|e| e.to_string())?;
        }
        events.push(ledger::Event::from_value(&v).map_err(|e| e.to_string())?);
    }
    let first = events
        .iter()
        .position(|e| e.kind == EventKind::Claimed)
        .ok_or("no claim")?;
    let (chain, from) = (events[first].chain, events[first].seq);
    events[first].fence = Some(9);
    let mut prev = None;
    let mut out = String::new();
    for e in &mut events {
        if e.chain == chain {
            if e.seq >= from {
                e.prev = prev;
            }
            prev = Some(e.digest());
        }
        out += &ledger::Event::line(&e.canonical(), &e.digest());
        out.push('\n');
    }
    Ok(out)
}

/// Where what the ledger writes and the output shapes disagree.
pub fn output_problems(all: &[Shape]) -> Vec<String> {
    let results = match outputs() {
        Ok(r) => r,
        Err(e) => return vec![format!("the ledger's sample run failed: {e}")],
    };
    let mut seen = Seen::default();
    let mut problems = Vec::new();
    for (name, v) in &results {
        conforms(all, &Ty::Shape(name), v, name, &mut seen, &mut problems);
    }
    // Every nullable member of an output was seen with a value, so its type was checked.
    for s in shapes().iter().filter(|s| s.output) {
        for f in &s.fields {
            let key = (s.name.to_owned(), f.name.to_owned());
            if matches!(f.ty, Ty::Nullable(_)) && !seen.present.contains(&key) {
                problems.push(format!(
                    "{}.{}: the sample run never wrote it with a value",
                    s.name, f.name
                ));
            }
        }
    }
    for u in unions().iter().filter(|u| matches!(u.name, "ClaimResult")) {
        let got = seen.members.get(u.name).cloned().unwrap_or_default();
        for m in &u.members {
            if !got.contains(*m) {
                problems.push(format!("{}: the sample run never saw {m}", u.name));
            }
        }
    }
    problems
}
