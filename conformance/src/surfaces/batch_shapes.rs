//! The shapes of batches (issue 28): a contract's batch policy, a batch as built, its header,
//! items and inclusion proofs, the decision over one, the check of its items, and its
//! circuit breaker.

use super::shape_types::{field, optional, Shape, Ty};

/// The batch shapes, in declaration order.
pub(super) fn batch_shapes() -> Vec<Shape> {
    let list = |t: Ty| Ty::List(Box::new(t));
    let nullable = |t: Ty| Ty::Nullable(Box::new(t));
    let semantics = || Ty::OneOf(vec!["all_or_nothing", "per_item"]);
    let state = || Ty::OneOf(vec!["closed", "open", "half_open"]);
    vec![
        Shape {
            name: "BatchPolicy",
            doc: "A contract's `batch` member (or a server's, which only narrows it): the most items one decision covers, caps on the whole batch and a circuit breaker.",
            extends: None,
            output: false,
            fields: vec![
                field("max_items", Ty::Int, "The most items one decision covers: 1 to 1,000."),
                optional("caps", Ty::Shape("BatchCaps"), "Caps on the whole batch, held again at each claim over the batch's lineage."),
                optional("breaker", Ty::Shape("BreakerPolicy"), "When the batch's circuit breaker trips and closes again."),
            ],
        },
        Shape {
            name: "BatchCaps",
            doc: "Caps on a batch as a whole: how many items, the sum of a number in each, and how many distinct values of a target.",
            extends: None,
            output: false,
            fields: vec![
                optional("count", Ty::Int, "The most items."),
                optional("sum", Ty::Shape("SumCap"), "The largest sum of the integer at `pointer` over the items."),
                optional("distinct", Ty::Shape("DistinctCap"), "The most distinct values at `pointer` (targets such as orders or accounts)."),
            ],
        },
        Shape {
            name: "SumCap",
            doc: "A cap on the sum of an integer member of each item's action.",
            extends: None,
            output: false,
            fields: vec![
                field("pointer", Ty::Str, "JSON Pointer into the action envelope (`/args/amount_minor`)."),
                field("max", Ty::Int, ""),
            ],
        },
        Shape {
            name: "DistinctCap",
            doc: "A cap on how many distinct values a member of the items' actions takes.",
            extends: None,
            output: false,
            fields: vec![
                field("pointer", Ty::Str, "JSON Pointer into the action envelope (`/args/order_id`)."),
                field("max", Ty::Int, ""),
            ],
        },
        Shape {
            name: "BreakerPolicy",
            doc: "A batch's circuit breaker: failures within a window trip it, as may a claim rate; successes after a new decision close it.",
            extends: None,
            output: false,
            fields: vec![
                field("max_failures", Ty::Int, "Failed or unknown outcomes within `window_ms` that trip it: 1 to 10,000."),
                field("window_ms", Ty::Int, "The window failures are counted over, in ms."),
                optional("max_claims_per_minute", Ty::Int, "Claims within any 60 s that trip it (a runaway executor)."),
                field("close_after", Ty::Int, "Successes after a half-open that close it."),
            ],
        },
        Shape {
            name: "BatchHeader",
            doc: "The frozen batch document a decision binds: its fingerprint is the batch fingerprint.",
            extends: None,
            output: false,
            fields: vec![
                field("contract", Ty::Digest, "The fingerprint of the contract every item is under."),
                field("tenant", Ty::Identity, "The tenant every item is in."),
                field("semantics", semantics(), "How the items stand together."),
                field("size", Ty::Int, "How many items."),
                field("root", Ty::Str, "The RFC 9162 Merkle tree hash over the items' fingerprints in order, base64."),
            ],
        },
        Shape {
            name: "ItemProof",
            doc: "An item's inclusion proof: its position and the RFC 9162 audit path to the header's root.",
            extends: None,
            output: false,
            fields: vec![
                field("index", Ty::Int, "The item's position, from 0."),
                field("path", list(Ty::Str), "The audit path, leaf side first, each hash base64."),
            ],
        },
        Shape {
            name: "BatchItem",
            doc: "An item as its executor holds it: its frozen action and its inclusion proof.",
            extends: None,
            output: false,
            fields: vec![
                field("action", Ty::Shape("ActionEnvelope"), "The item's action as the batch froze it."),
                field("proof", Ty::Shape("ItemProof"), ""),
            ],
        },
        Shape {
            name: "BatchItemSummary",
            doc: "One item of a batch as built: its fingerprint, task id and inclusion proof.",
            extends: None,
            output: true,
            fields: vec![
                field("index", Ty::Int, ""),
                field("task_id", Ty::Str, "The id of the item's task (`Ledger.task_id` of its identity)."),
                field("action_digest", Ty::Digest, "The item's fingerprint: a leaf of the batch's tree."),
                field("proof", Ty::Shape("ItemProof"), ""),
            ],
        },
        Shape {
            name: "BatchTotals",
            doc: "What a reviewer compares with the caps: the batch's totals, each only under its cap.",
            extends: None,
            output: true,
            fields: vec![
                field("count", Ty::Int, "How many items."),
                optional("sum", Ty::Int, "The sum under the sum cap."),
                optional("distinct", Ty::Int, "How many distinct targets under the distinct cap."),
            ],
        },
        Shape {
            name: "Batch",
            doc: "A batch as built: the header a decision freezes, its fingerprint, each item, and the totals under the caps in force.",
            extends: None,
            output: true,
            fields: vec![
                field("header", Ty::Shape("BatchHeader"), ""),
                field("batch_digest", Ty::Digest, "The header's fingerprint: what a decision binds."),
                field("items", list(Ty::Shape("BatchItemSummary")), "In order."),
                field("totals", Ty::Shape("BatchTotals"), ""),
                field("caps", Ty::Shape("BatchCaps"), "The caps in force: the contract's, narrowed by the server's."),
            ],
        },
        Shape {
            name: "DeselectedBatch",
            doc: "The batch left after a reviewer's deselection, with the fingerprint of the batch as proposed.",
            extends: Some("Batch"),
            output: true,
            fields: vec![
                field("proposed_digest", Ty::Digest, "The batch as proposed: the decision's `proposed_digest`."),
            ],
        },
        Shape {
            name: "VerifiedItem",
            doc: "An item verified to be in a batch.",
            extends: None,
            output: true,
            fields: vec![
                field("action_digest", Ty::Digest, "The item's fingerprint."),
                field("batch_digest", Ty::Digest, "The batch's fingerprint."),
                field("index", Ty::Int, ""),
            ],
        },
        Shape {
            name: "BatchDecisionRecord",
            doc: "A decision over a whole batch: the frozen header and its fingerprint in place of an approval's action and its fingerprint.",
            extends: Some("DecisionInput"),
            output: false,
            fields: vec![
                field("batch", Ty::Shape("BatchHeader"), ""),
                field("batch_digest", Ty::Digest, ""),
            ],
        },
        Shape {
            name: "VerifiedBatchProof",
            doc: "A batch decision whose proof verified, and who gave it.",
            extends: None,
            output: true,
            fields: vec![
                field("approval", Ty::Shape("BatchDecisionRecord"), "The record (for a passkey-approved one, without its assertion)."),
                field("signer", Ty::Either(vec![Ty::Shape("ServiceSigner"), Ty::Shape("PasskeySigner")]), ""),
            ],
        },
        Shape {
            name: "BatchVerdict",
            doc: "The check of several items of one batch: each item's verdict, and which may be claimed now.",
            extends: None,
            output: true,
            fields: vec![
                field("semantics", nullable(semantics()), "What the decision froze; `null` when no well-formed, sealed decision was presented."),
                field("claimable", list(Ty::Int), "Indices of the items that may be claimed now: under `all_or_nothing` every item or none."),
                field("verdicts", list(Ty::Shape("Verdict")), "One per item, in the order given."),
            ],
        },
        Shape {
            name: "Breaker",
            doc: "A batch's circuit breaker as stored: its state, the recent failure and claim times, the successes since it half-opened and how often it tripped.",
            extends: None,
            output: false,
            fields: vec![
                field("state", state(), ""),
                field("failures", list(Ty::Millis), "Times of the failures still in the window."),
                field("claims", list(Ty::Millis), "Times of the claims of the last minute."),
                field("successes", Ty::Int, "Successes since it half-opened."),
                field("trips", Ty::Int, "How often it tripped."),
            ],
        },
        Shape {
            name: "BreakerEvent",
            doc: "One event a breaker is told of: an outcome reported, a claim, or a new decision over the remainder.",
            extends: None,
            output: false,
            fields: vec![
                field("kind", Ty::OneOf(vec!["outcome", "claim", "redecided"]), ""),
                optional("outcome", Ty::OneOf(vec!["succeeded", "failed", "unknown"]), "For an outcome only."),
                field("at", Ty::Millis, "When, for an outcome or a claim."),
            ],
        },
        Shape {
            name: "BreakerStep",
            doc: "A breaker after one event, and what happened to it.",
            extends: None,
            output: true,
            fields: vec![
                field("breaker", Ty::Shape("Breaker"), "The new state, to store."),
                field("transition", Ty::OneOf(vec!["none", "tripped", "half_opened", "closed"]), ""),
                field("trip", nullable(Ty::OneOf(vec!["failures", "claim_rate"])), "Why it tripped, when it did."),
            ],
        },
    ]
}
