//! The one error model: a stable snake_case [`Code`] plus where it happened.

use std::fmt;

macro_rules! codes {
    ($($(#[doc = $doc:literal])* $variant:ident => $name:literal,)*) => {
        /// A stable, machine-readable error code.
        ///
        /// The snake_case names are a public contract shared by every runtime and listed in
        /// `conformance/codes.json`; a variant is never renamed or reused for another meaning.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The stable snake_case name of this code.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            /// What the code means: its documentation above, the one source of the meaning
            /// every runtime's documentation and `conformance/codes.json` repeat.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $(Code::$variant => concat!($($doc),*).trim_ascii(),)*
                }
            }

            /// The code with this snake_case name, if there is one.
            pub fn from_name(name: &str) -> Option<Code> {
                match name {
                    $($name => Some(Code::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

codes! {
    /// The input bytes are not well-formed UTF-8.
    InvalidUtf8 => "invalid_utf8",
    /// The input does not follow the RFC 8259 grammar.
    SyntaxError => "syntax_error",
    /// A complete JSON value is followed by something other than whitespace.
    TrailingContent => "trailing_content",
    /// The input starts with a byte-order mark (U+FEFF).
    ByteOrderMark => "byte_order_mark",
    /// An object has the same key twice (compared after unescaping).
    DuplicateKey => "duplicate_key",
    /// A string holds an unpaired UTF-16 surrogate, escaped or encoded.
    LoneSurrogate => "lone_surrogate",
    /// `NaN`, `Infinity` or another non-finite number.
    NonFiniteNumber => "non_finite_number",
    /// A number too large in magnitude for an IEEE 754 double.
    NumberOverflow => "number_overflow",
    /// Strict profile: the canonical form of a number would denote a different decimal value.
    InexactNumber => "inexact_number",
    /// Arrays and objects are nested deeper than the configured limit.
    DepthLimitExceeded => "depth_limit_exceeded",
    /// The input is larger than the configured limit.
    SizeLimitExceeded => "size_limit_exceeded",
    /// A host value has a type with no JSON meaning (bytes, Date, undefined, a function, ...).
    UnsupportedType => "unsupported_type",
    /// A host mapping has a key that is not a string.
    NonStringKey => "non_string_key",
    /// A host value contains itself.
    CyclicValue => "cyclic_value",
    /// A host array has holes.
    SparseArray => "sparse_array",
    /// An option passed by the caller is not recognised (for example an unknown profile name).
    InvalidOption => "invalid_option",
    /// A digest is not `sha256:` followed by 64 lowercase hex digits.
    InvalidDigest => "invalid_digest",
    /// A tool's argument schema uses a keyword, format or pattern feature outside the supported subset.
    UnsupportedSchema => "unsupported_schema",
    /// A tool's argument schema is malformed (a keyword with a value of the wrong shape).
    InvalidSchema => "invalid_schema",
    /// An object has a property its schema does not declare.
    UnknownField => "unknown_field",
    /// A required property is missing.
    MissingField => "missing_field",
    /// A value has the wrong JSON type (`"300"` or `true` where a number is expected).
    TypeMismatch => "type_mismatch",
    /// An integer outside ±(2^53 − 1), where no runtime can hold it exactly.
    UnsafeInteger => "unsafe_integer",
    /// A value is not one of the schema's `enum` values or not its `const`.
    EnumMismatch => "enum_mismatch",
    /// A number is outside `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum` or not a `multipleOf`.
    OutOfRange => "out_of_range",
    /// A string or array is shorter or longer than the schema allows.
    LengthOutOfRange => "length_out_of_range",
    /// A string does not match the schema's `pattern`.
    PatternMismatch => "pattern_mismatch",
    /// A string checked against a `pattern` is longer than the pattern input limit (10,000 code points) and its schema sets no `maxLength`.
    PatternInputTooLong => "pattern_input_too_long",
    /// A string does not match the schema's `format`.
    FormatMismatch => "format_mismatch",
    /// An array with `uniqueItems` has two equal items.
    DuplicateItems => "duplicate_items",
    /// A value matches none (`anyOf`) or not exactly one (`oneOf`) of the alternatives.
    NoMatchingAlternative => "no_matching_alternative",
    /// A tool contract is malformed: a missing or unknown field, a field of the wrong shape, or a
    /// tool name or version that is not an identifier.
    InvalidContract => "invalid_contract",
    /// An action envelope is malformed: a missing or unknown field, an identity that is not an
    /// identifier (empty, a space, an invisible or ambiguous character), a bad digest.
    InvalidAction => "invalid_action",
    /// An approval record is malformed (including an approver or id that is not an identifier).
    InvalidApproval => "invalid_approval",
    /// A trusted context is malformed (the executor's own server must supply a well-formed one),
    /// including a fact that does not name whom it is about.
    InvalidContext => "invalid_context",
    /// A budget is malformed, or a cost is negative or not an integer.
    InvalidBudget => "invalid_budget",
    /// A charge would take a budget's spending over its limit.
    BudgetExceeded => "budget_exceeded",
    /// A field that must be base64url is not canonical unpadded base64url (RFC 4648 section 5).
    InvalidBase64 => "invalid_base64",
    /// A key is malformed or unusable: not the declared type, not a curve point, of small order,
    /// not canonically encoded, or a private key where a public one belongs.
    InvalidKey => "invalid_key",
    /// A trusted key set is malformed: a keyid that is not its key's thumbprint, an empty validity
    /// window, a blank approver, passkeys without the WebAuthn relying party.
    InvalidKeySet => "invalid_key_set",
    /// A signed envelope is malformed: a missing or unknown field, or not exactly one signature.
    InvalidEnvelope => "invalid_envelope",
    /// A signed envelope's payloadType is not exactly the one its content needs:
    /// application/vnd.actionseal.approval+json for an approval record,
    /// application/vnd.actionseal.delegation+json for a delegation.
    PayloadTypeMismatch => "payload_type_mismatch",
    /// A signature does not verify with the key (or is not a well-formed signature at all).
    InvalidSignature => "invalid_signature",
    /// A signed payload is not already in RFC 8785 canonical form.
    NonCanonicalPayload => "non_canonical_payload",
    /// An approval carries no signature or passkey assertion where one is required.
    MissingProof => "missing_proof",
    /// The keyid or passkey credential is not in the trusted key set.
    UnknownKey => "unknown_key",
    /// The key or credential that proves the decision is not valid at the time the verifier
    /// judges it (the check's `now`, or the ledger's clock when the decision arrived), never
    /// the `decided_at` its signer wrote.
    KeyOutsideWindow => "key_outside_window",
    /// The key or credential may not sign for the record's approver.
    SignerNotAllowed => "signer_not_allowed",
    /// A passkey assertion is malformed: its fields, clientDataJSON, authenticatorData layout, or a
    /// cross-origin ceremony.
    InvalidAssertion => "invalid_assertion",
    /// A passkey assertion's challenge is not the fingerprint of the decision it is attached to.
    ChallengeMismatch => "challenge_mismatch",
    /// A passkey assertion's origin is not one the executor's server allows.
    OriginNotAllowed => "origin_not_allowed",
    /// A passkey assertion's rpIdHash is not the SHA-256 of the relying party id.
    RpIdMismatch => "rp_id_mismatch",
    /// A passkey assertion's flags do not say that the user was present (UP) and verified (UV).
    UserNotVerified => "user_not_verified",
    /// A passkey registration is malformed or not a "none" attestation of a new credential.
    InvalidRegistration => "invalid_registration",
    /// A field of a passkey registration or assertion is longer than WebAuthn needs (credential
    /// id 1023 bytes, attestation object 16 KiB, authenticator data and clientDataJSON 4 KiB,
    /// signature 1 KiB): refused before anything is decoded or parsed; the path names the field.
    PasskeyTooLarge => "passkey_too_large",
    /// A passkey's CBOR (attestation object, authenticator data's extensions, COSE key) has a map
    /// or array of more than 32 members, is nested deeper than 8 levels or is longer than 16 KiB:
    /// more than WebAuthn uses.
    CborLimitExceeded => "cbor_limit_exceeded",
    /// The ledger has no task with this id (or this identity).
    TaskNotFound => "task_not_found",
    /// The ledger has no approval with this approval_id.
    ApprovalNotFound => "approval_not_found",
    /// The ledger has no budget account with this name.
    BudgetNotFound => "budget_not_found",
    /// A task with this identity (tenant, job_id, request_id) already exists for another action digest.
    TaskConflict => "task_conflict",
    /// A decision_id already recorded with other content.
    DecisionConflict => "decision_conflict",
    /// A decision names another job, request or action digest than the task's frozen action.
    DecisionMismatch => "decision_mismatch",
    /// A decision arrived for a task that is not awaiting one (its state is in the message).
    TaskNotAwaitingDecision => "task_not_awaiting_decision",
    /// A claim lost: the task's approval was already claimed (by another executor, or earlier).
    AlreadyClaimed => "already_claimed",
    /// A claim on a task that has no usable approval (awaiting a decision, or rejected).
    TaskNotClaimable => "task_not_claimable",
    /// A completion for a task that is not claimed.
    TaskNotClaimed => "task_not_claimed",
    /// A reconciliation for a task whose outcome is not in doubt.
    TaskNotInDoubt => "task_not_in_doubt",
    /// A completion with a fence token older than the task's current one (a superseded claim).
    StaleFence => "stale_fence",
    /// A completion after the claim's lease ran out: the task's outcome is now in doubt.
    LeaseExpired => "lease_expired",
    /// A ledger operation's input is malformed (an executor, a lease, an outcome, a budget
    /// limit), or a proof verification's time is not a non-negative integer of ms.
    InvalidRequest => "invalid_request",
    /// A decision envelope is malformed: a missing or unknown field, a blank identity, a bad digest or time.
    InvalidDecision => "invalid_decision",
    /// A ledger URL is not `sqlite:PATH`, `sqlite::memory:` or a `postgres://` URL.
    InvalidLedgerUrl => "invalid_ledger_url",
    /// The ledger's database cannot be reached or opened (no server, refused, no such directory).
    LedgerUnavailable => "ledger_unavailable",
    /// The file or database is not an actionseal ledger (not SQLite, or foreign tables).
    NotALedger => "not_a_ledger",
    /// The ledger's schema was written by a newer version of actionseal.
    LedgerSchemaTooNew => "ledger_schema_too_new",
    /// The ledger's database failed during an operation; nothing of the operation was kept.
    LedgerStorage => "ledger_storage",
    /// An audit chain is broken: an event was edited, removed, reordered or is malformed.
    AuditChainBroken => "audit_chain_broken",
    /// An exported audit heads file is not `{"version": 1, "at", "heads": [{"chain", "seq",
    /// "digest"}]}`: another version, a missing or unknown member, a chain out of range or
    /// named twice.
    InvalidAuditHeads => "invalid_audit_heads",
    /// The ledger's recorded schema version is none that actionseal ever wrote (missing, zero
    /// or negative): the database was altered by hand, and it is not opened.
    LedgerSchemaInvalid => "ledger_schema_invalid",
    /// The triggers that keep the ledger's events append-only are missing, disabled or
    /// altered, and the role opening it cannot restore them (on PostgreSQL only the table's
    /// owner can): the ledger is not opened until the owner opens it once, which restores them
    /// and records that in the audit.
    LedgerUnprotected => "ledger_unprotected",
    /// An amendment changes who or which task the action is for (tenant, subject, job_id or
    /// request_id; the path names the field): that is another task, never an edit of this one.
    AmendIdentityChanged => "amend_identity_changed",
    /// An amendment changes the tool: another action, which needs its own proposal.
    AmendToolChanged => "amend_tool_changed",
    /// An amendment names (or is checked against) another contract than the task's: the task
    /// must be proposed again under the contract in force.
    AmendContractChanged => "amend_contract_changed",
    /// An amendment changes the policy version, which is the server's and never a reviewer's edit.
    AmendPolicyChanged => "amend_policy_changed",
    /// An amendment names an action digest that is no longer the task's (another reviewer
    /// amended it first): reload the task and amend what it holds now.
    AmendConflict => "amend_conflict",
    /// A decision's `decided_at` lies before its task's current round began (the proposal, the
    /// re-approval or the last amendment) or after the ledger's clock when it arrived: the
    /// time a signer writes is bounded by the ledger's own.
    DecidedOutsideRound => "decided_outside_round",
    /// A passkey assertion's signature counter is not greater than the last one the ledger
    /// recorded for that credential, while either is non-zero (WebAuthn's sign of a cloned
    /// authenticator or a replayed assertion).
    SignCountNotIncreasing => "sign_count_not_increasing",
    /// A ledger handle asked for a weaker proof policy than the one its database records;
    /// weakening it takes an explicit, audited change of the ledger's policy.
    ProofPolicyWeakened => "proof_policy_weakened",
    /// A stored integer (a fence, a time, a budget's minor units) is outside ±(2^53 − 1),
    /// which no ledger writes, or would pass the range of a 64-bit integer: the ledger's data
    /// was altered; nothing was written.
    LedgerValueOutOfRange => "ledger_value_out_of_range",
    /// A decision under a quorum comes from an approver who already decided in this approval
    /// round (its counting identity: `on_behalf_of` when it decided through a delegation, else
    /// `approver`): each identity counts once per round.
    ApproverAlreadyDecided => "approver_already_decided",
    /// A decision comes from someone the contract's separation of duties excludes from
    /// deciding about this task: the action's subject, the task's proposer or, when the
    /// contract lists `amender`, the reviewer who amended the action (the message names which).
    ApproverNotSeparate => "approver_not_separate",
    /// A delegation document is malformed: a missing or unknown member, an identity that is not
    /// an identifier, tools empty or listed twice, a condition outside the rule language, a
    /// window whose `not_after` is not after its `not_before`, or a delegator delegating to
    /// itself.
    InvalidDelegation => "invalid_delegation",
    /// A decision arrives at a ledger through a delegation chain that does not hold then: too
    /// deep, not connected from `on_behalf_of` to the approver, a cycle, a link wider than its
    /// parent, a link outside its window (at arrival or at `decided_at`), or the action outside
    /// a link's scope. The message names the check's reason (`delegation_widens`, ...).
    DelegationRefused => "delegation_refused",
    /// An inclusion proof does not show the leaf at its index in the tree of its size with
    /// that root (RFC 9162 §2.1.3.2): the event was edited, moved, or the proof is for another
    /// checkpoint.
    InclusionProofInvalid => "inclusion_proof_invalid",
    /// A consistency proof does not show the older tree to be a prefix of the newer one (RFC
    /// 9162 §2.1.4.2): the log's history was rewritten, truncated or forked between them.
    ConsistencyProofInvalid => "consistency_proof_invalid",
    /// A signed note, checkpoint, key string, cosignature or witness request is not in its C2SP
    /// form (signed-note, tlog-checkpoint, tlog-cosignature, tlog-witness): not UTF-8, a control
    /// character, a missing final newline, a bad signature line, non-canonical base64, a size
    /// or hash out of shape, too many signatures or proof lines. The offset is in the text.
    CheckpointInvalid => "checkpoint_invalid",
    /// A signed note has no verifying signature by a trusted key, a trusted key's signature or
    /// cosignature on it does not verify, or its origin is not one the verifier knows:
    /// configure the log's or witness's verifier key, or refuse the checkpoint.
    CheckpointUntrusted => "checkpoint_untrusted",
    /// A witness's latest cosigned size for the log is not the request's old size (C2SP
    /// tlog-witness 409): ask again from the size the message gives, with a consistency proof
    /// from it.
    CheckpointConflict => "checkpoint_conflict",
    /// An RFC 3161 time-stamp is not a well-formed, intact token: not a TimeStampResp or
    /// TimeStampToken, a status other than granted (the message gives the PKIStatus and
    /// failInfo), a malformed CMS SignedData or TSTInfo, signed attributes that do not match
    /// the TSTInfo or the signer's certificate, or a signature that does not verify.
    TimestampInvalid => "timestamp_invalid",
    /// An RFC 3161 time-stamp is intact but not from a trusted TSA: no certificate path to a
    /// configured root, a certificate outside its validity at the token's genTime, or a TSA
    /// certificate without the critical id-kp-timeStamping extended key usage.
    TimestampUntrusted => "timestamp_untrusted",
    /// An RFC 3161 time-stamp is intact and trusted but about something else: its message
    /// imprint is not the digest of the expected data, or its nonce or policy is not the
    /// expected one.
    TimestampMismatch => "timestamp_mismatch",
    /// An evidence bundle is malformed: not an object of the known members, another version, a
    /// hash that is not 32 bytes of base64, an event that is not an audit event, a document
    /// that does not parse.
    InvalidEvidence => "invalid_evidence",
    /// The trust an evidence bundle is verified against is malformed: no ledger key, a key
    /// string that does not parse, a window that ends before it starts, a witness quorum
    /// larger than the witnesses.
    InvalidEvidenceTrust => "invalid_evidence_trust",
    /// A document in an evidence bundle (an action, the contract, a reason, a decision's
    /// record or proof) is not the one the task's events fingerprint: it was altered.
    EvidenceMismatch => "evidence_mismatch",
    /// An evidence bundle's events are not the ones its export recorded, in that order: an
    /// event was removed, added or reordered.
    EvidenceIncomplete => "evidence_incomplete",
    /// An evidence bundle holds an event, action or decision of another task: a bundle is
    /// about one task and discloses nothing of any other.
    EvidenceOtherTask => "evidence_other_task",
    /// An evidence bundle's decisions do not meet the contract's quorum where its events say
    /// they did: a `quorum_met` event whose round's decisions, as the bundle's records hold
    /// them, are too few distinct approvers or roles, out of the roles' order, after a veto, or
    /// not the ones the event counts; a decision under a quorum that no round counts, or one
    /// that moved the task by itself. Only a ledger that broke its own rules records these.
    QuorumNotMet => "quorum_not_met",
    /// The ledger's time-stamping authority could not be asked (RFC 3161 §3.4 over HTTP): it
    /// did not answer, answered an HTTP error or another content type than
    /// application/timestamp-reply, or an answer too large for a time-stamp. A checkpoint is
    /// then stored and signed but has no token: make it again once the TSA answers (the
    /// ledger stamps its latest checkpoint), or fix the TSA URL in the server's
    /// configuration. A TSA whose answer is no valid token for the request is refused with
    /// the timestamp_invalid, timestamp_untrusted and timestamp_mismatch codes instead.
    TimestampUnavailable => "timestamp_unavailable",
    /// A SQLite ledger file does not exist at the path given, and the ledger was opened to
    /// refuse a missing file rather than create it (so that a mistyped path is not a new,
    /// empty ledger): create it explicitly, with the URL option `?mode=create` (or
    /// `actionseal ledger init`).
    LedgerNotFound => "ledger_not_found",
    /// The npm package's native addon did not load here (no prebuilt package for this
    /// platform, architecture and C library, or its optional dependency was not installed),
    /// so the package serves the WebAssembly build, which has every function but the ledger:
    /// install the platform package the message names, or run the ledger elsewhere (the
    /// Python package, the CLI).
    NativeBindingUnavailable => "native_binding_unavailable",
    /// A webhook delivery does not verify (Standard Webhooks): a header is missing or
    /// malformed, its timestamp is outside the tolerance by the verifier's clock, or no `v1`
    /// signature matches the body with the secret.
    WebhookUnverified => "webhook_unverified",
    /// A batch is malformed: not a non-empty array of actions under one contract and one
    /// tenant, two items with the same task identity, an unknown semantics, a header or an
    /// inclusion proof of the wrong shape, or a deselection naming no item or every item.
    InvalidBatch => "invalid_batch",
    /// The tool's contract has no `batch` member (or marks values sensitive, which a batch
    /// would freeze in the clear), so its calls are approved one at a time.
    BatchNotAllowed => "batch_not_allowed",
    /// A batch has more items than the contract's `batch.max_items` lets one decision cover.
    BatchTooLarge => "batch_too_large",
    /// A batch (or the claims made under its decision) goes over one of its caps: the count
    /// of items, the sum at a pointer, or the number of distinct targets at a pointer. The
    /// path names the cap.
    BatchCapExceeded => "batch_cap_exceeded",
    /// An item is not in the batch its decision covers: its inclusion proof does not lead to
    /// the batch's root, or it is under another contract or tenant than the batch.
    NotInBatch => "not_in_batch",
    /// The batch's circuit breaker is open: too many failed or unknown outcomes, or claims
    /// too fast. Nothing of the batch is claimed until a reviewer decides on the remainder.
    BreakerOpen => "breaker_open",
    /// An item of an all-or-nothing batch was claimed on its own: such a batch is claimed
    /// whole, after every item's pre-dispatch check holds, or not at all.
    BatchAllOrNothing => "batch_all_or_nothing",
    /// No batch with this id (or this decision's approval id) in the ledger (issue 28).
    BatchNotFound => "batch_not_found",
    /// A plain task operation (claim, complete, reconcile, amend) on an item of a batch, or
    /// a batch operation on a task that is none: a batch's items are claimed and finished
    /// through the batch operations, which hold them to the batch's caps and breaker.
    BatchItem => "batch_item",
    /// A claim of a task whose sensitive values were shredded (issue 29: redacted, or by the
    /// retention policy) before it ran: the values to run with are gone, so it cannot run.
    /// Its audit and evidence still verify.
    DisclosuresShredded => "disclosures_shredded",
    /// A disclosure that is not base64url of a JSON array `[salt, pointer, value]`, with a
    /// salt of 16 bytes in base64url and a pointer into the action's arguments.
    InvalidDisclosure => "invalid_disclosure",
    /// A disclosure whose JSON is not in its RFC 8785 canonical form: another spelling of the
    /// same value would be another digest, so only the canonical one is read.
    DisclosureNotCanonical => "disclosure_not_canonical",
    /// A commitment in the action whose disclosure was not given, where the values are needed
    /// (to run the call).
    DisclosureMissing => "disclosure_missing",
    /// A disclosure of a place that holds no commitment (not sensitive in this action, or
    /// absent), or a second disclosure of one place.
    DisclosureExtra => "disclosure_extra",
    /// A disclosure whose digest is not the commitment at its place: another salt or value,
    /// such as another task's disclosure or an altered one.
    DisclosureMismatch => "disclosure_mismatch",
    /// A place the contract marks sensitive holds a value in the clear where a commitment was
    /// due: the action was not committed, and the value would be kept wherever it is.
    NotCommitted => "not_committed",
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with a stable [`Code`], a human-readable message, and where it happened.
///
/// `path` is a JSON Pointer (RFC 6901) to the value concerned, empty for the root;
/// `offset` is the byte offset in the input text, when the input was text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    code: Code,
    message: String,
    path: String,
    offset: Option<usize>,
}

/// Result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error with this code and message, at the root and with no offset.
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            path: String::new(),
            offset: None,
        }
    }

    /// The same error under another code (a reader shared by two documents reports each
    /// document's own code).
    pub(crate) fn recode(mut self, code: Code) -> Error {
        self.code = code;
        self
    }

    pub(crate) fn at(code: Code, offset: usize, message: impl Into<String>) -> Error {
        Error::new(code, message).with_offset(offset)
    }

    /// The stable code.
    pub fn code(&self) -> Code {
        self.code
    }

    /// The message, without the code; not part of the stable contract.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// JSON Pointer to the value concerned (`""` for the root).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Byte offset in the input text, when known.
    pub fn offset(&self) -> Option<usize> {
        self.offset
    }

    /// Sets the byte offset.
    pub fn with_offset(mut self, offset: usize) -> Error {
        self.offset = Some(offset);
        self
    }

    /// The same error under another code: a document read inside another keeps the place
    /// and the message of its own reader, under the outer document's code.
    pub(crate) fn with_code(mut self, code: Code) -> Error {
        self.code = code;
        self
    }

    /// Prefixes the path with an object key, as a caller unwinding out of that member does.
    pub fn in_key(mut self, key: &str) -> Error {
        let mut path = String::with_capacity(key.len() + 1 + self.path.len());
        path.push('/');
        crate::json::pointer::push_escaped(&mut path, key);
        path.push_str(&self.path);
        self.path = path;
        self
    }

    /// Prefixes the path with a JSON Pointer, already escaped (a place found by a walk).
    pub(crate) fn in_pointer(mut self, pointer: &str) -> Error {
        self.path.insert_str(0, pointer);
        self
    }

    /// Prefixes the path with an array index.
    pub fn in_index(mut self, index: usize) -> Error {
        self.path = format!("/{index}{}", self.path);
        self
    }

    /// A host value of a type that JSON cannot represent; `type_name` is the host's name for it.
    pub fn unsupported_type(type_name: &str) -> Error {
        Error::new(
            Code::UnsupportedType,
            format!("{type_name} has no JSON representation"),
        )
    }

    /// A host mapping key that is not a string; `type_name` is the key's host type.
    pub fn non_string_key(type_name: &str) -> Error {
        Error::new(
            Code::NonStringKey,
            format!("object keys must be strings, not {type_name}"),
        )
    }

    /// A host container that contains itself.
    pub fn cyclic_value() -> Error {
        Error::new(Code::CyclicValue, "value contains itself")
    }

    /// A host array with a hole at `index`.
    pub fn sparse_array(index: usize) -> Error {
        Error::new(
            Code::SparseArray,
            format!("array has a hole at index {index}"),
        )
    }

    /// A host string with an unpaired surrogate.
    pub fn lone_surrogate() -> Error {
        Error::new(Code::LoneSurrogate, "string has an unpaired surrogate")
    }

    /// JSON text of a host type that is neither a string nor bytes; `type_name` is the host's
    /// name for it.
    pub fn not_json_text(type_name: &str) -> Error {
        Error::new(
            Code::UnsupportedType,
            format!("JSON text must be a string or bytes, not {type_name}"),
        )
    }

    /// A digest of a host type that is not a string; `type_name` is the host's name for it.
    pub fn not_a_digest(type_name: &str) -> Error {
        Error::new(
            Code::InvalidDigest,
            format!("a digest is a string, not {type_name}"),
        )
    }

    /// An options argument that is not an object (JavaScript hosts).
    pub fn options_not_an_object() -> Error {
        Error::invalid_option("options must be an object")
    }

    /// An options argument whose `profile` is not a string (JavaScript hosts).
    pub fn profile_not_a_string() -> Error {
        Error::invalid_option("options.profile must be a string")
    }

    /// An option the caller passed is malformed (`message` says which and how).
    pub fn invalid_option(message: impl Into<String>) -> Error {
        Error::new(Code::InvalidOption, message)
    }

    /// A host number too large for a double; `description` says which (such as "an integer
    /// of 5000 digits").
    pub fn number_overflow(description: &str) -> Error {
        Error::new(
            Code::NumberOverflow,
            format!("{description} is too large for a double"),
        )
    }

    /// Host containers nested deeper than `max_depth`.
    pub fn depth_limit(max_depth: usize) -> Error {
        Error::new(
            Code::DepthLimitExceeded,
            format!("nesting deeper than the limit of {max_depth}"),
        )
    }
}

impl fmt::Display for Error {
    /// `code: message`, then the location when there is one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)?;
        match (self.path.is_empty(), self.offset) {
            (true, None) => Ok(()),
            (true, Some(o)) => write!(f, " (at byte {o})"),
            (false, None) => write!(f, " (at {})", self.path),
            (false, Some(o)) => write!(f, " (at {}, byte {o})", self.path),
        }
    }
}

impl std::error::Error for Error {}
