// Type-checked against the packed package by test.sh (tsc --noEmit --strict): the
// declarations in index.d.ts must describe the API as documented in README.md.
import {
  ActionsealError,
  Approval,
  Contract,
  Schema,
  SigningKey,
  action,
  amend,
  approve,
  canonicalize,
  canonicalizeJson,
  charge,
  check,
  checkSet,
  delegationDigest,
  digestEqual,
  fingerprint,
  fingerprintJson,
  gateDefaults,
  gateStep,
  notices,
  parseJson,
  passkeyChallenge,
  publicKey,
  requiresApproval,
  shortFingerprint,
  signDelegation,
  verifyDelegation,
  verifyEnvelope,
  verifyEvidence,
  verifyPasskey,
  verifyProof,
  verifyRegistration,
  type ActionEnvelope,
  type ActionIds,
  type AmendedAction,
  type BatchClaimOutcome,
  type ClaimOutcome,
  type Ledger,
  type LedgerBatch,
  type ApprovalRecord,
  type Budget,
  type CheckContext,
  type ClaimFacts,
  type ContractDocument,
  type DecisionInput,
  type DelegationDocument,
  type Ed25519Jwk,
  type Ed25519PrivateJwk,
  type ErrorCode,
  type EvidenceBundle,
  type EvidenceTimeline,
  type EvidenceTrust,
  type KeySet,
  type Notice,
  type PasskeyApprovedRecord,
  type PasskeyCredential,
  type SignedDelegation,
  type SignedEnvelope,
  type VerifiedDelegation,
  type VerifiedProof,
  type Options,
  type Reason,
  type Requirement,
  type QuorumState,
  type Verdict,
} from 'actionseal'

const options: Options = { profile: 'rfc8785' }
const call = { tool: 'refund_create', args: { order_id: 'order-17', amount_minor: 2500 } }

const text: string = canonicalize(call)
const digest: string = fingerprint(call, options)
const fromText: string = fingerprintJson(text, null)
const fromBytes: string = canonicalizeJson(new TextEncoder().encode(text), { profile: 'strict' })
const same: boolean = digestEqual(digest, fromText)
const notString: boolean = digestEqual(undefined, 42)
const parsed: unknown = parseJson(new TextEncoder().encode(text), { profile: 'strict' })

try {
  fingerprint({ amount: 10n })
} catch (e) {
  // The class narrows: code, path and offset are typed as in the wasm package and the .pyi.
  if (e instanceof ActionsealError) {
    const code: ErrorCode = e.code
    const path: string = e.path
    const offset: number | null = e.offset
    const message: string = e.message
    console.log(code, path, offset, message)
  }
}

// The approval model.
const document: ContractDocument = {
  tool: 'refund_create',
  version: '3',
  effect: 'write',
  args: { type: 'object', properties: { amount_minor: { type: 'integer' } }, required: ['amount_minor'] },
  approval: { when: [{ pointer: '/amount_minor', op: 'gt', value: 1000 }] },
  cost_minor: 25,
}
const refund = new Contract(document)
const facts: [string, string, string, 'read' | 'write', number, ContractDocument] = [
  refund.digest, refund.tool, refund.version, refund.effect, refund.costMinor, refund.document,
]
const needs: Requirement = refund.requiresApproval({ amount_minor: 2500 })
const needsToo: Requirement = requiresApproval(document, { amount_minor: 2500 })
refund.validateArgs({ amount_minor: 2500 })
const ids: ActionIds = { tenant: 't', subject: 's', job_id: 'j', request_id: 'r', policy_version: 'p' }
const envelope: ActionEnvelope = action(refund, { amount_minor: 2500 }, ids)
refund.validateAction(envelope)
const reviewed: Requirement = refund.reviewAction(envelope)
const decision: DecisionInput = {
  approval_id: 'a', decision_id: 'd', decision: 'approved', approver: 'bob', decided_at: 1, expires_at: 2,
}
const record: ApprovalRecord = approve(envelope, decision)
const amended: AmendedAction = amend(envelope, { ...envelope, args: { amount_minor: 2000 } }, refund)
const changed: string[] = amended.amended_pointers
const amendedRecord: ApprovalRecord = approve(amended.action, { ...decision, proposed_digest: amended.proposed_digest })
const context: CheckContext = {
  now: 1, tenant: 't', policy_version: 'p', contract: refund,
  approver_authorized: { approver: 'bob', authorized: true },
  subject_authorized: { subject: 's', authorized: true },
  revoked: { approval_id: 'a', revoked: false },
}
const verdict: Verdict = check(record, envelope, context)
const loaded = new Approval(record)
const fast: Verdict = check(loaded, envelope, context)
const sealed: boolean = loaded.sealed
const frozen: ActionEnvelope = loaded.action
const none: Verdict = check(null, envelope, { ...context, contract: document })
const alsoNone: Verdict = check(undefined, envelope, { ...context, contract: null })
const reasons: Reason[] = verdict.reasons
const outcome: 'permit' | 'reapprove' | 'reject' = verdict.outcome
const approved: string | null = verdict.approved_digest
const error: { code: ErrorCode; path: string } | null = verdict.action_error
const spent: Budget = charge({ limit_minor: 100, spent_minor: 0 }, refund.costMinor)
const spoken: string = shortFingerprint(record.action_digest)
const flagged: Notice[] = notices({ order_id: 'order-17\u200b' })
const where: 'value' | 'key' = flagged[0].within
const decided: 'claim' | 'run' | 'pause' | 'refuse' | 'raise' | 'keep' | 'approve' | 'wait' | 'elicit' | 'record' | 'turn' | 'alone' = gateStep({ step: 'complete', error: { code: 'lease_expired', path: '', message: 'late' } }).decision
const lease: number = gateDefaults().lease_ms
new Schema(document.args).validate({ amount_minor: 1 })

// @ts-expect-error: only the two profile names are accepted
canonicalize(call, { profile: 'loose' })
// @ts-expect-error: JSON text is a string or bytes
fingerprintJson(42)
// @ts-expect-error: a decision is "approved" or "rejected"
approve(envelope, { ...decision, decision: 'maybe' })
// @ts-expect-error: a Schema is not a contract
check(record, envelope, { ...context, contract: new Schema({}) })

console.log(text, digest, fromText, fromBytes, same, notString, parsed, facts, needs, needsToo)
console.log(none, alsoNone, reasons, outcome, approved, error, spent, spoken, fast, sealed, frozen)
console.log(changed, amendedRecord)
// @ts-expect-error: the approval model takes no options
check(record, envelope, context, { profile: 'rfc8785' })

// Proof of who decided.
const key = SigningKey.generate()
const privateJwk: Ed25519PrivateJwk = key.toJwk()
const publicJwk: Ed25519Jwk = key.publicJwk
const same2: Ed25519Jwk = publicKey(publicJwk.x)
const reloaded = new SigningKey(privateJwk)
const signed: SignedEnvelope = reloaded.sign(record)
const keys: KeySet = { service_keys: { [key.keyid]: { key: publicJwk, approvers: ['bob'], valid_from: 0 } } }
const proven: VerifiedProof = verifyEnvelope(signed, keys, Date.now())
const who: string = proven.signer.kind === 'service' ? proven.signer.keyid : proven.signer.credential_id
const challenge: string = passkeyChallenge(record)
const withPasskey: PasskeyApprovedRecord = {
  ...record,
  passkey: { credential_id: 'AA', authenticator_data: 'AA', client_data_json: 'AA', signature: 'AA' },
}
const either: VerifiedProof = verifyProof(signed, keys, Date.now())
const passkeyProven: VerifiedProof = verifyPasskey(withPasskey, keys, Date.now())
const registered: PasskeyCredential = verifyRegistration(
  { credential_id: 'AA', attestation_object: 'AA', client_data_json: 'AA' }, challenge,
  { rp_id: 'example.com', origins: ['https://example.com'] },
)
const signedVerdict: Verdict = check(signed, envelope, { ...context, proof: { required: true, keys } })
console.log(same2, who, either, passkeyProven, registered, signedVerdict)
// @ts-expect-error: a key set's proof policy says whether proof is required
check(signed, envelope, { ...context, proof: { keys } })
// @ts-expect-error: signing needs a record, not an envelope
reloaded.sign(signed)

// Delegation.
const delegation: DelegationDocument = {
  delegation_id: 'dlg-1', delegator: 'user:carol', delegate: 'user:dave', tenant: 'tenant-a',
  tools: ['refund_create'], when: [{ pointer: '/args/amount_minor', op: 'lte', value: 50000 }],
  not_before: 0, not_after: 1,
}
const link: SignedDelegation = signDelegation(delegation, key)
const linkDigest: string = delegationDigest(delegation)
const delegated: VerifiedDelegation = verifyDelegation(link, keys, Date.now())
const delegator: string = delegated.delegation.delegator
const bare: VerifiedDelegation = verifyDelegation(delegation, keys, Date.now())
console.log(linkDigest, delegator, bare.signer === null, signDelegation(delegation, privateJwk))
// A set of approvals: the verdict says who counted and what is missing, under a quorum.
const fourEyes: ContractDocument = {
  ...document,
  approval: { when: 'always', quorum: { approvers: 2, roles: [{ role: 'finance', count: 1 }], order: 'any' }, separation: ['subject', 'proposer'] },
}
const setContext: CheckContext = {
  ...context,
  contract: fourEyes,
  approver_authorized: [{ approver: 'bob', authorized: true }, { approver: 'carol', authorized: true }],
  revoked: [{ approval_id: 'a', revoked: false }, { decision_id: 'd', revoked: false }],
  approver_roles: [{ approver: 'bob', role: 'finance', holds: true }],
  proposer: 'agent',
  amended_by: null,
  delegations_revoked: [{ delegation: linkDigest, revoked: false }],
}
const setVerdict: Verdict = checkSet([record, signed], envelope, setContext)
// A ledger's claim under that quorum takes the same facts but those the ledger keeps itself.
const claimFacts: ClaimFacts = {
  tenant: setContext.tenant,
  policy_version: setContext.policy_version,
  contract: fourEyes,
  approver_authorized: setContext.approver_authorized,
  subject_authorized: setContext.subject_authorized,
  approver_roles: [{ approver: 'bob', role: 'finance', holds: true }],
  delegations_revoked: [{ delegation: linkDigest, revoked: false }],
}
const state: QuorumState | undefined = setVerdict.quorum
console.log(claimFacts, state?.missing, state?.counted.map((c) => [c.approver, c.role, c.delegate, c.delegations]))
// @ts-expect-error: a set is an array
checkSet(record, envelope, context)
// @ts-expect-error: a quorum needs its number of approvers
checkSet([record], envelope, { ...context, contract: { ...document, approval: { when: 'always', quorum: { roles: [] } } } })
// @ts-expect-error: a delegation names its tools
signDelegation({ ...delegation, tools: undefined }, key)
// Evidence: a bundle a ledger exported, verified against the verifier's own trust.
const trust: EvidenceTrust = {
  ledger_keys: [{ key: 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW' }],
  witnesses: { keys: [], quorum: 1 },
}
const verifyBundle = (bundle: EvidenceBundle): EvidenceTimeline => verifyEvidence(bundle, trust)
console.log(verifyBundle.length, trust.ledger_keys[0].valid_from)
// @ts-expect-error: a trust names its ledger keys
verifyEvidence({} as EvidenceBundle, { witnesses: { keys: [], quorum: 1 } })
// A ledger's batch: proposed, decided once, its items claimed; a tripped batch names where its
// remaining items went.
async function batchLife(ledger: Ledger, actions: ActionEnvelope[], document: ContractDocument): Promise<void> {
  const batch: LedgerBatch = await ledger.proposeBatch({ actions, contract: document, semantics: 'per_item', proposer: 'agent' })
  const decided = await ledger.decideBatch({
    approval_id: batch.approval_id, decision_id: 'd1', batch_id: batch.id, batch_digest: batch.digest,
    decision: 'approved', approver: 'user:bob', decided_at: 1, expires_at: 2,
  })
  const facts: ClaimFacts = { ...claimFacts, contract: document }
  const item: ClaimOutcome = await ledger.claimItem({ task_id: decided.batch.items[0].task_id, action: actions[0], facts, executor: 'w', lease_ms: 1 })
  const whole: BatchClaimOutcome = await ledger.claimBatch({ batch_id: batch.id, actions, facts, executor: 'w', lease_ms: 1 })
  const next: string | null = (await ledger.batch(batch.id)).successor
  console.log(item.claim?.item?.proof.index, whole.result, next, batch.breaker.state)
  // @ts-expect-error: a batch's semantics is one of two
  await ledger.proposeBatch({ actions, contract: document, semantics: 'sometimes', proposer: 'agent' })
}
console.log(batchLife.length)
