// actionseal for the OpenAI Agents SDK (JS, @openai/agents-core / @openai/agents).
//
//   const refund = sealTool(seal, { name, description, parameters, execute }, { approval })
//   const r = await run(agent, input, { context })            // pauses: r.interruptions
//   ... a person decides on the ledger (the approval server), then:
//   await applyDecisions(seal, r.state, context)              // approve only what the ledger approved
//   await run(agent, r.state, { context })
//
// - The contract is the JSON Schema the SDK derives from the tool's parameters, unchanged, with
//   the application's rule; the SDK is then given that schema, so core validates the model's
//   raw argument text (the model reads `type_mismatch` at its path instead of a redacted failure).
// - needsApproval: freezes and proposes the call (job = the app's run id from its context,
//   request = the call id); true while the task waits for a person.
// - An input guardrail claims at dispatch from the raw argument text (strict parse: duplicate
//   keys are refused). Drift, a spent or rejected call -> the model is told (rejectContent), with
//   the approved args on drift; no decision or an expired one -> the run stops
//   (throwException, `outputInfo.error`), nothing ran, and the app resumes from the state it
//   kept once the ledger has a decision.
// - execute runs the user's execute with the claimed frozen args, never the parsed input.
// `RunState.approve` alone is never enough (the claim needs the ledger's decision), and
// `alwaysApprove` is no standing approval: every call is its own task. The SDK has no reviewer
// edit: the approval server may amend the proposal on the ledger before deciding, and the
// state's unchanged proposal then runs as the amendment (Seal.claim).
import { defineToolInputGuardrail, tool, ToolGuardrailFunctionOutputFactory as G } from '@openai/agents-core'
import { Seal, compileContract, contractDocument, gateStep, inputError, parseJson } from './seal.mjs'

export { Seal }

export function sealTool(seal, options, rule) {
  if (!(seal instanceof Seal)) throw new TypeError('actionseal: sealTool needs a Seal')
  if (typeof options?.execute !== 'function') throw new TypeError(`actionseal: tool ${options?.name} has no execute`)
  const name = options.name
  const doc = contractDocument(name, tool({ ...options, needsApproval: false }).parameters, rule)
  const contract = compileContract(doc, `tool ${name}`)
  const claims = new Map() // (job, call id) -> { claim, unit }, from the guardrail to execute

  const guard = defineToolInputGuardrail({
    name: 'actionseal',
    run: async ({ context, toolCall }) => {
      let args
      try {
        args = parseJson(toolCall.arguments) // strict: duplicate keys, lone surrogates, ...
      } catch (e) {
        const d = inputError(e, name)
        return G.rejectContent(d.message, d.refusal)
      }
      const g = await seal.gate(contract, args, seal.ids(context.context, toolCall.callId))
      if (g.decision === 'run') {
        claims.set(`${g.claim.action.job_id}\0${toolCall.callId}`, { claim: g.claim, unit: g.unit })
        return G.allow({ task_id: g.claim.task_id })
      }
      if (g.decision === 'pause') return G.throwException(g.refusal)
      return G.rejectContent(g.message, g.refusal)
    },
  })

  return tool({
    ...options,
    parameters: doc.args,
    strict: options.strict ?? true,
    needsApproval: async (runContext, input, callId) => {
      // Input that breaks the contract does not pause: the guardrail tells the model why.
      const p = await seal.proposal(contract, input, seal.ids(runContext.context, callId))
      return p.decision === 'pause'
    },
    // Last: an app's guardrail that refuses runs before anything is claimed (a claim made first
    // would be spent on a call that then never runs).
    inputGuardrails: [...(options.inputGuardrails ?? []), guard],
    execute: async (_input, runContext, details) => {
      const key = `${seal.context(runContext.context).job_id}\0${details?.toolCall?.callId}`
      const won = claims.get(key)
      claims.delete(key)
      if (!won) return gateStep({ step: 'invoke', tool: name }).message
      return seal.dispatch(won.claim, (frozenArgs) => options.execute(frozenArgs, runContext, details), undefined, won.unit)
    },
  })
}

/**
 * Approves in the RunState exactly the interruptions whose ledger task a person approved, one
 * call at a time (never `alwaysApprove`); rejects those a person rejected; leaves the rest.
 */
export async function applyDecisions(seal, state, appContext) {
  const out = { approved: [], rejected: [], waiting: [] }
  for (const item of state.getInterruptions()) {
    const callId = item.rawItem?.callId
    if (!callId) continue
    const task = await seal.find(seal.ids(appContext, callId))
    if (!task) continue // not a sealed tool's call
    const d = gateStep({ step: 'resume', task })
    if (d.decision === 'approve') {
      state.approve(item)
      out.approved.push(task.id)
    } else if (d.decision === 'refuse') {
      state.reject(item, { message: d.message })
      out.rejected.push(task.id)
    } else {
      out.waiting.push(task.id)
    }
  }
  return out
}
