// Compiled (not run) by bindings-wasm/test.sh with `tsc --noEmit --strict`: the declarations
// of the web build describe the API as documented, and misuse is a type error.

import init, {
  type ActionEnvelope,
  type ApprovalRecord,
  type ErrorCode,
  ActionsealError,
  Approval,
  type CheckContext,
  type ContractDocument,
  type Requirement,
  type Verdict,
  action,
  amend,
  type AmendedAction,
  approve,
  charge,
  check,
  Contract,
  fingerprint,
  gateDefaults,
  gateStep,
  notices,
  type Notice,
  parseJson,
  requiresApproval,
  Schema,
  shortFingerprint,
  SigningKey,
  type KeySet,
  type SignedEnvelope,
  type VerifiedProof,
  type DelegationDocument,
  type SignedDelegation,
  type VerifiedDelegation,
  type QuorumState,
  checkSet,
  signDelegation,
  verifyDelegation,
  delegationDigest,
  passkeyChallenge,
  verifyEnvelope,
  verifyProof,
  type Batch,
  type BatchDecisionRecord,
  type BatchHeader,
  type BatchItem,
  type BatchVerdict,
  type BreakerStep,
  type DeselectedBatch,
  type VerifiedItem,
  batchBuild,
  batchDecide,
  batchDeselect,
  batchVerifyItem,
  breakerStep,
  checkBatch,
  checkItem,
} from "../pkg/web/index.js";

export async function confirm(document: ContractDocument, pending: ActionEnvelope): Promise<ApprovalRecord> {
  await init();
  const contract = new Contract(document);
  try {
    contract.validateAction(pending);
    const effect: "read" | "write" = contract.effect;
    const cost: number = contract.costMinor;
    const copy: ContractDocument = contract.document;
    const need: Requirement = contract.requiresApproval(pending.args);
    const also: boolean = requiresApproval(copy, pending.args).required;
    const reviewed: Requirement = contract.reviewAction(pending);
    const envelope: ActionEnvelope = action(contract, pending.args, {
      tenant: pending.tenant,
      subject: pending.subject,
      job_id: pending.job_id,
      request_id: pending.request_id,
      policy_version: pending.policy_version,
    });
    const record = approve(envelope, {
      approval_id: "apr-1",
      decision_id: "dec-1",
      decision: "approved",
      approver: "user:bob",
      decided_at: Date.now(),
      expires_at: Date.now() + 600_000,
    });
    // A reviewer's edit: the amended action, both fingerprints, what changed.
    const amended: AmendedAction = amend(envelope, { ...envelope, args: { ...envelope.args } }, contract);
    const changed: string[] = amended.amended_pointers;
    void [changed, amended.proposed_digest, amended.action_digest];
    const context: CheckContext = {
      now: Date.now(),
      tenant: envelope.tenant,
      policy_version: envelope.policy_version,
      contract,
      approver_authorized: { approver: "user:bob", authorized: true },
      subject_authorized: { subject: envelope.subject, authorized: true },
      revoked: { approval_id: "apr-1", revoked: false },
    };
    const verdict: Verdict = check(record, envelope, context);
    const loaded = new Approval(record);
    const fast: Verdict = check(loaded, envelope, context);
    loaded.free();
    void fast;
    const first: "permit" | "reapprove" | "reject" = verdict.outcome;
    const spoken: string = shortFingerprint(fingerprint(envelope));
    const flagged: Notice[] = notices(envelope);
    const where: "value" | "key" | undefined = flagged[0]?.within;
    const left = charge({ limit_minor: 100, spent_minor: 0 }, cost).spent_minor;
    const parsed: unknown = parseJson('{"a": 1}', { profile: "strict" });
    const decided: "claim" | "run" | "pause" | "refuse" | "raise" | "keep" | "approve" | "wait" | "elicit" | "record" | "turn" | "alone" =
      gateStep({ step: "invoke", tool: "refund_create" }).decision;
    const lease: number = gateDefaults().lease_ms;
    void [effect, need, also, first, spoken, flagged, where, left, parsed, decided, lease];
    new Schema(document.args).validate(pending.args);
    return record;
  } catch (e) {
    // The class narrows: code, path and offset are typed as in the Node package and the .pyi.
    if (e instanceof ActionsealError) {
      const code: ErrorCode = e.code;
      const offset: number | null = e.offset;
      throw new Error(`${code} at ${e.path} (${offset})`);
    }
    throw e;
  } finally {
    contract.free();
  }
}

// @ts-expect-error: the decision is "approved" or "rejected"
approve({} as ActionEnvelope, { approval_id: "a", decision_id: "d", decision: "ok", approver: "b", decided_at: 0, expires_at: 1 });
// @ts-expect-error: a context needs every field
check(null, {}, { now: 0 });
// @ts-expect-error: the approval model takes no options
check(null, {}, {} as CheckContext, { profile: "rfc8785" });
// @ts-expect-error: the lending method is not part of the API
new Contract({} as ContractDocument).__actionsealLend();

/** A signed decision made and verified in the page; `keys` comes from the executor's server. */
export function signAndVerify(record: ApprovalRecord, keys: KeySet): [VerifiedProof, string] {
  const key = SigningKey.generate();
  try {
    const envelope: SignedEnvelope = key.sign(record);
    const proven: VerifiedProof = verifyEnvelope(envelope, keys, Date.now());
    const again: VerifiedProof = verifyProof(envelope, keys, Date.now());
    void again;
    return [proven, passkeyChallenge(proven.approval)];
  } finally {
    key.free();
  }
}

// @ts-expect-error: a key set holds keys by keyid, not a list
verifyEnvelope({} as SignedEnvelope, { service_keys: [] }, 0);

/** What is still missing from a set of approvals, when the contract requires a quorum. */
export function missing(records: ApprovalRecord[], action: ActionEnvelope, context: CheckContext): number {
  const state: QuorumState | undefined = checkSet(records, action, context).quorum;
  return state === undefined ? 0 : state.missing;
}
// @ts-expect-error: a set is an array
checkSet({} as ApprovalRecord, {} as ActionEnvelope, {} as CheckContext);
/** The facts a set needs beside a single approval's, from the executor's server. */
export function quorumContext(context: CheckContext, digest: string): CheckContext {
  return {
    ...context,
    approver_authorized: [{ approver: "user:carol", authorized: true }],
    revoked: [{ approval_id: "a", revoked: false }, { decision_id: "d", revoked: false }],
    approver_roles: [{ approver: "user:carol", role: "finance", holds: true }],
    proposer: "agent:refunds",
    amended_by: null,
    delegations_revoked: [{ delegation: digest, revoked: false }],
  };
}

/** A delegation signed in the page, verified, and named by its digest. */
export function delegate(document: DelegationDocument, keys: KeySet): [VerifiedDelegation, string] {
  const key = SigningKey.generate();
  try {
    const link: SignedDelegation = signDelegation(document, key);
    return [verifyDelegation(link, keys, Date.now()), delegationDigest(document)];
  } finally {
    key.free();
  }
}
// @ts-expect-error: the lending method is not part of the API
SigningKey.generate().__actionsealLend();

// Batches: built, deselected, decided, each item checked; the breaker stepped.
export function reviewBatch(document: ContractDocument, actions: ActionEnvelope[], context: CheckContext): number[] {
  const batch: Batch = batchBuild(document, "per_item", actions);
  const kept: DeselectedBatch = batchDeselect(document, "per_item", actions, [0], { max_items: 10 });
  const header: BatchHeader = kept.header;
  const record: BatchDecisionRecord = batchDecide(header, {
    approval_id: "a", decision_id: "d", decision: "approved", approver: "b",
    decided_at: 0, expires_at: 10, proposed_digest: batch.batch_digest,
  });
  const items: BatchItem[] = kept.items.map((it, i) => ({ action: actions[i + 1], proof: it.proof }));
  const verified: VerifiedItem = batchVerifyItem(header, items[0]);
  const one: Verdict = checkItem([record], items[0], actions[1], { ...context, breaker: "half_open" });
  const all: BatchVerdict = checkBatch([record], items, actions.slice(1), context);
  const step: BreakerStep = breakerStep(null, null, { kind: "outcome", outcome: "failed", at: verified.index });
  const state: "closed" | "open" | "half_open" = step.breaker.state;
  // @ts-expect-error: semantics is one of two names
  batchBuild(document, "some", actions);
  return one.outcome === "permit" && state !== "open" ? all.claimable : [];
}
