// What every actionseal framework adapter shares (actionseal/adapters/seal).
import type { ActionEnvelope, ApprovalCondition, Claim, Contract, ContractDocument, ErrorCode, Ledger, LedgerBatch, LedgerTask, TaskState } from '../index.js'

export { ActionsealError, Contract, Ledger, canonicalize, fingerprint, shortFingerprint, parseJson, gateStep } from '../index.js'

/** Core's defaults (`gateDefaults()`), the same as the Python adapters'. */
export declare const DEFAULTS: { lease_ms: number, executor: string, proposer: string }

/** The trusted ids of one call, from the application's own server state (never the model's). */
export interface TrustedIds {
  tenant: string
  subject: string
  /** The run, chat, thread or session the call belongs to. */
  job_id: string
  policy_version: string
}

export interface SealOptions<AppContext = any> {
  ledger: Ledger
  /** Derives the trusted ids from the application's context object (the framework hands it over). */
  context: (appContext: AppContext) => TrustedIds
  /** Whether this approver may (still) approve this action; asked at every claim. */
  mayApprove: (approver: string, action: ActionEnvelope) => boolean | Promise<boolean>
  /** Whether the subject may (still) perform this action; asked at every claim. */
  mayAct: (subject: string, action: ActionEnvelope) => boolean | Promise<boolean>
  /** Who claims and completes tasks (default `DEFAULTS.executor`, 'actionseal-adapter'). */
  executor?: string
  /** The claim's lease in ms (default `DEFAULTS.lease_ms`, 300000). */
  leaseMs?: number
  /** Who proposes (default `DEFAULTS.proposer`, 'agent'). */
  proposer?: string
}

/** The application's rule and metadata for a tool's contract; the args schema is the tool's own. */
export interface ToolRule {
  approval: 'always' | 'never' | { when: ApprovalCondition[] }
  version?: string
  effect?: 'read' | 'write'
  costMinor?: number
  maxApprovalMs?: number
  /** The contract's `batch` member: one turn's calls of this tool may be reviewed as a batch (docs/CONTRACTS.md, Batches). */
  batch?: { max_items: number, caps?: object, breaker?: object }
}

/** One governed call of a model turn, as the framework hands it over. */
export interface TurnCall {
  contract: Contract
  args: object
  /** The framework's tool call id. */
  requestId: string
}

/** Core's batches of a turn: `calls` are positions in the turn; every other call is proposed on its own. */
export interface TurnPlan {
  batches: { calls: number[], batch_id: string, batch_digest: string, semantics: 'per_item' }[]
}

/** What the model and the application are told when a call may not run (core's payload). Nothing ran. */
export interface Refusal {
  error: 'tool_args_drift' | 'awaiting_reapproval' | 'rejected_pre_dispatch' | 'task_not_claimable' | 'already_claimed' | 'budget_exceeded' | 'missing_proof' | 'breaker_open' | 'batch_cap_exceeded'
  task_id: string
  state: TaskState
  tool: string
  fingerprint: string
  short_fingerprint: string
  message: string
  /** tool_args_drift: the arguments the person approved. */
  approved_args?: { [key: string]: unknown }
  /** tool_args_drift: JSON Pointers where the presented action differs. */
  drift?: string[]
  reasons?: string[]
  /** already_claimed: the recorded result when the task finished. */
  result?: unknown
}

/** What the model is told when its arguments break the contract (core's payload). Nothing ran. */
export interface InputError {
  error: ErrorCode
  path: string
  tool: string
  message: string
}

/** Core's decisions (`gateStep`) as the Seal returns them, with the task they are about. */
/** `unit`: `'item'` for an item of a decided batch, claimed with `claimItem` and completed with `completeItem`. */
export interface Proposed { decision: 'claim', action: ActionEnvelope, task: LedgerTask, unit: 'task' | 'item' }
export interface Run { decision: 'run', claim: Claim, args: { [key: string]: unknown }, task: LedgerTask, unit: 'task' | 'item' }
export interface Pause {
  decision: 'pause'
  task_id: string
  task: LedgerTask
  /** What the reviewer is shown: the frozen action and its fingerprints. */
  request: {
    type: 'actionseal_approval', task_id: string, state: TaskState, approval_id: string | null, tool: string, action: ActionEnvelope, fingerprint: string, short_fingerprint: string
    /** An item's batch, which the reviewer decides once for every call of the turn (`decideBatch`). */
    batch?: { id: string, approval_id: string, digest: string, short_fingerprint: string, state: TaskState, size: number }
  }
  /** What the model is told where the framework cannot pause. */
  refusal: Refusal
  /** The exact text the model reads: `actionseal: ` and canonical JSON. */
  message: string
}
export interface Refuse {
  decision: 'refuse'
  code: string
  refusal: Refusal | InputError
  /** The exact text the model reads: `actionseal: ` and canonical JSON. */
  message: string
  /** The arguments broke the contract: the model may correct them. */
  bad_args: boolean
  task: LedgerTask | null
}

export declare class Seal<AppContext = any> {
  constructor(options: SealOptions<AppContext>)
  readonly ledger: Ledger
  readonly executor: string
  readonly leaseMs: number
  ids(appContext: AppContext, requestId: string): TrustedIds & { request_id: string }
  freeze(contract: Contract | ContractDocument, args: object, ids: TrustedIds & { request_id: string }): ActionEnvelope
  propose(contract: Contract | ContractDocument, action: ActionEnvelope): Promise<LedgerTask>
  find(ids: { tenant: string, job_id: string, request_id: string }): Promise<LedgerTask | null>
  /** Core's batches of a model turn, without the ledger. */
  plan(calls: TurnCall[], appContext: AppContext): TurnPlan
  /** Proposes a model turn: each planned batch with `proposeBatch`, every other call on its own. */
  turn(calls: TurnCall[], appContext: AppContext): Promise<TurnPlan>
  /** The id of the batch core puts the call `requestId` of this turn in, or null. */
  batchOf(calls: TurnCall[], appContext: AppContext, requestId: string): string | null
  /** The batch that holds the task now: `batchId`, or the successor a trip or an expiry sent it back in; null when there is none. */
  batchOfTask(batchId: string, taskId: string): Promise<LedgerBatch | null>
  proposal(contract: Contract, args: object, ids: TrustedIds & { request_id: string }, known?: LedgerTask | null, batchId?: string | null): Promise<Proposed | Pause | Refuse>
  claim(task: LedgerTask, action: ActionEnvelope, contract: Contract, unit?: 'task' | 'item', batchId?: string | null): Promise<Run | Pause | Refuse>
  gate(contract: Contract, args: object, ids: TrustedIds & { request_id: string }, known?: LedgerTask | null, batchId?: string | null): Promise<Run | Pause | Refuse>
  dispatch<T>(claim: Claim, body: (frozenArgs: { [key: string]: unknown }) => T | Promise<T>, outcomeOf?: (result: T) => 'succeeded' | 'failed' | 'unknown', unit?: 'task' | 'item'): Promise<T>
  /** Null when the completion was late (core's `keep`): the task is in doubt on the ledger. */
  complete(claim: Claim, outcome: 'succeeded' | 'failed' | 'unknown', result: unknown, unit?: 'task' | 'item'): Promise<LedgerTask | null>
}

export declare function compileContract(document: ContractDocument, where: string): Contract
export declare function contractDocument(tool: string, args: object, rule: ToolRule): ContractDocument
/** A refusal outside the gate (a framework's own), written as core writes the gate's. */
export declare function say(payload: object): string
/** Core's refusal of arguments that break the contract; rethrows any other error. */
export declare function inputError(error: unknown, tool: string): Refuse
/** The outcome core records for a tool body that returned, answered with an error or raised. */
export declare function outcome(body: 'returned' | 'reported_error' | 'raised'): 'succeeded' | 'failed' | 'unknown'
/** A gateway's refusal of a call of no governed tool, of no task of the session, or with no job, in core's words. */
export declare function unrouted(tool: string, unknown: 'tool' | 'task' | 'job'): { decision: 'refuse', code: string, refusal: { error: string, tool: string, message: string, path?: string }, message: string, bad_args: boolean }
/** A gateway's refusal of a call of a tool whose upstream schema is outside core's subset (`error`: the compile error), in core's words; a foreign error is rethrown. */
export declare function unserved(tool: string, error: unknown): { decision: 'refuse', code: string, refusal: { error: string, path: string, tool: string, message: string }, message: string, bad_args: boolean, task: null }
