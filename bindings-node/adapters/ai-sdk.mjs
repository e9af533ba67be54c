// actionseal for the Vercel AI SDK (`ai` 6): a wrapper for `tool({...})`.
//
//   const refund = await sealTool(seal, 'refund_create', tool({ inputSchema, execute }), { approval })
//
// - The contract is the tool's input schema as the SDK converts it for the model, unchanged,
//   with the application's approval rule; a schema outside actionseal's subset fails here.
// - inputSchema: core validates the model's (or the client-held history's) input first, so "300"
//   for an integer and undeclared members are tool errors the model reads (zod alone would strip
//   the members and run), then the tool's own schema. The input itself (JSON) is what is frozen
//   and run: zod transforms and defaults do not apply.
// - needsApproval: freezes and proposes the call (job = the app's chat id, request = the
//   toolCallId) and answers the contract's rule. The SDK re-asks it when the approval comes back
//   and turns an approval of a call that "needs none" into a denial, so it stays the rule.
// - execute: claims with the input the SDK hands over (it comes from the client-held history,
//   where drift enters) and runs the original execute with the claimed frozen args, once; any
//   refusal (drift, no decision, spent, expired) is the tool's result: core's text,
//   `actionseal: {...}` (canonical JSON), the same bytes the Python adapters give the model.
// - sealTurns: a language model middleware that proposes a step's parallel tool calls as one
//   turn (Seal.turn) before the SDK asks needsApproval of each: where the contract has a batch
//   member, the calls that need a person form one batch, reviewed once; each call's execute
//   then claims its own item. A per-call hook cannot do it: needsApproval sees one call.
// The SDK's tool-approval-response is a boolean the client writes: it only wakes the run.
// There is no reviewer edit in the SDK: the approval server may amend the proposal on the
// ledger before deciding, and the history's unchanged proposal then runs as the amendment
// (Seal.claim).
import { asSchema, jsonSchema } from 'ai'
import { Seal, compileContract, contractDocument, inputError, parseJson } from './seal.mjs'

export { Seal }

const contextOf = (options) => options?.context ?? options?.experimental_context
/** Where a sealed tool keeps its contract, for sealTurns. */
const CONTRACT = Symbol('actionseal.contract')

/**
 * The calls of a model step (its `tool-call` content parts) that `tools` governs, as a turn:
 * `[{ contract, args, requestId }]`. A call whose input does not parse strictly joins no
 * batch: its own gate tells the model why.
 */
export function turnOf(tools, content) {
  const calls = []
  for (const p of content ?? []) {
    const contract = p?.type === 'tool-call' ? tools[p.toolName]?.[CONTRACT] : undefined
    if (!contract) continue
    let args
    try {
      args = typeof p.input === 'string' ? parseJson(p.input) : p.input
    } catch {
      continue
    }
    calls.push({ contract, args, requestId: p.toolCallId })
  }
  return calls
}

/**
 * A language model middleware (`wrapLanguageModel({ model, middleware: sealTurns(seal, tools,
 * appContext) })`, with the `experimental_context` given to generateText) that proposes each
 * step's parallel calls of sealed `tools` as one turn, as batches where their contracts allow.
 * generateText only: a streamed step proposes its calls one by one, as before.
 */
export function sealTurns(seal, tools, appContext) {
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate }) => {
      const result = await doGenerate()
      const calls = turnOf(tools, result.content)
      if (calls.length > 1) await seal.turn(calls, appContext)
      return result
    },
  }
}

export async function sealTool(seal, name, tool, rule) {
  if (!(seal instanceof Seal)) throw new TypeError('actionseal: sealTool needs a Seal')
  if (typeof tool?.execute !== 'function') throw new TypeError(`actionseal: tool ${name} has no execute`)
  const inner = asSchema(tool.inputSchema)
  const args = await inner.jsonSchema
  const doc = contractDocument(name, args, rule)
  const contract = compileContract(doc, `tool ${name}`)

  const inputSchema = jsonSchema(args, {
    validate: async (value) => {
      try {
        contract.validateArgs(value)
      } catch (e) {
        const err = new Error(inputError(e, name).message, { cause: e })
        err.code = e.code
        err.path = e.path
        return { success: false, error: err }
      }
      // The tool's own schema must accept it too; what is frozen and run is the input itself
      // (JSON, as the model sent it), not zod's output: transforms and defaults do not apply.
      const own = inner.validate ? await inner.validate(value) : { success: true }
      return own.success ? { success: true, value } : own
    },
  })

  const ids = (options) => seal.ids(contextOf(options), options.toolCallId)

  return {
    ...tool,
    [CONTRACT]: contract,
    inputSchema,
    // The rule for this input, or for the task this call id already has: args edited into
    // the history after a person was asked must reach execute, to be refused as drift (the
    // SDK would otherwise turn the approval into a silent denial).
    needsApproval: async (input, options) => {
      const p = await seal.proposal(contract, input, ids(options))
      return contract.requiresApproval(input).required || !!p.task?.approval_required
    },
    execute: async (input, options) => {
      // The SDK has no pause inside execute: a pause is told to the model like a refusal.
      const g = await seal.gate(contract, input, ids(options))
      if (g.decision !== 'run') return g.message
      return seal.dispatch(g.claim, (frozenArgs) => tool.execute(frozenArgs, { ...options, idempotencyKey: g.claim.idempotency_key }), undefined, g.unit)
    },
  }
}

/** The contract a sealed tool was built with (for the approval server and tests). */
export async function contractOf(name, tool, rule) {
  return contractDocument(name, await asSchema(tool.inputSchema).jsonSchema, rule)
}
