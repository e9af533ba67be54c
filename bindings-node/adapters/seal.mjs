// What every framework adapter shares: freeze a tool call into an action, propose it, claim it
// at dispatch with the trusted facts, run the tool body with the claimed (frozen) arguments and
// record the outcome. What each ledger step means (wait, run, refuse and the text the model
// reads) is core's `gateStep`, the same in every runtime; this file only does the I/O. The
// frameworks' own "approved" signals never reach it: the only authority is the ledger's
// decision, re-proved by the claim. With `@opentelemetry/api` installed, the gate is an
// `execute_tool` span over the ledger's spans (telemetry.js, core's table).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const api = require('../main.js')
const telemetry = require('../telemetry.js')
export const { ActionsealError, Contract, Ledger, action: freezeAction, canonicalize, fingerprint, shortFingerprint, parseJson, gateStep } = api

/** Core's defaults, the same as the Python adapters': `{ lease_ms, executor, proposer }`. */
export const DEFAULTS = api.gateDefaults()
// The fallback's Ledger (no native addon) has no table: nothing to trace there.
const SCHEMA = telemetry.enabled && typeof Ledger.telemetrySchema === 'function' ? Ledger.telemetrySchema() : null

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
  constructor({ ledger, context, mayApprove, mayAct, executor = DEFAULTS.executor, leaseMs = DEFAULTS.lease_ms, proposer = DEFAULTS.proposer }) {
    for (const [k, v] of Object.entries({ ledger, context, mayApprove, mayAct })) {
      if (!v) throw new TypeError(`actionseal: Seal needs ${k}`)
    }
    Object.assign(this, { ledger: telemetry.instrumentLedger(ledger), context, mayApprove, mayAct, executor, leaseMs, proposer })
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
   * Freezes and proposes the call: core's decision `{ decision: 'claim', action, task }` (claim
   * `action`: the one presented, or the amendment a reviewer made to it), `'pause'` (the task
   * waits for a person) or `'refuse'` (the args break the contract; the model may correct
   * them). `known` is the task already named for this call (it is not proposed again).
   */
  async proposal(contract, args, ids, known = null) {
    let presented, task
    try {
      presented = this.freeze(contract, args, ids)
      // Under a quorum the task carries how many approvals are still missing (issue 25).
      task = known ?? (await this.propose(contract, presented))
    } catch (e) {
      return decided(gateStep({ step: 'propose', tool: contract.tool, error: caught(e) }), null, e)
    }
    return decided(gateStep({ step: 'propose', task, presented }), task)
  }

  /**
   * Claims the task with `action` (a proposal's). Returns core's decision: `{ decision: 'run',
   * claim, args }` (dispatch exactly `args`, the frozen ones), `'pause'` (no claimable
   * approval) or `'refuse'` (nothing may run; tell the model `message`). Throws what core does
   * not decide.
   */
  async claim(task, action, contract) {
    const now = await this.ledger.task(task.id)
    const approver = now.approval?.approver
    const facts = {
      tenant: action.tenant,
      policy_version: action.policy_version,
      contract: contract.document,
      approver_authorized: approver ? { approver, authorized: !!(await this.mayApprove(approver, now.action)) } : null,
      subject_authorized: { subject: action.subject, authorized: !!(await this.mayAct(action.subject, action)) },
    }
    let out
    try {
      out = await this.ledger.claim({ task_id: task.id, action, facts, executor: this.executor, lease_ms: this.leaseMs })
    } catch (e) {
      const after = await this.ledger.task(task.id)
      return decided(gateStep({ step: 'claim', task: after, error: caught(e) }), after, e)
    }
    return decided(gateStep({ step: 'claim', outcome: out }), out.task)
  }

  /** `proposal` then, when core says so, `claim`: the decision about a call about to run. */
  async gate(contract, args, ids, known = null) {
    return telemetry.gateSpan(SCHEMA, contract.tool, async () => {
      const p = await this.proposal(contract, args, ids, known)
      return p.decision === 'claim' ? this.claim(p.task, p.action, contract) : p
    }, (d) => ({
      task: d.task, tool: contract.tool, call_id: ids.request_id, decision: d.decision,
      reasons: d.decision === 'refuse' ? [d.code] : [],
    }))
  }

  /**
   * Runs `body` with the claimed frozen args once and records the outcome (`outcomeOf(result)`,
   * by default core's for a body that returned). A body that throws leaves the outcome in doubt
   * (`unknown`: reconcile it, never retry it blindly).
   */
  async dispatch(claim, body, outcomeOf = () => outcome('returned')) {
    let result
    try {
      result = await body(structuredClone(claim.action.args))
    } catch (e) {
      await this.complete(claim, outcome('raised'), { error: String(e?.message ?? e) })
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
      return decided(gateStep({ step: 'complete', error: caught(e) }), null, e)
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

/** An error as core's gate reads it; anything but an ActionsealError is rethrown. */
function caught(e) {
  if (typeof e?.code !== 'string' || typeof e?.message !== 'string') throw e
  return { code: e.code, path: e.path ?? '', message: e.message }
}

/** Core's decision, with the task it is about; `raise` rethrows, `keep` is null. */
function decided(d, task, error = null) {
  if (d.decision === 'raise') throw error
  if (d.decision === 'keep') return null
  return { ...d, task }
}

/** The outcome to record for a body that `'returned'`, `'reported_error'` or `'raised'`: core's. */
export const outcome = (body) => gateStep({ step: 'ran', body }).outcome

/** A gateway's refusal of a call of no governed `tool`, or of no task of the session
 * (`unknown`: `'tool'` or `'task'`), in core's words: `{ message, refusal }`. */
export const unrouted = (tool, unknown) => gateStep({ step: 'route', tool, unknown })

/** A gateway's refusal of a call of `tool` whose upstream schema is outside core's subset
 * (`e`: the contract's compile error), in core's words: `{ message, refusal }`; a foreign
 * error is rethrown. */
export const unserved = (tool, e) => decided(gateStep({ step: 'route', tool, error: caught(e) }), null, e)

/** What the model reads about a refusal outside the gate (a framework's own), as core writes the gate's. */
export const say = (payload) => 'actionseal: ' + canonicalize(payload)

/** The refusal of args that break the contract (core's decision), or the error rethrown. */
export function inputError(e, tool) {
  return decided(gateStep({ step: 'propose', tool, error: caught(e) }), null, e)
}
