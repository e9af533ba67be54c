//! The rows of the function table ([`super::functions`]), in the order the Python stub
//! declares them: a class, then its members. To add a function: add its row here (the Python
//! signature with `.py`, the TypeScript one with `.ts`, `.wasm` where the wasm build differs,
//! `.node_only()` where it has none), run `cargo run -p actionseal-conformance --bin regen`
//! and commit the regenerated stub; the binding's own attributes (`#[napi(ts_args_type)]`,
//! `unchecked_param_type`) must then give what the row says.

use super::functions::{
    attribute, class, constructor, function, getter, method, static_method, Function,
};

/// Every row.
pub fn table() -> Vec<Function> {
    vec![
        attribute("__version__", "str", ""),
        class("ActionsealError", "Raised when input is refused, a value of the wrong type included; `code` says why.")
            .py_base("ValueError")
            .ts_class(),
        attribute("ActionsealError.code", "ErrorCode", "Stable snake_case error code, one of conformance/codes.json."),
        attribute("ActionsealError.path", "str", "JSON Pointer to the value concerned, `\"\"` for the root."),
        attribute("ActionsealError.offset", "Optional[int]", "Byte offset in the UTF-8 input text, or None."),
        function("canonicalize", "The RFC 8785 canonical JSON text of a value.")
            .py("value: _Value, *, profile: _Profile = \"strict\"", "str")
            .ts("value: unknown, options?: Options | null", "string"),
        function("fingerprint", "`\"sha256:<64 hex>\"` of the canonical text of a value.")
            .py("value: _Value, *, profile: _Profile = \"strict\"", "str")
            .ts("value: unknown, options?: Options | null", "string"),
        function("canonicalize_json", "The RFC 8785 canonical form of JSON text given as str or UTF-8 bytes.")
            .py("text: Union[str, bytes], *, profile: _Profile = \"strict\"", "str")
            .ts("text: string | Uint8Array, options?: Options | null", "string")
            .wasm("text: JsonText, options?: Options | null", "string"),
        function("fingerprint_json", "`\"sha256:<64 hex>\"` of the canonical form of JSON text.")
            .py("text: Union[str, bytes], *, profile: _Profile = \"strict\"", "str")
            .ts("text: string | Uint8Array, options?: Options | null", "string")
            .wasm("text: JsonText, options?: Options | null", "string"),
        function("digest_equal", "Whether two fingerprints name the same digest, compared in constant time; anything that is not a well-formed fingerprint str is equal to nothing. Never raises.")
            .py("a: object, b: object", "bool")
            .ts("a: unknown, b: unknown", "boolean"),
        function("loads", "Strictly parsed JSON text as Python values; integral numbers within ±(2^53 − 1) are int, all others float. Duplicate keys, lone surrogates and (strict) inexact numbers raise.")
            .py("text: Union[str, bytes], *, profile: _Profile = \"strict\"", "_Json"),
        function("parse_json", "JSON text parsed as strictly as every function reads JSON, as fresh plain values (JavaScript's `loads`).")
            .ts("text: string | Uint8Array, options?: Options | null", "unknown")
            .wasm("text: JsonText, options?: Options | null", "unknown"),
        function("short_fingerprint", "The first 64 bits of a fingerprint as four groups of four hex digits.")
            .py("digest: str", "str")
            .ts("digest: string", "string"),
        function("notices", "The strings and keys of the value with characters a reader could miss or misread (invisible, non-ASCII, leading or trailing spaces): one notice per string, with its pointer, how many, and the first 64 with their positions.")
            .py("value: _Value", "List[_Notice]")
            .ts("value: unknown", "Notice[]")
            .wasm("value: unknown, options?: undefined | null", "Notice[]"),
        function("gate_step", "What a framework adapter does after one ledger step of a governed tool call, as core decides it for every runtime. The step is `{step: \"propose\", task, presented}`, `{step: \"propose\", tool, error}`, `{step: \"claim\", outcome}`, `{step: \"claim\", task, error}`, `{step: \"complete\", error}`, `{step: \"invoke\", tool}`, `{step: \"invoke\", tool, task}` (a tool without a contract called for another tool's task), `{step: \"resume\", task}`, `{step: \"route\", tool, unknown: \"tool\" | \"task\" | \"job\"}`, `{step: \"route\", tool, error}` (an upstream schema outside core's subset), `{step: \"elicit\", task, url}` (an MCP gateway's approval request), `{step: \"ran\", body: \"returned\" | \"reported_error\" | \"raised\"}`, `{step: \"turn\", calls: [{action, contract}]}` (a model turn's governed calls, frozen, with their contracts' documents) or `{step: \"turn\", error}` (`propose_batch` failed); a `propose` or `claim` step with a task may carry the ledger's `batch` of an item (`error`: the code, path and message of the error caught). It returns `{decision: \"claim\" | \"run\" | \"pause\" | \"refuse\" | \"raise\" | \"keep\" | \"approve\" | \"wait\" | \"elicit\" | \"record\" | \"turn\" | \"alone\", ...}`; a refusal's `message` is the exact text the model reads. A malformed step raises `invalid_request`.")
            .py("step: Mapping[str, Any]", "Dict[str, Any]")
            .ts("step: { step: 'propose' | 'claim' | 'complete' | 'invoke' | 'resume' | 'route' | 'ran' | 'elicit' | 'turn', [member: string]: unknown }", "{ decision: 'claim' | 'run' | 'pause' | 'refuse' | 'raise' | 'keep' | 'approve' | 'wait' | 'elicit' | 'record' | 'turn' | 'alone', [member: string]: any }")
            .wasm("step: { step: 'propose' | 'claim' | 'complete' | 'invoke' | 'resume' | 'route' | 'ran' | 'elicit' | 'turn', [member: string]: unknown }, options?: undefined | null", "{ decision: 'claim' | 'run' | 'pause' | 'refuse' | 'raise' | 'keep' | 'approve' | 'wait' | 'elicit' | 'record' | 'turn' | 'alone', [member: string]: any }"),
        function("gate_defaults", "A framework adapter's defaults when the application names none, the same in every runtime: `{lease_ms, executor, proposer}` (a claim's lease in ms, who claims and completes, who proposes).")
            .py("", "Dict[str, Any]")
            .ts("", "{ lease_ms: number, executor: string, proposer: string }"),
        class("Contract", "A validated tool contract, loaded once and shared; immutable, thread-safe, picklable.")
            .ts_class(),
        constructor("Contract.__init__", "Loads a contract document; raises ActionsealError when it is not one.")
            .py("document: Dict[str, Any]", "None")
            .ts("document: ContractDocument", "")
            .wasm("document: ContractDocument, options?: undefined | null", ""),
        getter("Contract.digest", "The contract's fingerprint, carried by every action made under it.")
            .py("", "str")
            .ts("", "string"),
        getter("Contract.tool", "The tool name.")
            .py("", "str")
            .ts("", "string"),
        getter("Contract.version", "The contract version.")
            .py("", "str")
            .ts("", "string"),
        getter("Contract.effect", "Whether the tool only reads or also changes something.")
            .py("", "Literal[\"read\", \"write\"]")
            .ts("", "'read' | 'write'")
            .wasm("", "\"read\" | \"write\""),
        getter("Contract.cost_minor", "The cost of one call, in minor units.")
            .py("", "int")
            .ts("", "number"),
        getter("Contract.document", "The contract document as loaded (a new dict on each access).")
            .py("", "Dict[str, Any]")
            .ts("", "ContractDocument"),
        method("Contract.requires_approval", "Whether a call with these arguments needs an approval; validates them first.")
            .py("args: Dict[str, Any]", "_Requirement")
            .ts("args: object", "Requirement")
            .wasm("args: object, options?: undefined | null", "Requirement"),
        method("Contract.validate_args", "Raises ActionsealError with the first way the arguments break the schema.")
            .py("args: Dict[str, Any]", "None")
            .ts("args: object", "void")
            .wasm("args: object, options?: undefined | null", "void"),
        method("Contract.validate_action", "Raises ActionsealError unless the action is an envelope for a call of this contract.")
            .py("action: Dict[str, Any]", "None")
            .ts("action: object", "void")
            .wasm("action: object, options?: undefined | null", "void"),
        method("Contract.review_action", "Whether a frozen action fits this contract, its commitments held back, and needs a person.")
            .py("action: Dict[str, Any]", "_Requirement")
            .ts("action: object", "Requirement")
            .wasm("action: object, options?: undefined | null", "Requirement"),
        method("Contract.__eq__", "")
            .py("other: object, /", "bool"),
        method("Contract.__hash__", "")
            .py("", "int"),
        class("Approval", "An approval record loaded once, for repeated checks; immutable, thread-safe, picklable.")
            .ts_class(),
        constructor("Approval.__init__", "Loads a record; raises ActionsealError (`invalid_approval`) when it is not one.")
            .py("record: Dict[str, Any]", "None")
            .ts("record: ApprovalRecord", "")
            .wasm("record: ApprovalRecord, options?: undefined | null", ""),
        getter("Approval.record", "The record as loaded (a new dict on each access).")
            .py("", "Dict[str, Any]")
            .ts("", "ApprovalRecord"),
        getter("Approval.action", "The frozen action (a new dict on each access).")
            .py("", "Dict[str, Any]")
            .ts("", "ActionEnvelope"),
        getter("Approval.action_digest", "The fingerprint the record claims for its frozen action.")
            .py("", "str")
            .ts("", "string"),
        getter("Approval.sealed", "Whether `action_digest` is the frozen action's fingerprint.")
            .py("", "bool")
            .ts("", "boolean"),
        class("Schema", "A tool-argument JSON Schema (the strict subset contracts use), compiled once.")
            .ts_class(),
        constructor("Schema.__init__", "Compiles a schema; raises ActionsealError (unsupported_schema, invalid_schema).")
            .py("schema: Dict[str, Any]", "None")
            .ts("schema: object", "")
            .wasm("schema: object | boolean, options?: undefined | null", ""),
        method("Schema.validate", "Raises ActionsealError with the first way the value breaks the schema.")
            .py("value: Any", "None")
            .ts("value: unknown", "void")
            .wasm("value: unknown, options?: undefined | null", "void"),
        function("requires_approval", "Whether a call of the contract's tool with these arguments needs an approval.")
            .py("contract: Union[Contract, Dict[str, Any]], args: Dict[str, Any]", "_Requirement")
            .ts("contract: Contract | ContractDocument, args: object", "Requirement")
            .wasm("contract: Contract | ContractDocument, args: object, options?: undefined | null", "Requirement"),
        function("action", "The action envelope a reviewer approves, with `tool` and `contract` filled in.")
            .py("contract: Union[Contract, Dict[str, Any]], args: Dict[str, Any], *, tenant: str, subject: str, job_id: str, request_id: str, policy_version: str", "Dict[str, Any]")
            .ts("contract: Contract | ContractDocument, args: object, ids: ActionIds", "ActionEnvelope")
            .wasm("contract: Contract | ContractDocument, args: object, ids: ActionIds, options?: undefined | null", "ActionEnvelope"),
        function("approve", "The approval record of a decision about exactly this action (times in ms); `proposed_digest`: the model's proposal, when a reviewer amended it first.")
            .py("action: Dict[str, Any], *, approval_id: str, decision_id: str, decision: Literal[\"approved\", \"rejected\"], approver: str, decided_at: int, expires_at: int, proposed_digest: str = ..., role: str = ..., on_behalf_of: str = ..., delegation: List[Union[_SignedDelegation, _DelegationDocument]] = ...", "Dict[str, Any]")
            .ts("action: ActionEnvelope, decision: DecisionInput", "ApprovalRecord")
            .wasm("action: ActionEnvelope, decision: DecisionInput, options?: undefined | null", "ApprovalRecord"),
        function("commit_action", "The action envelope for a call of `contract`'s tool with each value the contract marks sensitive committed: `{action, action_digest, disclosures}`, each disclosure salted from the host's CSPRNG (`salts`, one base64url 16-byte salt per value, only for reproducible tests).")
            .py("contract: Union[Contract, Dict[str, Any]], args: Dict[str, Any], *, tenant: str, subject: str, job_id: str, request_id: str, policy_version: str, salts: Optional[List[str]] = None", "_CommittedAction")
            .ts("contract: Contract | ContractDocument, args: object, ids: ActionIds, salts?: string[] | null", "CommittedAction"),
        function("reveal_action", "The committed `action` with its sensitive values back from `disclosures`, each checked against the commitment at its place: `every` needs them all (to run the call), `given` leaves the rest committed (to show a reviewer); raises the disclosure_* codes.")
            .py("contract: Union[Contract, Dict[str, Any]], action: Dict[str, Any], disclosures: List[str], coverage: Literal[\"every\", \"given\"]", "Dict[str, Any]")
            .ts("contract: Contract | ContractDocument, action: ActionEnvelope, disclosures: string[], coverage: 'every' | 'given'", "ActionEnvelope"),
        function("amend", "A reviewer's edit of `current` checked as `Ledger.amend` checks it: the amended action, both fingerprints and the pointers that changed; raises the amend_* codes or the schema's, the path inside `replacement`.")
            .py("current: Dict[str, Any], replacement: Dict[str, Any], contract: Union[Contract, Dict[str, Any]]", "_AmendedAction")
            .ts("current: ActionEnvelope, replacement: ActionEnvelope, contract: Contract | ContractDocument", "AmendedAction")
            .wasm("current: ActionEnvelope, replacement: ActionEnvelope, contract: Contract | ContractDocument, options?: undefined | null", "AmendedAction"),
        function("check", "The permit check before dispatch: is `action` the approved action, does the approval still hold, do the people and rules behind it stand? `approval` is an `Approval` (loaded once: fastest), an approval record, a signed envelope or a passkey-approved record (whose proof the context's `proof` key set must verify), or none (`None`, `null` or `undefined`). Only a malformed context is an error (`invalid_context`, or the contract's own error under `/contract`); everything wrong with the approval or the action is a reason in the verdict. The context's `contract` may be a `Contract`, which is then not compiled again.")
            .py("approval: Union[Approval, Dict[str, Any], _SignedEnvelope, None], action: Dict[str, Any], context: Dict[str, Any]", "_Verdict")
            .ts("approval: Approval | ApprovalRecord | SignedEnvelope | PasskeyApprovedRecord | null | undefined, action: ActionEnvelope, context: CheckContext", "Verdict")
            .wasm("approval: Approval | ApprovalRecord | SignedEnvelope | PasskeyApprovedRecord | null | undefined, action: object, context: CheckContext, options?: undefined | null", "Verdict"),
        function("check_set", "The permit check of a set of approvals (a quorum's members: each a record, a signed envelope or a passkey-approved record, as `check` takes one), all about `action`: does the contract's quorum hold, with every member standing? An empty list is no approval. Only a malformed context or a set that is not a list raises; everything wrong with a member, the set or the action is a reason in the verdict, whose `quorum` says who counted and what is missing.")
            .py("approvals: List[Union[Dict[str, Any], _SignedEnvelope]], action: Dict[str, Any], context: Dict[str, Any]", "_Verdict")
            .ts("approvals: Array<ApprovalRecord | SignedEnvelope | PasskeyApprovedRecord>, action: ActionEnvelope, context: CheckContext", "Verdict"),
        function("charge", "The budget with `cost_minor` more spent; raises `budget_exceeded` past the limit.")
            .py("budget: _Budget, cost_minor: int", "_Budget")
            .ts("budget: Budget, costMinor: number", "Budget")
            .wasm("budget: Budget, costMinor: number, options?: undefined | null", "Budget"),
        class("SigningKey", "An Ed25519 private key that signs approval records; immutable, not picklable.")
            .ts_class(),
        constructor("SigningKey.__init__", "Loads a private JWK (with `d`) or a base64url seed; raises `invalid_key`.")
            .py("key: Union[_Ed25519PrivateJwk, str]", "None")
            .ts("key: Ed25519PrivateJwk | string", ""),
        static_method("SigningKey.generate", "A new key whose seed comes from `os.urandom`.")
            .py("", "\"SigningKey\"")
            .ts("", "SigningKey"),
        getter("SigningKey.keyid", "The public key's RFC 7638 thumbprint.")
            .py("", "str")
            .ts("", "string"),
        getter("SigningKey.public_jwk", "The public JWK, with `kid`, for the executor's key set.")
            .py("", "_Ed25519Jwk")
            .ts("", "Ed25519Jwk"),
        method("SigningKey.to_jwk", "The private JWK: keep it secret.")
            .py("", "_Ed25519PrivateJwk")
            .ts("", "Ed25519PrivateJwk"),
        method("SigningKey.sign", "The DSSE envelope of a sealed approval record (deterministic).")
            .py("record: Dict[str, Any]", "_SignedEnvelope")
            .ts("record: ApprovalRecord", "SignedEnvelope"),
        function("public_key", "A public key (JWK or raw base64url) as its normalized JWK, `kid` its thumbprint.")
            .py("key: Union[_Ed25519Jwk, str]", "_Ed25519Jwk")
            .ts("key: Ed25519Jwk | string", "Ed25519Jwk"),
        function("verify_envelope", "Verifies a signed envelope against the executor's key set, each key judged at `at` (ms: the verifier's clock, or a ledger's `verified_at`); raises why it does not hold.")
            .py("envelope: _SignedEnvelope, keys: Dict[str, Any], at: int", "_VerifiedProof")
            .ts("envelope: SignedEnvelope, keys: KeySet, at: number", "VerifiedProof"),
        function("verify_passkey", "Verifies a passkey-approved record against the key set, the credential judged at `at`; raises why it does not hold.")
            .py("record: Dict[str, Any], keys: Dict[str, Any], at: int", "_VerifiedProof")
            .ts("record: PasskeyApprovedRecord, keys: KeySet, at: number", "VerifiedProof"),
        function("verify_proof", "`verify_envelope` or `verify_passkey`, whichever proof the approval carries.")
            .py("approval: Dict[str, Any], keys: Dict[str, Any], at: int", "_VerifiedProof")
            .ts("approval: SignedEnvelope | PasskeyApprovedRecord, keys: KeySet, at: number", "VerifiedProof"),
        function("sign_delegation", "The DSSE envelope of a delegation document signed by `key` (a `SigningKey`, or what `SigningKey` loads), deterministic.")
            .py("document: _DelegationDocument, key: Union[SigningKey, _Ed25519PrivateJwk, str]", "_SignedDelegation")
            .ts("document: DelegationDocument, key: SigningKey | Ed25519PrivateJwk | string", "SignedDelegation"),
        function("verify_delegation", "Verifies one link of a delegation chain (a signed envelope, a passkey-approved document or a bare document) against the key set, the key judged at `at`; raises why it does not hold.")
            .py("link: Dict[str, Any], keys: Dict[str, Any], at: int", "_VerifiedDelegation")
            .ts("link: SignedDelegation | DelegationDocument, keys: KeySet, at: number", "VerifiedDelegation"),
        function("batch_build", "The batch of `actions` under the contract, as a reviewer's page and an executor need it: the frozen header, the batch fingerprint a decision binds, each item's fingerprint, task id and inclusion proof, and the totals under the caps; `server` narrows the contract's batch policy.")
            .py("contract: Union[Contract, Dict[str, Any]], semantics: Literal[\"all_or_nothing\", \"per_item\"], actions: List[Dict[str, Any]], server: Optional[_BatchPolicy] = None", "_Batch")
            .ts("contract: Contract | ContractDocument, semantics: 'all_or_nothing' | 'per_item', actions: ActionEnvelope[], server?: BatchPolicy | null", "Batch"),
        function("batch_deselect", "The batch `batch_build` makes without the items at `indices` (a reviewer's deselection): the remainder, its new fingerprint, and `proposed_digest`, the fingerprint of the batch as proposed.")
            .py("contract: Union[Contract, Dict[str, Any]], semantics: Literal[\"all_or_nothing\", \"per_item\"], actions: List[Dict[str, Any]], indices: List[int], server: Optional[_BatchPolicy] = None", "_DeselectedBatch")
            .ts("contract: Contract | ContractDocument, semantics: 'all_or_nothing' | 'per_item', actions: ActionEnvelope[], indices: number[], server?: BatchPolicy | null", "DeselectedBatch"),
        function("batch_verify_item", "Verifies that `item` (`{action, proof}`) is in the batch `header` describes: its inclusion proof leads to the header's root; raises `not_in_batch` otherwise.")
            .py("header: _BatchHeader, item: _BatchItem", "_VerifiedItem")
            .ts("header: BatchHeader, item: BatchItem", "VerifiedItem"),
        function("batch_decide", "The decision record of a reviewer's decision about the whole batch `header` describes: `batch` (the frozen header) and `batch_digest` in place of an approval's `action` and `action_digest`.")
            .py("header: _BatchHeader, *, approval_id: str, decision_id: str, decision: Literal[\"approved\", \"rejected\"], approver: str, decided_at: int, expires_at: int, proposed_digest: str = ..., role: str = ..., on_behalf_of: str = ..., delegation: List[Union[_SignedDelegation, _DelegationDocument]] = ...", "Dict[str, Any]")
            .ts("header: BatchHeader, decision: DecisionInput", "BatchDecisionRecord"),
        function("batch_verify_decision", "Verifies the proof a batch decision carries (a signed envelope or a passkey-approved record) against the key set, the key judged at `at`; raises why it does not hold.")
            .py("decision: Dict[str, Any], keys: Dict[str, Any], at: int", "_VerifiedBatchProof")
            .ts("decision: SignedEnvelope | PasskeyApprovedRecord, keys: KeySet, at: number", "VerifiedBatchProof"),
        function("check_item", "The permit check of one item of a batch before dispatch: the batch decision(s) checked as `check_set` checks approvals of one action, but against the item (`{action, proof}`: its inclusion first, `not_in_batch`) and its frozen action (drift). Only a malformed context raises.")
            .py("approvals: List[Union[Dict[str, Any], _SignedEnvelope]], item: _BatchItem, action: Dict[str, Any], context: Dict[str, Any]", "_Verdict")
            .ts("approvals: Array<BatchDecisionRecord | SignedEnvelope | PasskeyApprovedRecord>, item: BatchItem, action: ActionEnvelope, context: CheckContext", "Verdict"),
        function("check_batch", "The permit check of several items of one batch (`items[i]` presented as `actions[i]`), each as `check_item` checks it, and which of them may be claimed now: under `all_or_nothing` every item or none, under `per_item` each permitted one.")
            .py("approvals: List[Union[Dict[str, Any], _SignedEnvelope]], items: List[_BatchItem], actions: List[Dict[str, Any]], context: Dict[str, Any]", "_BatchVerdict")
            .ts("approvals: Array<BatchDecisionRecord | SignedEnvelope | PasskeyApprovedRecord>, items: BatchItem[], actions: ActionEnvelope[], context: CheckContext", "BatchVerdict"),
        function("breaker_step", "One event of a batch's circuit breaker: `policy` its thresholds and `breaker` its stored state (null or None: no thresholds, a new closed breaker), `event` `{kind: claim | outcome | redecided, outcome?, at}`. Returns the new state and the transition; a claim while open raises `breaker_open`.")
            .py("policy: Optional[_BreakerPolicy], breaker: Optional[_Breaker], event: _BreakerEvent", "_BreakerStep")
            .ts("policy: BreakerPolicy | null, breaker: Breaker | null, event: BreakerEvent", "BreakerStep"),
        function("delegation_digest", "`\"sha256:<64 hex>\"` of a delegation document: the name a chain's links, revocation facts and verdicts give it.")
            .py("document: _DelegationDocument", "str")
            .ts("document: DelegationDocument", "string"),
        function("sign_webhook", "The Standard Webhooks headers of `body` (a str or UTF-8 bytes) sent as delivery `webhook_id` at `at_ms`.")
            .py("secret: str, webhook_id: str, at_ms: int, body: Union[str, bytes]", "Dict[str, str]")
            .ts("secret: string, webhookId: string, atMs: number, body: string | Uint8Array", "{ 'webhook-id': string, 'webhook-timestamp': string, 'webhook-signature': string }")
            .node_only(),
        function("verify_webhook", "Verifies a delivery's headers and body with `secret` against the receiver's clock `now_ms`; the delivery's id, or raises `webhook_unverified`.")
            .py("secret: str, headers: Dict[str, str], body: Union[str, bytes], now_ms: int, tolerance_ms: Optional[int] = None", "str")
            .ts("secret: string, headers: Record<string, string>, body: string | Uint8Array, nowMs: number, toleranceMs?: number | null", "string")
            .node_only(),
        function("passkey_challenge", "The base64url challenge a passkey signs to approve `record`: its fingerprint.")
            .py("record: Dict[str, Any]", "str")
            .ts("record: ApprovalRecord | PasskeyApprovedRecord", "string"),
        function("verify_registration", "Verifies a passkey registration (\"none\" attestation) for the challenge issued.")
            .py("registration: Dict[str, str], challenge: str, webauthn: Dict[str, Any]", "_PasskeyCredential")
            .ts("registration: PasskeyRegistration, challenge: string, webauthn: RelyingParty", "PasskeyCredential"),
        function("ed25519_verify", "Verifies a plain Ed25519 signature (base64url) strictly; raises `invalid_signature`.")
            .py("key: Union[_Ed25519Jwk, str], message: str, signature: str", "None")
            .ts("key: Ed25519Jwk | string, message: string, signature: string", "void"),
        function("pae", "DSSE's pre-authentication encoding of a payload (base64url in and out).")
            .py("payload_type: str, payload: str", "str")
            .ts("payloadType: string, payload: string", "string"),
        function("verify_audit", "Verifies an exported audit (JSON Lines) in any runtime, replaying every task's events; `heads` are the chain ends the ledger recorded (a report's `heads`), to find events cut from the end too; `exported` (`Ledger.audit_heads()`, kept outside the database) finds a chain truncated or sealed again since.")
            .py("jsonl: Union[str, bytes], heads: Optional[List[_AuditHead]] = None, exported: Optional[_ExportedHeads] = None", "_AuditReport")
            .ts("jsonl: string | Uint8Array, heads?: AuditHead[] | null, exported?: ExportedHeads | null", "AuditReport")
            .node_only(),
        function("verify_evidence", "Verifies an evidence bundle without any database: the verified timeline, or raises the first failure with its code and the JSON Pointer of the member that broke.")
            .py("bundle: _EvidenceBundle, trust: _EvidenceTrust", "_EvidenceTimeline")
            .ts("bundle: EvidenceBundle, trust: EvidenceTrust", "EvidenceTimeline"),
        class("ManualClock", "A clock that moves only when told to (tests, demos); times in integer ms.")
            .ts_class()
            .node_only(),
        constructor("ManualClock.__init__", "A clock standing at `start_ms`.")
            .py("start_ms: int", "None")
            .ts("startMs: number", "")
            .node_only(),
        getter("ManualClock.now", "Now, in ms since the epoch.")
            .py("", "int")
            .ts("", "number")
            .node_only(),
        method("ManualClock.set", "Sets the clock to `ms`.")
            .py("ms: int", "None")
            .ts("ms: number", "void")
            .node_only(),
        method("ManualClock.advance", "Moves the clock forward by `ms`.")
            .py("ms: int", "None")
            .ts("ms: number", "void")
            .node_only(),
        class("Ledger", "A task ledger on SQLite or PostgreSQL. Every method blocks with the GIL released; share one between threads. Refusals raise ActionsealError; drift, re-approval and rejection of a claim are outcomes (`result`), not errors.")
            .ts_class()
            .node_only(),
        static_method("Ledger.open", "Opens the ledger at a URL, creating or migrating its tables (JavaScript's constructor).")
            .ts("url: string, options?: { clock?: ManualClock, proof?: ProofPolicy | null, log_key?: string | null }", "Promise<Ledger>")
            .node_only(),
        constructor("Ledger.__init__", "Opens `sqlite:PATH`, `sqlite::memory:` or `postgres://...`; `proof` is `{\"required\", \"keys\"}`: the keys that verify proven decisions, and whether a bare decision envelope is refused (`missing_proof`); `log_key` the signer key string (`PRIVATE+KEY+...`) its checkpoints are signed with.")
            .py("url: str, *, clock: Optional[ManualClock] = None, proof: Optional[Dict[str, Any]] = None, log_key: Optional[str] = None", "None"),
        getter("Ledger.backend", "Which database the ledger is on: `\"sqlite\"` or `\"postgres\"`.")
            .py("", "Literal[\"sqlite\", \"postgres\"]")
            .ts("", "'sqlite' | 'postgres'")
            .node_only(),
        method("Ledger.now", "The ledger's time (its clock's), in ms since the epoch.")
            .py("", "int")
            .ts("", "number")
            .node_only(),
        static_method("Ledger.task_id", "The id of the task with this identity, the same in every runtime.")
            .py("*, tenant: str, job_id: str, request_id: str", "str")
            .ts("identity: TaskIdentity", "string")
            .node_only(),
        static_method("Ledger.telemetry_schema", "What the OpenTelemetry instrumentation emits, the same in every runtime: span names, which result member each attribute comes from, the refusal event and the counters (core's table; never an argument value).")
            .py("", "Dict[str, Any]")
            .ts("", "{ scope: string, ops: Record<string, { span: string, task: string }>, constants: Record<string, Record<string, string>>, task: Record<string, string>, result: Record<string, Record<string, string>>, refused: { event: string, reasons: string, operation: string }, counters: Record<string, { name: string, unit: string, description: string, by: string[] }> }")
            .node_only(),
        method("Ledger.propose", "Records a task (the same identity and action: the same task; another action: `task_conflict`).")
            .py("action: Dict[str, Any], contract: Union[Contract, Dict[str, Any]], *, proposer: str", "_LedgerTask")
            .ts("request: ProposeRequest", "Promise<LedgerTask>")
            .node_only(),
        method("Ledger.amend", "Replaces the action of a task awaiting a decision with a reviewer's edit (compare-and-set on `amends`); after the decision it raises `task_not_awaiting_decision`.")
            .py("task_id: str, action: Dict[str, Any], contract: Union[\"Contract\", Dict[str, Any]], *, amends: str, reviewer: str, reason: str", "_Amended")
            .ts("request: AmendRequest", "Promise<Amended>")
            .node_only(),
        method("Ledger.amendments", "A task's amendments, in order.")
            .py("task_id: str", "List[_AmendmentRecord]")
            .ts("taskId: string", "Promise<AmendmentRecord[]>")
            .node_only(),
        method("Ledger.decide", "Records a reviewer's decision, once per `decision_id`: a decision envelope, or the ledger's approval record for the task's round signed or passkey-approved (verified against the `proof` keys; `signer` names who signed).")
            .py("decision: Union[_DecisionEnvelope, _SignedEnvelope, Dict[str, Any]]", "_Decided")
            .ts("decision: DecisionEnvelope | SignedEnvelope | PasskeyApprovedRecord", "Promise<Decided>")
            .node_only(),
        method("Ledger.claim", "Claims the task's approval for dispatching `action`: dispatch only when `result == \"claimed\"`; `already_claimed` and `task_not_claimable` raise, and with `proof=\"required\"` (or a ledger that requires it) `missing_proof` for a decision recorded without proof. The claim carries the record and proof it checked.")
            .py("task_id: str, action: Dict[str, Any], facts: _ClaimFacts, *, executor: str, lease_ms: int, budget: Optional[str] = None, proof: Optional[ProofRequirement] = None", "_ClaimOutcome")
            .ts("request: ClaimRequest", "Promise<ClaimOutcome>")
            .node_only(),
        method("Ledger.complete", "Reports a claim's outcome with its fence (`stale_fence`, `lease_expired`).")
            .py("task_id: str, fence: int, outcome: ReportedOutcome, *, executor: str, result: Any = None", "_LedgerTask")
            .ts("request: CompleteRequest", "Promise<LedgerTask>")
            .node_only(),
        method("Ledger.reconcile", "Records what the business system answered about a task in doubt.")
            .py("task_id: str, observed: ObservedOutcome, *, actor: str, result: Any = None", "_LedgerTask")
            .ts("request: ReconcileRequest", "Promise<LedgerTask>")
            .node_only(),
        // The ledger's batch operations (issue 28).
        method("Ledger.propose_batch", "Records a batch of actions, each item a task awaiting the batch's one decision.")
            .py("actions: List[Dict[str, Any]], contract: Union[Contract, Dict[str, Any]], *, semantics: Literal[\"per_item\", \"all_or_nothing\"], proposer: str", "_LedgerBatch")
            .ts("request: ProposeBatchRequest", "Promise<LedgerBatch>")
            .node_only(),
        method("Ledger.amend_batch", "A reviewer leaves items of a batch awaiting its decision out: another batch digest.")
            .py("batch_id: str, *, amends: str, deselect: List[int], reviewer: str, reason: str", "_LedgerBatch")
            .ts("request: AmendBatchRequest", "Promise<LedgerBatch>")
            .node_only(),
        method("Ledger.decide_batch", "Records one decision over a batch (de-duplicated by `decision_id` as `decide`): an envelope, or the ledger's batch record signed or passkey-approved, as `decide` takes a task's.")
            .py("decision: Union[_BatchDecisionEnvelope, Dict[str, Any]]", "_BatchDecided")
            .ts("decision: BatchDecisionEnvelope | SignedEnvelope | (BatchDecisionRecord & { passkey: PasskeyAssertion })", "Promise<BatchDecided>")
            .node_only(),
        method("Ledger.claim_item", "Claims one item of a per-item batch, under the batch's caps and breaker.")
            .py("task_id: str, action: Dict[str, Any], facts: _ClaimFacts, *, executor: str, lease_ms: int, budget: Optional[str] = None, proof: Optional[ProofRequirement] = None", "_ClaimOutcome")
            .ts("request: ClaimRequest", "Promise<ClaimOutcome>")
            .node_only(),
        method("Ledger.claim_batch", "Claims every remaining item of an all-or-nothing batch, or none.")
            .py("batch_id: str, actions: List[Dict[str, Any]], facts: _ClaimFacts, *, executor: str, lease_ms: int, budget: Optional[str] = None, proof: Optional[ProofRequirement] = None", "_BatchClaimOutcome")
            .ts("request: ClaimBatchRequest", "Promise<BatchClaimOutcome>")
            .node_only(),
        method("Ledger.complete_item", "Reports an item's outcome as `complete` does, fed to its batch's breaker.")
            .py("task_id: str, fence: int, outcome: ReportedOutcome, *, executor: str, result: Any = None", "_LedgerTask")
            .ts("request: CompleteRequest", "Promise<LedgerTask>")
            .node_only(),
        method("Ledger.reconcile_item", "Records what the business system answered about an item in doubt.")
            .py("task_id: str, observed: ObservedOutcome, *, actor: str, result: Any = None", "_LedgerTask")
            .ts("request: ReconcileRequest", "Promise<LedgerTask>")
            .node_only(),
        method("Ledger.batch", "A batch, with its lineage's totals and breaker and its items' states.")
            .py("batch_id: str", "_LedgerBatch")
            .ts("batchId: string", "Promise<LedgerBatch>")
            .node_only(),
        method("Ledger.revoke", "Revokes an approval: its task's next claim sends it back for approval.")
            .py("approval_id: str, *, actor: str", "_Revocation")
            .ts("request: RevokeRequest", "Promise<Revocation>")
            .node_only(),
        method("Ledger.expire_leases", "Moves every claimed task whose lease ran out to `unknown`; their ids.")
            .py("", "List[str]")
            .ts("", "Promise<string[]>")
            .node_only(),
        method("Ledger.set_budget", "Creates a budget account or sets its limit (minor units).")
            .py("name: str, limit_minor: int", "_LedgerBudget")
            .ts("request: BudgetLimit", "Promise<LedgerBudget>")
            .node_only(),
        method("Ledger.redact", "Shreds a task's sensitive values; its audit, approval and evidence still verify (issue 29).")
            .py("task_id: str, *, actor: str", "_Shredded")
            .ts("request: RedactRequest", "Promise<Shredded>")
            .node_only(),
        method("Ledger.disclosures", "A task's disclosures, for its reviewer to check and show (issue 29).")
            .py("task_id: str", "List[str]")
            .ts("taskId: string", "Promise<string[]>")
            .node_only(),
        method("Ledger.set_retention", "Sets how long a tenant keeps its sensitive values of a class.")
            .py("tenant: str, class_name: str, *, keep_ms: Optional[int], at_finish: Literal[\"keep\", \"shred\"], actor: str", "Dict[str, Any]")
            .ts("request: RetentionRequest", "Promise<RetentionPolicy>")
            .node_only(),
        method("Ledger.retention", "Every tenant's retention policies.")
            .py("", "List[Dict[str, Any]]")
            .ts("", "Promise<RetentionPolicy[]>")
            .node_only(),
        method("Ledger.retention_run", "Shreds every sensitive value its tenant's policy keeps no longer; what it shredded.")
            .py("*, actor: str", "List[_Shredded]")
            .ts("actor: string", "Promise<Shredded[]>")
            .node_only(),
        method("Ledger.budget", "A budget account (`budget_not_found`).")
            .py("name: str", "_LedgerBudget")
            .ts("name: string", "Promise<LedgerBudget>")
            .node_only(),
        method("Ledger.task", "A task (`task_not_found`).")
            .py("task_id: str", "_LedgerTask")
            .ts("taskId: string", "Promise<LedgerTask>")
            .node_only(),
        method("Ledger.history", "A task with its audit events, in order.")
            .py("task_id: str", "_TaskHistory")
            .ts("taskId: string", "Promise<TaskHistory>")
            .node_only(),
        method("Ledger.tasks", "Tasks in a state of a tenant, proposed since and until (any may be left out), oldest first.")
            .py("*, state: Optional[TaskState] = None, tenant: Optional[str] = None, since: Optional[int] = None, until: Optional[int] = None", "List[_LedgerTask]")
            .ts("filter?: TaskFilter", "Promise<LedgerTask[]>")
            .node_only(),
        method("Ledger.tasks_page", "A page of the tasks `tasks` lists: at most `limit`, after the cursor `after`.")
            .py("*, state: Optional[TaskState] = None, tenant: Optional[str] = None, since: Optional[int] = None, until: Optional[int] = None, limit: Optional[int] = None, after: Optional[str] = None", "_TasksPage")
            .ts("query?: PageQuery", "Promise<TasksPage>")
            .node_only(),
        method("Ledger.audit_export", "The whole audit as JSON Lines.")
            .py("", "str")
            .ts("", "Promise<string>")
            .node_only(),
        method("Ledger.audit_export_page", "A page of the audit export's lines, filtered as `tasks_page` filters tasks.")
            .py("*, state: Optional[TaskState] = None, tenant: Optional[str] = None, since: Optional[int] = None, until: Optional[int] = None, limit: Optional[int] = None, after: Optional[str] = None", "_AuditPage")
            .ts("query?: PageQuery", "Promise<AuditPage>")
            .node_only(),
        method("Ledger.audit_verify", "Walks the stored chains up to their recorded heads, replays every task's events and holds every task row to them; against `exported` heads too.")
            .py("*, exported: Optional[_ExportedHeads] = None", "_AuditReport")
            .ts("options?: { exported?: ExportedHeads | null }", "Promise<AuditReport>")
            .node_only(),
        method("Ledger.audit_heads", "The chains' heads to keep outside the database (only from an audit that verifies).")
            .py("", "_ExportedHeads")
            .ts("", "Promise<ExportedHeads>")
            .node_only(),
        method("Ledger.wait", "Waits until a task is in one of `states` or `timeout_ms` passes, woken by commits.")
            .py("task_id: str, states: List[TaskState], *, timeout_ms: int", "_Waited")
            .ts("request: WaitRequest", "Promise<Waited>")
            .node_only(),
        method("Ledger.changes", "Changes of tasks after a cursor; with `timeout_ms`, waits up to that for one.")
            .py("*, after: Optional[str] = None, limit: Optional[int] = None, timeout_ms: Optional[int] = None", "_ChangesRead")
            .ts("request?: ChangesRequest", "Promise<ChangesRead>")
            .node_only(),
        method("Ledger.policy", "The ledger's policy, as its database records it for every handle.")
            .py("", "_LedgerPolicy")
            .ts("", "Promise<LedgerPolicy>")
            .node_only(),
        method("Ledger.set_proof_requirement", "Changes the proof requirement for every handle on the database, audited.")
            .py("proof: ProofRequirement, *, actor: str, reason: str", "_LedgerPolicy")
            .ts("request: SetProofRequirementRequest", "Promise<LedgerPolicy>")
            .node_only(),
        method("Ledger.checkpoint", "Sequences the events written since the last checkpoint into the Merkle log and signs the checkpoint with `log_key`.")
            .py("", "_LogCheckpoint")
            .ts("", "Promise<LogCheckpoint>")
            .node_only(),
        method("Ledger.evidence", "The evidence bundle of a task as of a checkpoint made now, for `actor`: anyone verifies it without the database.")
            .py("task_id: str, actor: str, contract: Union[\"Contract\", Dict[str, Any], None] = None", "_EvidenceBundle")
            .ts("taskId: string, actor: string, contract?: Contract | ContractDocument | null", "Promise<EvidenceBundle>")
            .node_only(),
        method("Ledger.close", "Lets go of the database; later calls raise `ledger_unavailable`.")
            .py("", "None")
            .ts("", "Promise<void>")
            .node_only(),
        method("Ledger.__enter__", "")
            .py("", "\"Ledger\""),
        method("Ledger.__exit__", "")
            .py("*exc: object", "bool"),
    ]
}
