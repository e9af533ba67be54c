//! The approval model: when a call needs a person (`requiresApproval`), the envelope a reviewer
//! sees (`action`), the record of their decision (`approve`), the permit check before
//! dispatch (`check`), budgets (`charge`) and the spoken form of a fingerprint.
//!
//! Every argument is JSON data converted as `fingerprint` converts it; every rule, default and
//! message is core's. Data goes back as fresh plain objects (`to_js.rs`).

use crate::contract::{self, contract_of};
use crate::error;
use crate::host::Walker;
use crate::to_js;
use actionseal_core::{
    check_with, Action, ActionIds, Approval, Context, DecisionInput, Error, Value,
    DEFAULT_MAX_DEPTH,
};
use bumpalo::Bump;
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
  /** The longest an approval may hold (expires_at - decided_at), in milliseconds. */
  max_approval_ms?: number;
}

/** One condition of a contract's approval rule: the call needs approval when any matches. */
export interface ApprovalCondition {
  /** JSON Pointer into the call's arguments. */
  pointer: string;
  op?: "gt" | "gte" | "lt" | "lte" | "eq" | "ne" | "in" | "not_in" | "contains" | "exists" | "absent";
  value?: unknown;
  /** Instead of op: some element of the array at pointer matches this condition. */
  any?: ApprovalCondition;
  /** Instead of op: every element of the array at pointer matches this condition. */
  all?: ApprovalCondition;
}

/** Whether a call needs approval, and the JSON Pointer of the contract rule that decided. */
export interface Requirement {
  required: boolean;
  /** "/approval", "/approval/when/<i>" (the first matching condition) or "/approval/when". */
  rule: string;
}

/** Who acts, where, for which job and request, under which policy: from the server, never
 * from the model. Each an identifier: RFC 8264 IdentifierClass, in NFC, with no space and no
 * invisible character (docs/CONTRACTS.md). */
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
  /** Whether the approval's approver may approve; null only when no approval is presented. */
  approver_authorized: { approver: string; authorized: boolean } | null;
  /** Whether the action's subject may perform it. */
  subject_authorized: { subject: string; authorized: boolean };
  /** Whether the presented approval was revoked; null only when none is presented. */
  revoked: { approval_id: string; revoked: boolean } | null;
}

/** Why a check did not permit. */
export type Reason =
  | "no_approval"
  | "invalid_approval"
  | "invalid_action"
  | "unknown_tool"
  | "decision_rejected"
  | "decided_in_future"
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

/// Whether a call with these arguments needs an approval under `contract` (a `Contract` or a
/// contract document), and which rule decided. Invalid arguments throw.
#[wasm_bindgen(js_name = requiresApproval, unchecked_return_type = "Requirement")]
pub fn requires_approval(
    #[wasm_bindgen(unchecked_param_type = "Contract | ContractDocument")] contract: JsValue,
    #[wasm_bindgen(unchecked_param_type = "object")] args: JsValue,
) -> Result<JsValue, JsValue> {
    contract::requirement(&contract_of(&contract)?, &args)
}

/// The action envelope for a call of `contract`'s tool with `args`: the arguments are
/// validated (errors under `/args`), the ids checked (errors at the id), and `tool` and
/// `contract` (the contract's fingerprint) filled in.
#[wasm_bindgen(js_name = action, unchecked_return_type = "ActionEnvelope")]
pub fn action(
    #[wasm_bindgen(unchecked_param_type = "Contract | ContractDocument")] contract: JsValue,
    #[wasm_bindgen(unchecked_param_type = "object")] args: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ActionIds")] ids: JsValue,
) -> Result<JsValue, JsValue> {
    let contract = contract_of(&contract)?;
    let arena = Bump::new();
    let mut walker = Walker::new(DEFAULT_MAX_DEPTH, &arena);
    let args = walker.read_in(&args, "args")?;
    let ids = walker.read(&ids)?;
    let ids = ActionIds::from_value(&ids).map_err(|e| error::to_js(&e))?;
    let action = Action::build(&contract, &args, &ids).map_err(|e| error::to_js(&e))?;
    to_js::value(action.value())
}

/// The approval record of a reviewer's decision about `action` (a well-formed envelope). Every
/// field of `decision` is required: there are no defaults.
#[wasm_bindgen(js_name = approve, unchecked_return_type = "ApprovalRecord")]
pub fn approve(
    #[wasm_bindgen(unchecked_param_type = "ActionEnvelope")] action: JsValue,
    #[wasm_bindgen(unchecked_param_type = "DecisionInput")] decision: JsValue,
) -> Result<JsValue, JsValue> {
    let arena = Bump::new();
    let mut walker = Walker::new(DEFAULT_MAX_DEPTH, &arena);
    let action = walker.read(&action)?;
    let decision = walker.read(&decision)?;
    let action = Action::from_value(&action).map_err(|e| error::to_js(&e))?;
    let decision = DecisionInput::from_value(&decision).map_err(|e| error::to_js(&e))?;
    let approval = Approval::decide(&action, &decision).map_err(|e| error::to_js(&e))?;
    to_js::value(approval.value())
}

/// The permit check before dispatch: is `action` the approved action, does the approval
/// still hold, do the people and rules behind it stand? `approval` may be `null` or
/// `undefined` (none presented). Only a malformed `context` throws; everything wrong with the
/// approval or the action is a reason in the verdict. With a `Contract` as `context.contract`
/// nothing is compiled.
#[wasm_bindgen(js_name = check, unchecked_return_type = "Verdict")]
pub fn check(
    #[wasm_bindgen(unchecked_param_type = "ApprovalRecord | null | undefined")] approval: JsValue,
    #[wasm_bindgen(unchecked_param_type = "object")] action: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CheckContext")] context: JsValue,
) -> Result<JsValue, JsValue> {
    let arena = Bump::new();
    let mut walker = Walker::new(DEFAULT_MAX_DEPTH, &arena);
    let (approval, frozen) = match approval.is_null() || approval.is_undefined() {
        true => (None, None),
        false => {
            let (v, frozen) = walker.root_capturing(&approval, "action")?;
            (Some(v), frozen)
        }
    };
    // An executor that resumes with the approval's frozen action passes that very object:
    // its data was read with the approval, so it is not read again.
    let same = frozen.is_some_and(|f| f == action);
    let presented;
    let action = match approval.as_ref().filter(|_| same) {
        Some(approval) => frozen_action(approval),
        None => {
            presented = walker.read(&action)?;
            &presented
        }
    };
    let (context, contract) = walker.root_holding(&context, "contract", contract::lend)?;
    let context = match contract {
        Some(c) => Context::with_contract(&context, Some(c)),
        None => Context::from_value(&context),
    }
    .map_err(|e| error::to_js(&e))?;
    Ok(to_js::verdict(&check_with(
        approval.as_ref(),
        action,
        &context,
    )))
}

/// The `action` member of a converted approval (present: it was captured from there).
fn frozen_action<'v, 'a>(approval: &'v Value<'a>) -> &'v Value<'a> {
    static NULL: Value<'static> = Value::Null;
    approval
        .as_object()
        .and_then(|o| o.get("action"))
        .unwrap_or(&NULL)
}

/// `budget` with `costMinor` more spent. A cost or budget that is not a non-negative safe
/// integer is `invalid_budget`; spending past the limit is `budget_exceeded` (reaching it
/// exactly is allowed). The budget passed in is never changed.
#[wasm_bindgen(js_name = charge, unchecked_return_type = "Budget")]
pub fn charge(
    #[wasm_bindgen(unchecked_param_type = "Budget")] budget: JsValue,
    #[wasm_bindgen(js_name = costMinor, unchecked_param_type = "number")] cost_minor: JsValue,
) -> Result<JsValue, JsValue> {
    let arena = Bump::new();
    let mut walker = Walker::new(DEFAULT_MAX_DEPTH, &arena);
    let budget = walker.read(&budget)?;
    let cost = walker.read(&cost_minor)?;
    let charged = actionseal_core::charge(&budget, &cost).map_err(|e| error::to_js(&e))?;
    to_js::value(&charged)
}

/// The first 64 bits of a fingerprint as four groups of four hex digits
/// (`"f31c 54dd 3e07 a4eb"`): what a reviewer reads aloud or compares by eye. Machines compare
/// the full digest. Anything but a well-formed fingerprint is `invalid_digest`.
#[wasm_bindgen(js_name = shortFingerprint)]
pub fn short_fingerprint(
    #[wasm_bindgen(unchecked_param_type = "string")] digest: JsValue,
) -> Result<String, JsValue> {
    let Some(digest) = digest.as_string() else {
        // Not a string, so there is no text for core to judge; named as JavaScript names it.
        let kind = digest.js_typeof().as_string().unwrap_or_default();
        return Err(error::to_js(&Error::not_a_digest(&kind)));
    };
    actionseal_core::short_fingerprint(&digest).map_err(|e| error::to_js(&e))
}
