//! The shapes of quorums and delegation (issue 25): a verdict's quorum state, and delegation
//! documents, their signed envelopes and what verifying one returns.

use super::shape_types::{field, optional, Shape, Ty};
use actionseal_core::DELEGATION_PAYLOAD_TYPE;

/// The quorum and delegation shapes, in declaration order.
pub(super) fn quorum_shapes() -> Vec<Shape> {
    let list = |t: Ty| Ty::List(Box::new(t));
    let nullable = |t: Ty| Ty::Nullable(Box::new(t));
    vec![
        Shape {
            name: "RoleFact",
            doc: "A trusted fact about one named approver and one role: whether the approver holds it.",
            extends: None,
            output: false,
            fields: vec![
                field("approver", Ty::Identity, ""),
                field("role", Ty::Identity, ""),
                field("holds", Ty::Bool, ""),
            ],
        },
        Shape {
            name: "DecisionRevokedFact",
            doc: "A trusted fact about one decision of a set: whether it was withdrawn.",
            extends: None,
            output: false,
            fields: vec![
                field("decision_id", Ty::Identity, ""),
                field("revoked", Ty::Bool, ""),
            ],
        },
        Shape {
            name: "DelegationRevokedFact",
            doc: "A trusted fact about one delegation link, named by its digest: whether it was revoked.",
            extends: None,
            output: false,
            fields: vec![
                field("delegation", Ty::Digest, "The link's digest (`delegationDigest`)."),
                field("revoked", Ty::Bool, ""),
            ],
        },
        Shape {
            name: "QuorumRule",
            doc: "A contract's quorum: how many distinct approvers, which roles (how many of each), in what order, and whether one rejection vetoes.",
            extends: None,
            output: false,
            fields: vec![
                field("approvers", Ty::Int, "Distinct approvers needed: 1 to 16."),
                optional("roles", list(Ty::Shape("RoleCount")), "Non-empty, distinct roles, each `count` at least 1, their sum at most `approvers`."),
                optional("order", Ty::OneOf(vec!["any", "as_listed"]), "`as_listed` (which needs `roles`): each role's approvals after the earlier roles'; default `any`."),
                optional("veto", Ty::OneOf(vec!["any_rejection", "none"]), "Default `any_rejection`: one rejection rejects; `none`: a rejection just does not count."),
            ],
        },
        Shape {
            name: "RoleCount",
            doc: "A role and how many approvals it needs (still).",
            extends: None,
            output: true,
            fields: vec![
                field("role", Ty::Identity, ""),
                field("count", Ty::Int, ""),
            ],
        },
        Shape {
            name: "CountedApproval",
            doc: "A member of a set that counted towards the quorum.",
            extends: None,
            output: true,
            fields: vec![
                field("approver", Ty::Identity, "The counting identity: the record's approver, or the root delegator of its chain."),
                field("role", nullable(Ty::Identity), "The role it counted for, or `null`."),
                field("decision_id", Ty::Identity, ""),
                field("delegate", nullable(Ty::Identity), "Who decided through a chain (the record's approver), else `null`."),
                field("delegations", list(Ty::Digest), "The digests of the chain's links, root first (`delegationDigest`)."),
            ],
        },
        Shape {
            name: "QuorumState",
            doc: "Who counted and what is still missing; in a verdict exactly when the contract in force has a quorum.",
            extends: None,
            output: true,
            fields: vec![
                field("required", Ty::Int, "How many distinct approvers the quorum needs."),
                field("counted", list(Ty::Shape("CountedApproval")), "The members that counted, in set order."),
                field("missing", Ty::Int, "How many approvals are still needed; the quorum holds exactly when it is 0."),
                field("missing_roles", list(Ty::Shape("RoleCount")), "The roles still short, in the contract's order."),
            ],
        },
        Shape {
            name: "DelegationDocument",
            doc: "The right to approve on the delegator's behalf, within a scope: a tenant, tools, conditions on the action and a window.",
            extends: None,
            output: false,
            fields: vec![
                field("delegation_id", Ty::Identity, ""),
                field("delegator", Ty::Identity, "Who delegates: the root of a chain counts as the approver."),
                field("delegate", Ty::Identity, "Who may decide on the delegator's behalf; never the delegator."),
                field("tenant", Ty::Identity, ""),
                field("tools", list(Ty::Identity), "The tools it covers: non-empty, distinct."),
                optional("when", list(Ty::Shape("ApprovalCondition")), "Conditions on the whole action envelope (`/args/amount_minor`), all of which must hold."),
                field("not_before", Ty::Millis, ""),
                field("not_after", Ty::Millis, "After `not_before`."),
            ],
        },
        Shape {
            name: "SignedDelegation",
            doc: "A service-signed delegation: a DSSE envelope whose payload is the exact canonical bytes of a delegation document.",
            extends: None,
            output: true,
            fields: vec![
                field("payloadType", Ty::OneOf(vec![DELEGATION_PAYLOAD_TYPE]), ""),
                field("payload", Ty::Str, "The document's canonical bytes, base64url."),
                field("signatures", list(Ty::Shape("EnvelopeSignature")), "Exactly one signature."),
            ],
        },
        Shape {
            name: "VerifiedDelegation",
            doc: "A delegation link that verified: the document, its digest and who signed it.",
            extends: None,
            output: true,
            fields: vec![
                field("delegation", Ty::Shape("DelegationDocument"), "The document (for a passkey-approved one, without its assertion)."),
                field("digest", Ty::Digest, "The document's fingerprint, by which chains, facts and verdicts name it."),
                field("signer", nullable(Ty::Either(vec![Ty::Shape("ServiceSigner"), Ty::Shape("PasskeySigner")])), "`null` for a bare document."),
            ],
        },
    ]
}
