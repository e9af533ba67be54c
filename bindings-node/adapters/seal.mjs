// What every framework adapter shares: freeze a tool call into an action, propose it, claim it
// at dispatch with the trusted facts, run the tool body with the claimed (frozen) arguments and
// record the outcome. The frameworks' own "approved" signals never reach this file: the only
// authority is the ledger's decision, re-proved by the claim.
import { createRequire } from 'node:module'

const api = createRequire(import.meta.url)('../index.js')
export const { ActionsealError, Contract, Ledger, action: freezeAction, fingerprint, shortFingerprint, parseJson } = api

const WAITING = new Set(['awaiting_approval', 'awaiting_reapproval'])
const LATE = new Set(['lease_expired', 'stale_fence', 'task_not_claimed'])

/** Compiles a framework's tool schema as a contract, or says plainly why it cannot. */
export function compileContract(doc, where) {
  try {
    return new Contract(doc)
  } catch (e) {
    const err = new Error(
      `actionseal: the argument schema of ${where}, as the framework converts it, cannot be a contract: ` +
        `${e.message}${e.path ? ` (at ${e.path})` : ''}. Change the tool's schema (for example z.record, ` +
        'z.tuple, z.bigint and z.date convert to JSON Schema outside actionseal\'s subset) or pass a JSON Schema.',
      { cause: e },
    )
    err.code = e.code
    err.path = e.path
    throw err
  }
}

/** Builds a contract document from a tool's JSON Schema and the application's rule. */
export function contractDocument(tool, args, { approval, version = '1', effect = 'write', costMinor = 0, maxApprovalMs } = {}) {
  if (approval === undefined) throw new TypeError(`actionseal: tool ${tool} needs an approval rule ('always', 'never' or { when: [...] })`)
  const doc = { tool, version, effect, args, approval, cost_minor: costMinor }
  if (maxApprovalMs !== undefined) doc.max_approval_ms = maxApprovalMs
  return doc
}

/**
 * The application's side of every adapter: its ledger and the trusted context it derives from
 * its own request state (never from the model or the client's payload).
 */
export class Seal {
  /**
   * @param {object} o
   * @param {import('../index.js').Ledger} o.ledger
   * @param {(appContext: any) => {tenant: string, subject: string, job_id: string, policy_version: string}} o.context
   * @param {(approver: string, action: object) => boolean | Promise<boolean>} o.mayApprove whether this approver may still approve this action (checked at every claim)
   * @param {(subject: string, action: object) => boolean | Promise<boolean>} o.mayAct whether the subject may still perform it
   */
  constructor({ ledger, context, mayApprove, mayAct, executor = 'actionseal-adapter', leaseMs = 60_000, proposer = 'agent' }) {
    for (const [k, v] of Object.entries({ ledger, context, mayApprove, mayAct })) {
      if (!v) throw new TypeError(`actionseal: Seal needs ${k}`)
    }
    Object.assign(this, { ledger, context, mayApprove, mayAct, executor, leaseMs, proposer })
  }

  /** The trusted ids for one call: the application's context plus the framework's call id. */
  ids(appContext, requestId) {
    const c = this.context(appContext)
    return { tenant: c.tenant, subject: c.subject, job_id: c.job_id, request_id: requestId, policy_version: c.policy_version }
  }

  /** The action for these args; throws ActionsealError (code, path) when they break the contract. */
  freeze(contract, args, ids) {
    return freezeAction(contract, args, ids)
  }

  /**
   * Proposes the action (idempotent). The same call id with other arguments is the same task
   * (`task_conflict`): that task is returned, and the claim will refuse the drift.
   */
  async propose(contract, action) {
    try {
      return await this.ledger.propose({ action, contract, proposer: this.proposer })
    } catch (e) {
      if (e?.code !== 'task_conflict') throw e
      return this.ledger.task(Ledger.taskId({ tenant: action.tenant, job_id: action.job_id, request_id: action.request_id }))
    }
  }

  /** The task of a call, or null when it was never proposed. */
  async find(ids) {
    try {
      return await this.ledger.task(Ledger.taskId({ tenant: ids.tenant, job_id: ids.job_id, request_id: ids.request_id }))
    } catch (e) {
      if (e?.code === 'task_not_found') return null
      throw e
    }
  }

  /**
   * Claims the task with the action in hand. Returns `{ claim }` (dispatch exactly
   * `claim.action.args`) or `{ refusal }` (nothing may run; tell the model).
   */
  async claim(task, presented, contract) {
    const now = await this.ledger.task(task.id)
    // A reviewer amended the proposal before deciding (through the approval server: none of
    // these frameworks has an edit of its own) and the framework presents the proposal itself,
    // unchanged: what was approved is the amendment, so that is what is claimed and run. Any
    // other difference is drift.
    if (now.amendments > 0 && now.proposed_digest !== now.action_digest && fingerprint(presented) === now.proposed_digest) {
      presented = now.action
    }
    const approver = now.approval?.approver
    const facts = {
      tenant: presented.tenant,
      policy_version: presented.policy_version,
      contract: contract.document,
      approver_authorized: approver ? { approver, authorized: !!(await this.mayApprove(approver, now.action)) } : null,
      subject_authorized: { subject: presented.subject, authorized: !!(await this.mayAct(presented.subject, presented)) },
    }
    let out
    try {
      out = await this.ledger.claim({ task_id: task.id, action: presented, facts, executor: this.executor, lease_ms: this.leaseMs })
    } catch (e) {
      if (e?.code !== 'task_not_claimable' && e?.code !== 'already_claimed') throw e
      return { refusal: refusal(await this.ledger.task(task.id), e.code) }
    }
    if (out.result === 'claimed') return { claim: out.claim }
    return { refusal: refusal(out.task, out.result, out) }
  }

  /**
   * Runs `body` with the claimed frozen args once and records the outcome. A body that throws
   * leaves the outcome in doubt (`unknown`: reconcile it, never retry it blindly).
   */
  async dispatch(claim, body, outcomeOf = () => 'succeeded') {
    let result
    try {
      result = await body(structuredClone(claim.action.args))
    } catch (e) {
      await this.complete(claim, 'unknown', { error: String(e?.message ?? e) })
      throw e
    }
    await this.complete(claim, outcomeOf(result), jsonable(result))
    return result
  }

  /**
   * Records the outcome. A completion the ledger refuses because the lease ran out (or another
   * claim superseded this one) leaves the task in doubt on the ledger, for reconciliation: the
   * body did run, so its answer still goes back to the caller.
   */
  async complete(claim, outcome, result) {
    try {
      return await this.ledger.complete({ task_id: claim.task_id, fence: claim.fence, outcome, executor: this.executor, result })
    } catch (e) {
      if (!LATE.has(e?.code)) throw e
      return null
    }
  }
}

/** A result as JSON data for the ledger (tool results may hold undefined or class instances). */
function jsonable(v) {
  if (v === undefined) return null
  try {
    return JSON.parse(JSON.stringify(v))
  } catch {
    return String(v)
  }
}

/** What the model (and the application) is told when a call may not run. */
export function refusal(task, code, out = null) {
  const r = {
    error: code,
    task_id: task.id,
    state: task.state,
    tool: task.action.tool,
    fingerprint: task.action_digest,
    short: shortFingerprint(task.action_digest),
  }
  if (code === 'tool_args_drift') {
    r.approved_args = out.approved_action.args
    r.drift = out.verdict.drift
    r.message = `These arguments are not the approved ones (they differ at ${out.verdict.drift.join(', ')}); nothing ran. ` +
      `The approved call is ${task.action.tool} with ${JSON.stringify(out.approved_action.args)}: call it with exactly these arguments, or propose a new call.`
  } else if (code === 'already_claimed') {
    r.message = `This approved call was already dispatched (state ${task.state}); it does not run again.`
    if (task.state === 'succeeded' || task.state === 'failed') r.result = task.result
  } else if (WAITING.has(task.state)) {
    r.message = `${task.action.tool} is waiting for a person's approval (${task.state}); nothing ran.`
  } else {
    r.message = `${task.action.tool} may not run (${code}, state ${task.state}); nothing ran.`
  }
  if (out?.verdict && code !== 'tool_args_drift') r.reasons = out.verdict.reasons
  return r
}

/** What the model is told when its arguments break the contract. */
export function inputError(e, tool) {
  return {
    error: e.code ?? 'invalid_input',
    path: e.path ?? '',
    tool,
    message: `The arguments do not match ${tool}'s schema: ${e.message}; nothing ran.`,
  }
}

export const isWaiting = (task) => WAITING.has(task.state)
