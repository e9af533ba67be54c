// What every actionseal framework adapter shares (actionseal/adapters/seal).
import type { ActionEnvelope, ApprovalCondition, Claim, Contract, ContractDocument, ErrorCode, Ledger, LedgerTask, TaskState } from '../index.js'

export { ActionsealError, Contract, Ledger, fingerprint, shortFingerprint, parseJson } from '../index.js'

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
  /** Who claims and completes tasks (default 'actionseal-adapter'). */
  executor?: string
  /** The claim's lease in ms (default 60000). */
  leaseMs?: number
  /** Who proposes (default 'agent'). */
  proposer?: string
}

/** The application's rule and metadata for a tool's contract; the args schema is the tool's own. */
export interface ToolRule {
  approval: 'always' | 'never' | { when: ApprovalCondition[] }
  version?: string
  effect?: 'read' | 'write'
  costMinor?: number
  maxApprovalMs?: number
}

/** What the model and the application are told when a call may not run. Nothing ran. */
export interface Refusal {
  error: 'tool_args_drift' | 'awaiting_reapproval' | 'rejected_pre_dispatch' | 'task_not_claimable' | 'already_claimed'
  task_id: string
  state: TaskState
  tool: string
  fingerprint: string
  short: string
  message: string
  /** tool_args_drift: the arguments the person approved. */
  approved_args?: { [key: string]: unknown }
  /** tool_args_drift: JSON Pointers where the presented action differs. */
  drift?: string[]
  reasons?: string[]
  /** already_claimed: the recorded result when the task finished. */
  result?: unknown
}

/** What the model is told when its arguments break the contract. Nothing ran. */
export interface InputError {
  error: ErrorCode | 'invalid_input'
  path: string
  tool: string
  message: string
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
  claim(task: LedgerTask, presented: ActionEnvelope, contract: Contract): Promise<{ claim: Claim, refusal?: undefined } | { refusal: Refusal, claim?: undefined }>
  dispatch<T>(claim: Claim, body: (frozenArgs: { [key: string]: unknown }) => T | Promise<T>, outcomeOf?: (result: T) => 'succeeded' | 'failed' | 'unknown'): Promise<T>
  complete(claim: Claim, outcome: 'succeeded' | 'failed' | 'unknown', result: unknown): Promise<LedgerTask>
}

export declare function compileContract(document: ContractDocument, where: string): Contract
export declare function contractDocument(tool: string, args: object, rule: ToolRule): ContractDocument
export declare function refusal(task: LedgerTask, code: Refusal['error'], out?: object | null): Refusal
export declare function inputError(error: { code?: string, path?: string, message: string }, tool: string): InputError
export declare function isWaiting(task: LedgerTask): boolean
