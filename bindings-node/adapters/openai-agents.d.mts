// actionseal for the OpenAI Agents SDK (JS): actionseal/adapters/openai-agents
import type { FunctionTool, RunState, ToolInputGuardrailDefinition } from '@openai/agents-core'
import type { Seal, ToolRule } from './seal.mjs'

export { Seal } from './seal.mjs'
export type { Refusal, InputError, ToolRule, SealOptions, TrustedIds } from './seal.mjs'

/** The options of `tool({...})` that sealTool reads; `needsApproval` is the adapter's own. */
export interface SealToolOptions<Context = any> {
  name: string
  description: string
  /** A zod object or a JSON Schema: the SDK's derived JSON Schema becomes the contract. */
  parameters: any
  strict?: boolean
  inputGuardrails?: ToolInputGuardrailDefinition<Context>[]
  /** Called once per approved call, with the frozen args (zod transforms do not run). */
  execute: (frozenArgs: any, runContext: any, details?: any) => unknown | Promise<unknown>
  [option: string]: unknown
}

/**
 * Builds the sealed tool: the contract from the SDK's JSON Schema and `rule`; needsApproval
 * while the ledger task waits for a person; an input guardrail that claims at dispatch (a stop
 * carries the refusal as `outputInfo`); execute with the frozen args. Throws when the schema is
 * outside actionseal's subset (code `unsupported_schema` / `invalid_schema`, with its path).
 */
export declare function sealTool<Context = any>(seal: Seal<Context>, options: SealToolOptions<Context>, rule: ToolRule): FunctionTool<Context>

/** Approves (one call at a time) or rejects in `state` what the ledger says; lists what still waits. */
export declare function applyDecisions<Context = any>(seal: Seal<Context>, state: RunState<Context, any>, appContext: Context): Promise<{ approved: string[], rejected: string[], waiting: string[] }>
