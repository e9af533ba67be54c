// actionseal for the Vercel AI SDK (ai 6): actionseal/adapters/ai-sdk
import type { LanguageModelMiddleware, Tool } from 'ai'
import type { ContractDocument } from '../index.js'
import type { Seal, ToolRule, TurnCall } from './seal.mjs'

export { Seal } from './seal.mjs'
export type { Refusal, InputError, ToolRule, SealOptions, TrustedIds, TurnCall, TurnPlan } from './seal.mjs'

/**
 * What a sealed tool returns instead of running, the model reads it as the tool's result:
 * core's text, `actionseal: ` and the canonical JSON of a `Refusal` or an `InputError`.
 */
export type Sealed = `actionseal: ${string}`

/**
 * Wraps a `tool({...})`: its input schema (as the SDK converts it) becomes the contract with
 * `rule`; `needsApproval` proposes the call on the ledger; `execute` claims and runs the
 * original execute once with the frozen args (options gain `idempotencyKey`). The app's
 * context comes from generateText's `experimental_context`. Rejects when the schema is
 * outside actionseal's subset (code `unsupported_schema` / `invalid_schema`, with its path).
 */
export declare function sealTool<INPUT, OUTPUT>(seal: Seal, name: string, tool: Tool<INPUT, OUTPUT>, rule: ToolRule): Promise<Tool<INPUT, OUTPUT | Sealed>>

/** The contract document sealTool builds for a tool (for the approval server). */
export declare function contractOf(name: string, tool: Tool<any, any>, rule: ToolRule): Promise<ContractDocument>

/** The calls of a model step's content (its `tool-call` parts) that sealed `tools` govern, as a turn. */
export declare function turnOf(tools: Record<string, unknown>, content: ReadonlyArray<unknown>): TurnCall[]

/**
 * A language model middleware for `wrapLanguageModel` that proposes each generated step's
 * parallel calls of sealed `tools` as one turn (`Seal.turn`): where a tool's rule has a `batch`
 * member, the calls that need a person form one batch, reviewed once (`decideBatch`), and each
 * call's execute claims its own item. `appContext` is the `experimental_context` given to
 * generateText. generateText only: a streamed step proposes call by call.
 */
export declare function sealTurns<AppContext = any>(seal: Seal<AppContext>, tools: Record<string, unknown>, appContext: AppContext): LanguageModelMiddleware
