//! The data shapes of the approval model, in declaration order (the proof shapes are in
//! `proof_shapes.rs`, the quorum's and delegation's in `quorum_shapes.rs`, the ledger's in
//! `ledger.rs`, their vocabulary in `shape_types.rs`).

use super::shape_types::{field, optional, Field, Shape, Ty};
use actionseal_core::{operators, NoticeKind, Within};

/// The shapes of the data the approval model takes and returns, in declaration order.
pub fn shapes() -> Vec<Shape> {
    let ops = operators().collect::<Vec<_>>();
    let mut out = vec![
        Shape {
            name: "ContractDocument",
            doc: "A tool contract document: what `new Contract(document)` loads. No other field is allowed.",
            extends: None,
            output: false,
            fields: vec![
                field("tool", Ty::Identity, ""),
                field("version", Ty::Identity, ""),
                field("effect", Ty::OneOf(vec!["read", "write"]), ""),
                field("args", Ty::Object, "The tool's arguments: a JSON Schema (actionseal's strict subset) with `type: 'object'`."),
                field("approval", Ty::ApprovalRule, "When a call needs a person: always, never, or when any condition matches; the object form may also require a quorum and separation of duties."),
                field("cost_minor", Ty::Int, "What one call costs, in minor units of the budget's currency."),
                Field {
                    optional: true,
                    ..field("max_approval_ms", Ty::Int, "The longest an approval may hold (`expires_at - decided_at`), in milliseconds.")
                },
                Field {
                    optional: true,
                    ..field("batch", Ty::Shape("BatchPolicy"), "Allows batches of the tool's calls, decided once, and bounds them; without it, or beside `sensitive`, a batch is `batch_not_allowed`.")
                },
                optional("sensitive", Ty::Map(Box::new(Ty::Str)), "The arguments' sensitive values: JSON Pointers into the action (`/args/...`, `*` for every element of an array), each with the class a retention policy names. Each such value is frozen as a salted commitment and travels beside the action as a disclosure."),
            ],
        },
        Shape {
            name: "ApprovalCondition",
            doc: "One condition of a contract's approval rule. Conditions fail closed (see the README).",
            extends: None,
            output: false,
            fields: vec![
                field("pointer", Ty::Str, "JSON Pointer into the call's arguments (`\"\"` for the element itself inside `any`/`all`)."),
                Field {
                    optional: true,
                    ..field("op", Ty::OneOf(ops), "The comparison; absent when the condition quantifies over an array with `any` or `all`.")
                },
                Field {
                    optional: true,
                    ..field("value", Ty::Unknown, "The operand; absent for `exists` and `absent`, a non-empty array for `in` and `not_in`.")
                },
                Field {
                    optional: true,
                    ..field("any", Ty::Shape("ApprovalCondition"), "The condition holds for some element of the array at `pointer` (never for an empty array).")
                },
                Field {
                    optional: true,
                    ..field("all", Ty::Shape("ApprovalCondition"), "The condition holds for every element of the array at `pointer` (always for an empty array).")
                },
            ],
        },
        Shape {
            name: "ActionIds",
            doc: "Who acts, in which tenant, for which job and request, under which policy: from the executor's server, never from the model. Each a non-blank string without surrounding whitespace or control characters.",
            extends: None,
            output: false,
            fields: vec![
                field("tenant", Ty::Identity, ""),
                field("subject", Ty::Identity, ""),
                field("job_id", Ty::Identity, ""),
                field("request_id", Ty::Identity, "The request identity within the job, stable across retries."),
                field("policy_version", Ty::Identity, ""),
            ],
        },
        Shape {
            name: "ActionEnvelope",
            doc: "An action envelope: exactly what a reviewer approves; its fingerprint is what an approval binds.",
            extends: Some("ActionIds"),
            output: false,
            fields: vec![
                field("tool", Ty::Identity, ""),
                field("contract", Ty::Digest, "The fingerprint of the tool's contract."),
                field("args", Ty::Object, ""),
            ],
        },
        Shape {
            name: "DecisionInput",
            doc: "A reviewer's decision about one action; times in integer milliseconds since the epoch.",
            extends: None,
            output: false,
            fields: vec![
                field("approval_id", Ty::Identity, ""),
                field("decision_id", Ty::Identity, "Identity of the decision callback, for de-duplicating repeated deliveries."),
                field("decision", Ty::OneOf(vec!["approved", "rejected"]), ""),
                field("approver", Ty::Identity, ""),
                field("decided_at", Ty::Millis, ""),
                field("expires_at", Ty::Millis, "When the decision stops holding; after `decided_at`."),
                optional("proposed_digest", Ty::Digest, "The fingerprint of the action as the model proposed it, present only when a reviewer amended it before this decision (it then differs from the decided action's)."),
                optional("role", Ty::Identity, "Under a quorum, the role the approver decides in; it counts only when a fact says the counting identity holds it."),
                optional("on_behalf_of", Ty::Identity, "The root delegator the decision counts for, with `delegation`: the approver is then the delegate who decided."),
                optional("delegation", Ty::List(Box::new(Ty::Either(vec![Ty::Shape("SignedDelegation"), Ty::Shape("DelegationDocument")]))), "The chain, root first (1 to 4 links), with `on_behalf_of`."),
            ],
        },
        Shape {
            name: "ApprovalRecord",
            doc: "An approval record: the decision, the frozen action and its fingerprint.",
            extends: Some("DecisionInput"),
            output: false,
            fields: vec![
                field("action", Ty::Shape("ActionEnvelope"), ""),
                field("action_digest", Ty::Digest, ""),
            ],
        },
        Shape {
            name: "AmendedAction",
            doc: "A reviewer's edit, checked by `amend` as the ledger's amend checks it: the amended action, both fingerprints and what changed.",
            extends: None,
            output: true,
            fields: vec![
                field("action", Ty::Shape("ActionEnvelope"), "The amended action: what the decision that follows is about."),
                field("action_digest", Ty::Digest, "Its fingerprint: the decision's `action_digest`."),
                field("proposed_digest", Ty::Digest, "The fingerprint of the action the reviewer edited: the decision's `proposed_digest` when the two differ, and a ledger amendment's `amends`."),
                field("amended_pointers", Ty::List(Box::new(Ty::Str)), "JSON Pointers where the amended action differs from the edited one; empty when nothing changed."),
            ],
        },
        Shape {
            name: "CommittedAction",
            doc: "An action committed under a contract that marks values sensitive: each such value replaced by `{\"_sd\": \"sha256:<hex>\"}`, the values in the disclosures beside it, to store apart.",
            extends: None,
            output: true,
            fields: vec![
                field("action", Ty::Shape("ActionEnvelope"), "The committed action: what a reviewer approves, the audit and evidence keep."),
                field("action_digest", Ty::Digest, "Its fingerprint: the decision's `action_digest`."),
                field("disclosures", Ty::List(Box::new(Ty::Disclosure)), "One per sensitive value, in the places' order: the values, salted; give them to `check` in the context and to `reveal_action`, never to the audit."),
            ],
        },
        Shape {
            name: "NoticeMark",
            doc: "One character a reader could miss or misread, in a string `notices` reports.",
            extends: None,
            output: true,
            fields: vec![
                field("at", Ty::Int, "Its position in the string, in code points from 0."),
                field("code_point", Ty::Str, "Such as `'U+200B'`."),
                field("kind", Ty::OneOf(NoticeKind::ALL.iter().map(|k| k.as_str()).collect()), "Displayed as nothing or a blank (`invisible`), visible but possibly mistaken for an ASCII character (`non_ascii`), or a space at either end."),
            ],
        },
        Shape {
            name: "Notice",
            doc: "A string or key with characters a reader could miss or misread (`notices`).",
            extends: None,
            output: true,
            fields: vec![
                field("pointer", Ty::Str, "JSON Pointer of the string, or of the member whose key it is."),
                field("within", Ty::OneOf(vec![Within::Value.as_str(), Within::Key.as_str()]), "The value at `pointer`, or its key."),
                field("count", Ty::Int, "How many of its characters are noticed."),
                field("marks", Ty::List(Box::new(Ty::Shape("NoticeMark"))), "The first 64 of them, in order."),
            ],
        },
        Shape {
            name: "CheckContext",
            doc: "What the executor's own server knows at dispatch time; never taken from the model.",
            extends: None,
            output: false,
            fields: vec![
                field("now", Ty::Millis, "Milliseconds since the epoch."),
                field("tenant", Ty::Identity, ""),
                field("policy_version", Ty::Identity, ""),
                field("contract", Ty::ContractOrDocument, "The tool's current contract: a `Contract` (not compiled again) or a contract document; `null` when the server has none for the action's tool."),
                field("approver_authorized", Ty::Nullable(Box::new(Ty::Either(vec![Ty::Shape("ApproverFact"), Ty::List(Box::new(Ty::Shape("ApproverFact")))]))), "Whether the approval's approver may still approve (for a set, one fact per counting identity); `null` only when no approval is presented."),
                field("subject_authorized", Ty::Shape("SubjectFact"), "Whether the action's subject may still perform it."),
                field("revoked", Ty::Nullable(Box::new(Ty::Either(vec![Ty::Shape("RevokedFact"), Ty::List(Box::new(Ty::Either(vec![Ty::Shape("RevokedFact"), Ty::Shape("DecisionRevokedFact")])))]))), "Whether the approval was revoked (for a set, also whether each decision was); `null` only when no approval is presented."),
                Field {
                    optional: true,
                    ..field("proof", Ty::Shape("ProofPolicy"), "Whether every approval must carry proof, and the trusted keys that can give it.")
                },
                optional("approver_roles", Ty::List(Box::new(Ty::Shape("RoleFact"))), "Who holds which role, for a quorum's roles."),
                optional("proposer", Ty::Nullable(Box::new(Ty::Identity)), "Who proposed the task (the server's storage)."),
                optional("amended_by", Ty::Nullable(Box::new(Ty::Identity)), "The reviewer who amended the action before the decision; `null`: not amended."),
                optional("delegations_revoked", Ty::List(Box::new(Ty::Shape("DelegationRevokedFact"))), "Whether each link of each delegation chain was revoked, by its digest; a link without a fact is refused."),
                optional("breaker", Ty::OneOf(vec!["closed", "open", "half_open"]), "For an item of a batch: the state of the batch's circuit breaker; `open` is `breaker_open`."),
                optional("disclosures", Ty::List(Box::new(Ty::Disclosure)), "Under a contract that marks values sensitive: the disclosures of the approved action's commitments, stored apart; the action is then presented in the clear."),
            ],
        },
        Shape {
            name: "ApproverFact",
            doc: "A trusted fact about one named approver: a fact about anyone else is not believed.",
            extends: None,
            output: false,
            fields: vec![
                field("approver", Ty::Identity, ""),
                field("authorized", Ty::Bool, ""),
            ],
        },
        Shape {
            name: "SubjectFact",
            doc: "A trusted fact about one named subject: a fact about anyone else is not believed.",
            extends: None,
            output: false,
            fields: vec![
                field("subject", Ty::Identity, ""),
                field("authorized", Ty::Bool, ""),
            ],
        },
        Shape {
            name: "RevokedFact",
            doc: "A trusted fact about one named approval: a fact about another approval is not believed.",
            extends: None,
            output: false,
            fields: vec![
                field("approval_id", Ty::Identity, ""),
                field("revoked", Ty::Bool, ""),
            ],
        },
        Shape {
            name: "ActionError",
            doc: "Why an action is invalid: a code and the JSON Pointer of the value concerned.",
            extends: None,
            output: true,
            fields: vec![
                field("code", Ty::Shape("ErrorCode"), ""),
                field("path", Ty::Str, ""),
            ],
        },
        Shape {
            name: "Verdict",
            doc: "The result of `check`.",
            extends: None,
            output: true,
            fields: vec![
                field("outcome", Ty::Shape("Outcome"), "`permit`: dispatch; `reapprove`: send the same task back for approval; `reject`: never run it."),
                field("reasons", Ty::List(Box::new(Ty::Shape("Reason"))), "Every reason found, in a fixed order; empty exactly when permitted."),
                field("drift", Ty::List(Box::new(Ty::Str)), "JSON Pointers where the presented action differs from the approved one."),
                field("action_digest", Ty::Digest, "Fingerprint of the presented action."),
                field("approved_digest", Ty::Nullable(Box::new(Ty::Digest)), "The approved action's fingerprint, when a valid, untampered approval was presented."),
                field("action_error", Ty::Nullable(Box::new(Ty::Shape("ActionError"))), "Why the action is invalid, with the reason `invalid_action`."),
                optional("quorum", Ty::Shape("QuorumState"), "Who counted and what is missing: present exactly when the contract in force has a quorum."),
            ],
        },
        Shape {
            name: "Budget",
            doc: "A cumulative budget in integer minor units.",
            extends: None,
            output: false,
            fields: vec![
                field("limit_minor", Ty::Int, ""),
                field("spent_minor", Ty::Int, ""),
            ],
        },
    ];
    out.extend(super::proof_shapes::proof_shapes());
    out.extend(super::quorum_shapes::quorum_shapes());
    out.extend(super::batch_shapes::batch_shapes());
    out.extend(super::evidence_shapes::evidence_shapes());
    out
}

/// The outcomes of a check, in core's order (worst last).
pub(super) fn outcomes() -> [&'static str; 3] {
    use actionseal_core::Outcome;
    [Outcome::Permit, Outcome::Reapprove, Outcome::Reject].map(Outcome::as_str)
}
