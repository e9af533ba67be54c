// OpenTelemetry for the ledger and the adapters' gate (telemetry.js): a no-op without the
// optional `@opentelemetry/api`.
import type { Ledger } from './index'

/** Core's table (`Ledger.telemetrySchema()`). */
export type TelemetrySchema = ReturnType<typeof Ledger.telemetrySchema>

/** Whether `@opentelemetry/api` was found. */
export declare const enabled: boolean
/** The ledger method of an operation of core's table (`claim_item` -> `claimItem`): each but the gate has a span. */
export declare function methodOf(op: string): string
/** The attributes of `op`'s span from its result, as core's table maps them. */
export declare function attributes(schema: TelemetrySchema, op: string, result: unknown): Record<string, string | number | boolean | string[]>
/** `ledger` with a span around each operation (itself without the API or when traced already). */
export declare function instrumentLedger<L extends Ledger>(ledger: L): L
/** The `Ledger` class whose `open` gives traced ledgers (itself without the API). */
export declare function instrumentClass<C extends typeof Ledger>(ledger: C): C
/** Runs an adapter's gate in an `execute_tool {tool}` span; `summary` gives the record core's table maps. */
export declare function gateSpan<D>(
  schema: TelemetrySchema | null,
  tool: string,
  fn: () => Promise<D>,
  summary: (decision: D) => { task?: unknown, tool: string, call_id: string, decision: string, reasons: string[] },
): Promise<D>
