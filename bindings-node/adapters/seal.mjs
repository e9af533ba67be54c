// What every framework adapter shares: freeze a tool call into an action, propose it, claim it
// at dispatch with the trusted facts, run the tool body with the claimed (frozen) arguments and
// record the outcome. What each ledger step means (wait, run, refuse and the text the model
// reads) is core's `gateStep`, the same in every runtime; this file only does the I/O. The
// frameworks' own "approved" signals never reach it: the only authority is the ledger's
// decision, re-proved by the claim. The parallel calls of one model turn are proposed together
// (`turn`): core says which form a batch a person reviews once, and each call of a batch claims
// and completes its own item (core's `unit`). With `@opentelemetry/api` installed, the gate is an
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
export function contractDocument(tool, args, { approval, version = '1', effect = 'write', costMinor = 0, maxApprovalMs, batch } = {}) {
  if (approval === undefined) throw new TypeError(`actionseal: tool ${tool} needs an approval rule ('always', 'never' or { when: [...] })`)
  const doc = { tool, version, effect, args, approval, cost_minor: costMinor }
  if (maxApprovalMs !== undefined) doc.max_approval_ms = maxApprovalMs
  // The contract's batch member: one turn's calls of this tool may be reviewed as a batch.
  if (batch !== undefined) doc.batch = batch
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

  /**
   * Core's batches of a model turn, without the ledger: `{ batches: [{ calls, batch_id,
   * batch_digest, semantics }] }`, `calls` as positions in `calls` (`[{ contract, args,
   * requestId }]`, the turn's governed calls; ones whose args break the contract join none).
   */
  plan(calls, appContext) {
    return { batches: this.#plan(calls, appContext).batches }
  }

  /** `plan`, with each frozen call's action by its position in the turn. */
  #plan(calls, appContext) {
    const frozen = []
    for (const [i, c] of calls.entries()) {
      try {
        frozen.push([i, this.freeze(c.contract, c.args, this.ids(appContext, c.requestId)), c.contract])
      } catch (e) {
        if (typeof e?.code !== 'string') throw e // told to the model where the call would run
      }
    }
    const d = gateStep({ step: 'turn', calls: frozen.map(([, action, contract]) => ({ action, contract: contract.document })) })
    return {
      batches: d.batches.map((b) => ({ ...b, calls: b.calls.map((k) => frozen[k][0]) })),
      frozen: new Map(frozen.map(([i, action]) => [i, action])),
    }
  }

  /**
   * Proposes a model turn's governed calls as soon as the model asks: each batch core plans
   * with `proposeBatch` (a person reviews it once), every other call on its own; a batch the
   * ledger refuses as a batch (a narrower server policy, a quorum) is proposed call by call.
   * Returns the plan (`{ batches }`).
   */
  async turn(calls, appContext) {
    const { batches, frozen } = this.#plan(calls, appContext)
    const batched = new Set()
    for (const b of batches) {
      const actions = b.calls.map((i) => frozen.get(i))
      try {
        await this.ledger.proposeBatch({ actions, contract: calls[b.calls[0]].contract, semantics: b.semantics, proposer: this.proposer })
      } catch (e) {
        decided(gateStep({ step: 'turn', error: caught(e) }), null, e) // alone, or rethrown
        continue
      }
      for (const i of b.calls) batched.add(i)
    }
    for (const [i, action] of frozen) {
      if (!batched.has(i)) await this.propose(calls[i].contract, action)
    }
    return { batches }
  }

  /** The id of the batch core puts the call `requestId` of this turn in, or null. */
  batchOf(calls, appContext, requestId) {
    const b = this.plan(calls, appContext).batches.find((b) => b.calls.some((i) => calls[i].requestId === requestId))
    return b?.batch_id ?? null
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
  async proposal(contract, args, ids, known = null, batchId = null) {
    let presented, task
    try {
      presented = this.freeze(contract, args, ids)
      // Under a quorum the task carries how many approvals are still missing (issue 25).
      task = known ?? (await this.propose(contract, presented))
    } catch (e) {
      return decided(gateStep({ step: 'propose', tool: contract.tool, error: caught(e) }), null, e)
    }
    return decided(gateStep(await this.#withBatch({ step: 'propose', task, presented }, batchId)), task)
  }

  /** `step` with the batch of its waiting task, which the reviewer decides once for all of the turn's calls. */
  async #withBatch(step, batchId) {
    const { task } = step
    if (batchId && (task.state === 'awaiting_approval' || task.state === 'awaiting_reapproval')) {
      const batch = await this.batchOfTask(batchId, task.id)
      if (batch) return { ...step, batch }
    }
    return step
  }

  /**
   * The batch that holds the task now: the turn's `batchId`, or the one a trip or an expiry
   * sent its remaining items back in (its `successor`, followed); null when the ledger has no
   * such batch (its calls are single tasks).
   */
  async batchOfTask(batchId, taskId) {
    let batch
    try {
      batch = await this.ledger.batch(batchId)
    } catch (e) {
      if (e?.code === 'batch_not_found') return null
      throw e
    }
    const holds = (b) => b.items.some((i) => i.task_id === taskId)
    if (!holds(batch)) return null
    // A batch keeps listing the items it sent back: the latest batch that holds it decides.
    while (batch.successor) {
      const later = await this.ledger.batch(batch.successor)
      if (!holds(later)) break
      batch = later
    }
    return batch
  }

  /**
   * Claims the task with `action` (a proposal's). Returns core's decision: `{ decision: 'run',
   * claim, args }` (dispatch exactly `args`, the frozen ones), `'pause'` (no claimable
   * approval) or `'refuse'` (nothing may run; tell the model `message`). Throws what core does
   * not decide.
   */
  async claim(task, action, contract, unit = 'task', batchId = null) {
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
      // A batch's item is held to the batch's caps and breaker (core's `unit`).
      const request = { task_id: task.id, action, facts, executor: this.executor, lease_ms: this.leaseMs }
      out = await (unit === 'item' ? this.ledger.claimItem(request) : this.ledger.claim(request))
    } catch (e) {
      const after = await this.ledger.task(task.id)
      return decided(gateStep(await this.#withBatch({ step: 'claim', task: after, error: caught(e) }, batchId)), after, e)
    }
    return decided(gateStep({ step: 'claim', outcome: out }), out.task)
  }

  /** `proposal` then, when core says so, `claim`: the decision about a call about to run. */
  async gate(contract, args, ids, known = null, batchId = null) {
    return telemetry.gateSpan(SCHEMA, contract.tool, async () => {
      const p = await this.proposal(contract, args, ids, known, batchId)
      return p.decision === 'claim' ? this.claim(p.task, p.action, contract, p.unit, batchId) : p
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
  async dispatch(claim, body, outcomeOf = () => outcome('returned'), unit = 'task') {
    let result
    try {
      result = await body(structuredClone(claim.action.args))
    } catch (e) {
      await this.complete(claim, outcome('raised'), { error: String(e?.message ?? e) }, unit)
      throw e
    }
    await this.complete(claim, outcomeOf(result), jsonable(result), unit)
    return result
  }

  /**
   * Records the outcome. A completion the ledger refuses because the lease ran out (or another
   * claim superseded this one) leaves the task in doubt on the ledger, for reconciliation: the
   * body did run, so its answer still goes back to the caller.
   */
  async complete(claim, outcome, result, unit = 'task') {
    try {
      const report = { task_id: claim.task_id, fence: claim.fence, outcome, executor: this.executor, result }
      return await (unit === 'item' ? this.ledger.completeItem(report) : this.ledger.complete(report))
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
