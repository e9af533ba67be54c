//! Why a check does not permit, and what the executor then does: every [`Reason`] with its
//! stable name, its meaning and the [`Outcome`] it calls for, written once on the variants
//! below; `conformance/codes.json` is generated from them. The permit check
//! ([`crate::model::permit`]) reports them, and a proof that does not hold names one.

macro_rules! reasons {
    ($($(#[doc = $doc:literal])* $variant:ident => $name:literal, $outcome:ident;)*) => {
        /// Why a check did not permit, in the order checks report them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Reason {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Reason {
            /// Every reason, in report order.
            pub const ALL: &'static [Reason] = &[$(Reason::$variant,)*];

            /// The stable snake_case name.
            pub const fn as_str(self) -> &'static str {
                match self { $(Reason::$variant => $name,)* }
            }

            /// The outcome this reason calls for on its own.
            pub const fn outcome(self) -> Outcome {
                match self { $(Reason::$variant => Outcome::$outcome,)* }
            }

            /// When the reason is given: its documentation above, the one source of the
            /// meaning that `conformance/codes.json` and every runtime's documentation repeat.
            pub const fn meaning(self) -> &'static str {
                match self { $(Reason::$variant => concat!($($doc),*).trim_ascii(),)* }
            }
        }
    };
}

reasons! {
    /// No approval was presented and the call needs one (or whether it does cannot be told).
    NoApproval => "no_approval", Reapprove;
    /// The approval is malformed, its `action_digest` is not its frozen action's fingerprint
    /// (tampered), or it holds longer than the current contract's `max_approval_ms`.
    InvalidApproval => "invalid_approval", Reject;
    /// The context requires proof and the approval is a bare record.
    ProofMissing => "proof_missing", Reject;
    /// The signature or passkey assertion does not verify, or its envelope, payload or
    /// ceremony is wrong.
    ProofInvalid => "proof_invalid", Reject;
    /// The key or passkey credential is not in the context's key set, or the decision is
    /// outside its window.
    KeyUntrusted => "key_untrusted", Reject;
    /// The key or credential may not sign for the record's approver.
    SignerNotAllowed => "signer_not_allowed", Reject;
    /// The action is malformed or its arguments break the current contract (`action_error`
    /// says how).
    InvalidAction => "invalid_action", Reject;
    /// The server has no contract for the action's tool.
    UnknownTool => "unknown_tool", Reject;
    /// The reviewer rejected the action.
    DecisionRejected => "decision_rejected", Reject;
    /// The approval's `decided_at` is after the context's `now`: the record is forged or the
    /// clocks are skewed.
    DecidedInFuture => "decided_in_future", Reject;
    /// The action's or the approval's tenant is not the context's.
    TenantMismatch => "tenant_mismatch", Reject;
    /// The action differs from the approved one (`drift` lists the JSON Pointers).
    ActionDrift => "action_drift", Reject;
    /// The contract marks values sensitive and the context's `disclosures` do not open the
    /// approved action's commitments: one is missing, extra, not the one committed, or the
    /// approved action holds a value in the clear (`action_error` gives the code and where).
    DisclosureInvalid => "disclosure_invalid", Reject;
    /// `now >= expires_at`: the instant of expiry is already expired.
    Expired => "expired", Reapprove;
    /// The approver may no longer approve, or the context's fact is about someone else or
    /// missing.
    ApproverUnauthorized => "approver_unauthorized", Reapprove;
    /// The subject may no longer perform the action, or the context's fact is about someone
    /// else.
    SubjectUnauthorized => "subject_unauthorized", Reject;
    /// The policy version now in force is not the action's or the approval's.
    PolicyDrift => "policy_drift", Reapprove;
    /// The tool's contract now in force is not the action's or the approval's.
    ContractDrift => "contract_drift", Reapprove;
    /// The approval was revoked, or the context's fact is about another approval or missing.
    Revoked => "revoked", Reapprove;
    /// The set holds one decision (`decision_id`) twice.
    DuplicateDecision => "duplicate_decision", Reject;
    /// Members of the set name different `approval_id`s (another round) or different action
    /// digests.
    OtherRound => "other_round", Reject;
    /// A delegation link is malformed, its signature or assertion does not verify, its key is
    /// untrusted or may not sign for its delegator, proof is required and a link is bare, or
    /// the chain does not connect `on_behalf_of` to the record's approver.
    DelegationInvalid => "delegation_invalid", Reject;
    /// A delegation chain has more than 4 links.
    DelegationTooDeep => "delegation_too_deep", Reject;
    /// An identity repeats along a delegation chain.
    DelegationCycle => "delegation_cycle", Reject;
    /// A delegation link's scope is not within its parent's.
    DelegationWidens => "delegation_widens", Reject;
    /// The action is outside some delegation link's scope (tenant, tool, conditions).
    DelegationOutOfScope => "delegation_out_of_scope", Reject;
    /// `now` is outside a delegation link's window, or the decision was made before a link's
    /// `not_before`.
    DelegationExpired => "delegation_expired", Reapprove;
    /// A delegation link is revoked, or the context's fact about it is missing.
    DelegationRevoked => "delegation_revoked", Reapprove;
    /// A member's role is not held by its counting identity, or the context has no fact
    /// saying so.
    RoleNotHeld => "role_not_held", Reapprove;
    /// A member's counting identity or its delegate is the action's subject.
    ApproverIsSubject => "approver_is_subject", Reapprove;
    /// A member's counting identity or its delegate proposed the task, or the context's
    /// `proposer` fact is missing.
    ApproverIsProposer => "approver_is_proposer", Reapprove;
    /// A member's counting identity or its delegate amended the action before the decision,
    /// or the context's `amended_by` fact is missing for an amended record.
    ApproverAmended => "approver_amended", Reapprove;
    /// Two approving members are one person: they share a counting identity or a delegate
    /// (aliases through delegation included).
    ApproverCountedTwice => "approver_counted_twice", Reapprove;
    /// The quorum's roles are ordered and a counted approval of a later role was decided
    /// before one of an earlier role.
    QuorumOutOfOrder => "quorum_out_of_order", Reapprove;
    /// Fewer approvals count than the quorum needs, or a role has fewer than its count.
    QuorumShort => "quorum_short", Reapprove;
    /// The item is not in the batch the decision covers: its inclusion proof does not lead to
    /// the batch's root, the batch's header is not the decision's, or the item is under
    /// another contract or tenant than the batch.
    NotInBatch => "not_in_batch", Reject;
    /// The batch's circuit breaker is open (the trusted context says so): nothing of the batch
    /// runs until a reviewer decides on the remainder.
    BreakerOpen => "breaker_open", Reapprove;
    /// The item was presented earlier in the same check of a batch: only its first
    /// presentation may be claimed, since an item runs once.
    ItemRepeated => "item_repeated", Reject;
}

/// What the executor does with the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// Dispatch it.
    Permit,
    /// Do not dispatch; send the same task back for approval.
    Reapprove,
    /// Do not dispatch; the call is wrong as presented.
    Reject,
}

impl Outcome {
    /// `permit`, `reapprove` or `reject`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Permit => "permit",
            Outcome::Reapprove => "reapprove",
            Outcome::Reject => "reject",
        }
    }
}
