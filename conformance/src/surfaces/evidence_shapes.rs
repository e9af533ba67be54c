//! The shapes of evidence (issue 26): the bundle a ledger exports and every runtime's
//! `verifyEvidence` reads (core/src/model/evidence/bundle.rs), the verifier's trust
//! (trust.rs), and the timeline core writes (timeline.rs). In every runtime's declarations: the
//! wasm build verifies bundles too. `evidence_probes.rs` holds them to core, with samples from
//! a real ledger's export.

use super::shape_types::{field, optional, Field, Shape, Ty};
use actionseal_core::ledger::{EventKind, State};

fn shape(name: &'static str, doc: &'static str, output: bool, fields: Vec<Field>) -> Shape {
    Shape {
        name,
        doc,
        extends: None,
        fields,
        output,
    }
}

/// The evidence shapes, in declaration order.
pub(super) fn evidence_shapes() -> Vec<Shape> {
    let list = |t: Ty| Ty::List(Box::new(t));
    let nullable = |t: Ty| Ty::Nullable(Box::new(t));
    let kinds = Ty::OneOf(EventKind::ALL.iter().map(|k| k.as_str()).collect());
    let states = Ty::OneOf(State::ALL.iter().map(|s| s.as_str()).collect());
    let record = Ty::Either(vec![
        Ty::Shape("ApprovalRecord"),
        Ty::Shape("SignedEnvelope"),
        Ty::Shape("PasskeyApprovedRecord"),
    ]);
    vec![
        shape("EvidenceBundle", "One task's evidence as a ledger exported it (`Ledger.evidence`, `actionseal ledger evidence export`): verify it with `verifyEvidence` and your own trust, without the ledger. Write it as canonical JSON; no other member is allowed.", false, vec![
            field("version", Ty::Int, "The bundle format's version: 1."),
            field("task", Ty::Identity, "The task's id."),
            field("contract", Ty::Shape("ContractDocument"), "The contract the task's action names."),
            field("actions", list(Ty::Shape("ActionEnvelope")), "The action as proposed, then each amendment's, in order."),
            field("reasons", list(Ty::Str), "Each amendment's reason, in order."),
            field("decisions", list(record), "Each decided event's approval record, its proof put back."),
            field("events", list(Ty::Shape("EvidenceEntry")), "The task's audit events up to the export, in log order."),
            field("export", Ty::Shape("EvidenceEntry"), "The `evidence_exported` event that recorded this export."),
            field("checkpoint", Ty::Shape("EvidenceAnchor"), "The checkpoint every proof is against."),
            field("witnessed", list(Ty::Shape("EvidenceWitnessed")), "The latest earlier checkpoint a witness cosigned, if any, with the consistency proof from it."),
            field("keys", Ty::Unknown, "The public keys the ledger knew (`{ ledger: [...] }`): informational, never trusted."),
            optional("disclosures", list(Ty::Str), "The disclosures (base64url) of the decided action's sensitive values, only when the exporter asked for them and the ledger's policy allowed it; `verifyEvidence` checks each against its commitment."),
        ]),
        shape("EvidenceEntry", "An audit event with its place in the ledger's Merkle log.", false, vec![
            field("index", Ty::Int, "Its leaf index."),
            field("event", Ty::Object, "The audit event, as an exported audit line holds it without its `digest`; its canonical text is the leaf."),
            field("proof", list(Ty::Str), "Its RFC 9162 inclusion proof in the checkpoint's tree: standard base64 hashes."),
        ]),
        shape("EvidenceAnchor", "The signed checkpoint of the ledger's log a bundle is verified against.", false, vec![
            field("note", Ty::Str, "The C2SP signed note: the checkpoint, the ledger's signature and any witnesses' cosignatures."),
            field("timestamp", nullable(Ty::Str), "An RFC 3161 time-stamp token (base64 DER) over the checkpoint, or `null`."),
        ]),
        shape("EvidenceWitnessed", "An earlier checkpoint a witness cosigned, which the bundle's checkpoint extends.", false, vec![
            field("note", Ty::Str, "The cosigned checkpoint note."),
            field("consistency", list(Ty::Str), "The RFC 9162 consistency proof from it to the bundle's checkpoint: standard base64 hashes."),
        ]),
        shape("EvidenceTrust", "What the verifier of a bundle trusts: its own configuration, never the bundle's.", false, vec![
            field("ledger_keys", list(Ty::Shape("EvidenceLedgerKey")), "At least one."),
            optional("witnesses", Ty::Shape("EvidenceWitnesses"), "The witnesses whose cosignatures the checkpoint needs."),
            optional("tsa_roots", list(Ty::Str), "The RFC 3161 roots (base64 DER) a time-stamp must chain to."),
            optional("approval_keys", Ty::Shape("KeySet"), "The keys that verify the decisions' proofs."),
        ]),
        shape("EvidenceLedgerKey", "A ledger's checkpoint key, trusted within its window (judged at a time the ledger does not choose).", false, vec![
            field("key", Ty::Str, "A C2SP note verifier key string: `<name>+<hash>+<base64 key>` (Ed25519, type 0x01)."),
            optional("valid_from", Ty::Millis, ""),
            optional("valid_until", Ty::Millis, ""),
        ]),
        shape("EvidenceWitnesses", "The witnesses a checkpoint must be cosigned by, and how many.", false, vec![
            field("keys", list(Ty::Str), "C2SP cosignature verifier key strings (type 0x04)."),
            field("quorum", Ty::Int, "How many of them, at least 1."),
        ]),
        shape("EvidenceTimeline", "What `verifyEvidence` returns: the task's story as the bundle proves it.", true, vec![
            field("task", Ty::Identity, ""),
            field("tenant", Ty::Identity, ""),
            field("tool", Ty::Str, ""),
            field("subject", Ty::Identity, ""),
            field("contract", Ty::Digest, "The contract's fingerprint."),
            field("state", nullable(states.clone()), "The task's state after its last event."),
            field("steps", list(Ty::Shape("EvidenceStep")), "Its events, in log order."),
            field("log", Ty::Shape("EvidenceLog"), ""),
            field("exported_at", Ty::Millis, ""),
            field("exported_by", Ty::Identity, ""),
        ]),
        shape("EvidenceStep", "One verified event of a task; `null` where it does not apply.", true, vec![
            field("index", Ty::Int, "Its leaf index in the log."),
            field("at", Ty::Millis, ""),
            field("kind", kinds, ""),
            field("actor", Ty::Str, ""),
            field("state", nullable(states), "The task's state after it."),
            field("outcome", nullable(Ty::Str), ""),
            field("action_digest", nullable(Ty::Digest), ""),
            field("signer", nullable(Ty::Either(vec![Ty::Shape("ServiceSigner"), Ty::Shape("PasskeySigner")])), "Who proved a decision."),
            field("verified_at", nullable(Ty::Millis), "When the decision's key was judged."),
            field("verified_by", nullable(Ty::OneOf(vec!["ledger", "rfc3161"])), "Where that time comes from: the ledger's arrival, or the decision's time-stamp token."),
            field("on_behalf_of", nullable(Ty::Identity), "The root delegator a delegated decision counted for."),
            field("drift", list(Ty::Str), ""),
            field("fence", nullable(Ty::Int), ""),
        ]),
        shape("EvidenceLog", "The checkpoint a timeline was verified against.", true, vec![
            field("origin", Ty::Str, "The log's name (its key's)."),
            field("size", Ty::Int, ""),
            field("root", Ty::Str, "The tree's root, standard base64."),
            field("time", nullable(Ty::Millis), "The earliest time the checkpoint is known to have existed, from a source the ledger does not choose."),
            field("time_source", nullable(Ty::OneOf(vec!["rfc3161", "witness"])), ""),
            field("witnesses", list(Ty::Str), "The trusted witnesses that cosigned it."),
        ]),
    ]
}
