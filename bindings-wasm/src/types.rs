//! The TypeScript declarations of the data this package takes and returns (generated).

use wasm_bindgen::prelude::*;
#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** A contract document: what `new Contract(document)` loads. */
export interface ContractDocument {
  tool: string;
  version: string;
  effect: "read" | "write";
  /** A JSON Schema (actionseal's strict subset) with `"type": "object"`. */
  args: object;
  approval: "always" | "never" | { when: ApprovalCondition[] };
  cost_minor: number;
}

/** One condition of a contract's approval rule: the call needs approval when any matches. */
export interface ApprovalCondition {
  /** JSON Pointer into the call's arguments. */
  pointer: string;
  op: "gt" | "gte" | "lt" | "lte" | "eq" | "ne" | "in" | "not_in" | "exists" | "absent";
  value?: unknown;
}

/** Whether a call needs approval, and the JSON Pointer of the contract rule that decided. */
export interface Requirement {
  required: boolean;
  /** "/approval", "/approval/when/<i>" (the first matching condition) or "/approval/when". */
  rule: string;
}

/** Who acts, where, for which job and request, under which policy: from the server, never
 * from the model. Each a non-blank string without surrounding whitespace or control characters. */
export interface ActionIds {
  tenant: string;
  subject: string;
  job_id: string;
  request_id: string;
  policy_version: string;
}

/** The action envelope: exactly what a reviewer approves, its fingerprint what an approval binds. */
export interface ActionEnvelope extends ActionIds {
  tool: string;
  /** The fingerprint of the tool's contract. */
  contract: string;
  args: { [key: string]: unknown };
}

/** A reviewer's decision about one action; times in integer milliseconds since the epoch. */
export interface DecisionInput {
  approval_id: string;
  decision_id: string;
  decision: "approved" | "rejected";
  approver: string;
  decided_at: number;
  /** When the decision stops holding; after `decided_at`. */
  expires_at: number;
}

/** An approval record: the decision, the frozen action and its fingerprint. */
export interface ApprovalRecord extends DecisionInput {
  action: ActionEnvelope;
  action_digest: string;
}

/** What the executor's own server knows at dispatch time. */
export interface CheckContext {
  /** Milliseconds since the epoch. */
  now: number;
  tenant: string;
  policy_version: string;
  /** The tool's current contract (a `Contract` is not compiled again), or null when the
   * server has none for the action's tool. */
  contract: Contract | ContractDocument | null;
  approver_authorized: boolean;
  subject_authorized: boolean;
  revoked: boolean;
}

/** Why a check did not permit. */
export type Reason =
  | "no_approval"
  | "invalid_approval"
  | "invalid_action"
  | "unknown_tool"
  | "decision_rejected"
  | "tenant_mismatch"
  | "action_drift"
  | "expired"
  | "approver_unauthorized"
  | "subject_unauthorized"
  | "policy_drift"
  | "contract_drift"
  | "revoked";

/** The result of `check`. */
export interface Verdict {
  /** permit: dispatch; reapprove: send the same task back for approval; reject: never run it. */
  outcome: "permit" | "reapprove" | "reject";
  /** Every reason found, in a fixed order; empty exactly when permitted. */
  reasons: Reason[];
  /** JSON Pointers where the presented action differs from the approved one. */
  drift: string[];
  /** Fingerprint of the presented action. */
  action_digest: string;
  /** The approved action's fingerprint, when a valid, untampered approval was presented. */
  approved_digest: string | null;
  /** Why the action is invalid, with the reason "invalid_action". */
  action_error: { code: string; path: string } | null;
}

/** A cumulative budget in integer minor units. */
export interface Budget {
  limit_minor: number;
  spent_minor: number;
}
"#;
