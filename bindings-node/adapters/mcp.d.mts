// actionseal as an MCP gateway (TypeScript SDK 1.x): actionseal/adapters/mcp
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { CallToolResult, Implementation } from '@modelcontextprotocol/sdk/types.js'
import type { ContractDocument, LedgerTask } from '../index.js'
import type { Seal, ToolRule } from './seal.mjs'

export { Seal } from './seal.mjs'
export type { Refusal, InputError, ToolRule, SealOptions, TrustedIds } from './seal.mjs'

/** `_meta` key of the task id a host presents when it retries an approved call (a pointer, not a credential). */
export declare const TASK_META: 'io.actionseal/task'
/** `_meta` key a host may set to its own request id for a call (else derived from the tool and args). */
export declare const REQUEST_META: 'io.actionseal/request'
/** `_meta` key of the task's idempotency key on the forwarded call. */
export declare const IDEMPOTENCY_META: 'io.actionseal/idempotency_key'

export interface GatewayOptions<Session = any> {
  /** A connected client to the real server. Declare no elicitation capability on it. */
  upstream: Client
  seal: Seal<Session>
  /** This connection's trusted session (from the gateway's own auth), handed to seal's context(). */
  session: Session
  /** Names the real server inside every frozen action: the tool is `<serverId>.<name>`. */
  serverId: string
  /** The governed tools and their rules. Tools without a rule are neither listed nor called. */
  rules: { [toolName: string]: ToolRule }
  /** The reviewer's page for a task. */
  reviewUrl: (task: LedgerTask) => string
  info?: Implementation
}

export declare class Gateway<Session = any> {
  constructor(options: GatewayOptions<Session>)
  /** The MCP server to connect the host's transport to. */
  readonly server: Server
  rules: { [toolName: string]: ToolRule }
  /** The contract of a governed tool as the upstream describes it now, or null. */
  contractFor(name: string): Promise<ContractDocument | null>
  /** Handles one tools/call; throws UrlElicitationRequiredError (-32042) while approval is required and the host supports URL elicitation. */
  call(params: { name: string, arguments?: { [key: string]: unknown }, _meta?: { [key: string]: unknown } }): Promise<CallToolResult>
}
