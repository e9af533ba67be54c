//! Batches: building one (`batchBuild`), a reviewer's deselection (`batchDeselect`), an item's
//! inclusion (`batchVerifyItem`), the decision over one (`batchDecide`, `batchVerifyDecision`),
//! the checks of its items before dispatch (`checkItem`, `checkBatch`) and its circuit
//! breaker (`breakerStep`). Core reads every argument and decides every code
//! (`actionseal_core::batch::calls`, `check_item`, `check_batch`); this file walks and maps.

use crate::contract::{self, contract_of};
use crate::host::{self, Fail};
use crate::model::{context_of, with};
use crate::to_js;
use actionseal_core::batch::{calls, check_batch_values, check_item_with};
use actionseal_core::host::approval_set;
use actionseal_core::{Options, Value};
use actionseal_js::Lift;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A server's batch policy argument, typed for TypeScript.
    #[wasm_bindgen(typescript_type = "BatchPolicy")]
    pub type BatchPolicyArg;
}

/// The server's policy: `null` to core when left out.
fn or_null(v: Option<BatchPolicyArg>) -> JsValue {
    v.map_or(JsValue::NULL, Into::into)
}

/// The batch of `actions` under the contract, as a reviewer's page and an executor need it: the frozen header, the batch fingerprint a decision binds, each item's fingerprint, task id and inclusion proof, and the totals under the caps; `server` narrows the contract's batch policy.
///
/// `contract` is a `Contract` or a contract document with a `batch` member
/// (`batch_not_allowed` otherwise); `semantics` is `'all_or_nothing'` or `'per_item'`;
/// `actions` are action envelopes of its tool, in one tenant, with distinct task identities.
/// Throws `batch_too_large` past `max_items`, `batch_cap_exceeded` when the whole list breaks
/// a cap (the path names the item), `invalid_batch` for a malformed list.
#[wasm_bindgen(js_name = batchBuild, unchecked_return_type = "Batch")]
pub fn batch_build(
    #[wasm_bindgen(unchecked_param_type = "Contract | ContractDocument")] contract: JsValue,
    #[wasm_bindgen(unchecked_param_type = "'all_or_nothing' | 'per_item'")] semantics: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ActionEnvelope[]")] actions: JsValue,
    server: Option<BatchPolicyArg>,
) -> Result<JsValue, JsValue> {
    let contract = contract_of(&contract)?;
    let server = or_null(server);
    let built = with([&semantics, &actions, &server], |[s, a, p]| {
        calls::build(contract.document(), s, a, p)
    })?;
    to_js::value(&built)
}

/// The batch `batch_build` makes without the items at `indices` (a reviewer's deselection): the remainder, its new fingerprint, and `proposed_digest`, the fingerprint of the batch as proposed.
///
/// The remainder keeps the items' order; each index must name an item, once. The arguments
/// are `batchBuild`'s, with `indices` before the optional `server`.
#[wasm_bindgen(js_name = batchDeselect, unchecked_return_type = "DeselectedBatch")]
pub fn batch_deselect(
    #[wasm_bindgen(unchecked_param_type = "Contract | ContractDocument")] contract: JsValue,
    #[wasm_bindgen(unchecked_param_type = "'all_or_nothing' | 'per_item'")] semantics: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ActionEnvelope[]")] actions: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number[]")] indices: JsValue,
    server: Option<BatchPolicyArg>,
) -> Result<JsValue, JsValue> {
    let contract = contract_of(&contract)?;
    let server = or_null(server);
    let kept = host::convert(
        &[&semantics, &actions, &server],
        &Options::default(),
        None,
        |v, _| {
            with([&indices], |[i]| {
                calls::deselect(contract.document(), &v[0], &v[1], &v[2], i)
            })
        },
    )??;
    to_js::value(&kept)
}

/// Verifies that `item` (`{action, proof}`) is in the batch `header` describes: its inclusion proof leads to the header's root; raises `not_in_batch` otherwise.
///
/// Returns `{ action_digest, batch_digest, index }`: the item's fingerprint, the batch's and
/// the item's position. A malformed header or item is `invalid_batch`.
#[wasm_bindgen(js_name = batchVerifyItem, unchecked_return_type = "VerifiedItem")]
pub fn batch_verify_item(
    #[wasm_bindgen(unchecked_param_type = "BatchHeader")] header: JsValue,
    #[wasm_bindgen(unchecked_param_type = "BatchItem")] item: JsValue,
) -> Result<JsValue, JsValue> {
    let verified = with([&header, &item], |[h, i]| calls::verify_item(h, i))?;
    to_js::value(&verified)
}

/// The decision record of a reviewer's decision about the whole batch `header` describes: `batch` (the frozen header) and `batch_digest` in place of an approval's `action` and `action_digest`.
///
/// `decision` is what `approve` takes (`proposed_digest`: the batch as proposed, when the
/// reviewer deselected items). The record is signed with `SigningKey.sign`, approved with a
/// passkey and counted in a quorum as an approval record is.
#[wasm_bindgen(js_name = batchDecide, unchecked_return_type = "BatchDecisionRecord")]
pub fn batch_decide(
    #[wasm_bindgen(unchecked_param_type = "BatchHeader")] header: JsValue,
    #[wasm_bindgen(unchecked_param_type = "DecisionInput")] decision: JsValue,
) -> Result<JsValue, JsValue> {
    let record = with([&header, &decision], |[h, d]| calls::decide(h, d))?;
    to_js::value(&record)
}

/// Verifies the proof a batch decision carries (a signed envelope or a passkey-approved record) against the key set, the key judged at `at`; raises why it does not hold.
///
/// Returns `{ approval, signer }` as `verifyProof` does, `approval` the batch decision
/// record. A bare record is `missing_proof`; an approval of one action is `invalid_approval`.
#[wasm_bindgen(js_name = batchVerifyDecision, unchecked_return_type = "VerifiedBatchProof")]
pub fn batch_verify_decision(
    #[wasm_bindgen(unchecked_param_type = "SignedEnvelope | PasskeyApprovedRecord")]
    decision: JsValue,
    #[wasm_bindgen(unchecked_param_type = "KeySet")] keys: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] at: JsValue,
) -> Result<JsValue, JsValue> {
    let verified = with([&decision, &keys, &at], |[d, k, a]| {
        calls::verify_decision(d, k, a)
    })?;
    to_js::value(&verified)
}

/// The permit check of one item of a batch before dispatch: the batch decision(s) checked as `check_set` checks approvals of one action, but against the item (`{action, proof}`: its inclusion first, `not_in_batch`) and its frozen action (drift). Only a malformed context raises.
///
/// `approvals` are batch decision records (bare, signed or passkey-approved; several for a
/// quorum); `action` is the action presented for dispatch; `context` is `check`'s, with the
/// batch's `breaker` state when it has one (`open` is `breaker_open`).
#[wasm_bindgen(js_name = checkItem, unchecked_return_type = "Verdict")]
pub fn check_item(
    #[wasm_bindgen(
        unchecked_param_type = "Array<BatchDecisionRecord | SignedEnvelope | PasskeyApprovedRecord>"
    )]
    approvals: JsValue,
    #[wasm_bindgen(unchecked_param_type = "BatchItem")] item: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ActionEnvelope")] action: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CheckContext")] context: JsValue,
) -> Result<JsValue, JsValue> {
    checked(
        &approvals,
        &item,
        &action,
        &context,
        |members, item, action, ctx| {
            Ok(to_js::verdict(&check_item_with(members, item, action, ctx)))
        },
    )
}

/// The permit check of several items of one batch (`items[i]` presented as `actions[i]`), each as `check_item` checks it, and which of them may be claimed now: under `all_or_nothing` every item or none, under `per_item` each permitted one.
///
/// Returns `{ semantics, claimable, verdicts }`. `items` and `actions` are arrays of one
/// length (`invalid_request` otherwise); a malformed context raises.
#[wasm_bindgen(js_name = checkBatch, unchecked_return_type = "BatchVerdict")]
pub fn check_batch(
    #[wasm_bindgen(
        unchecked_param_type = "Array<BatchDecisionRecord | SignedEnvelope | PasskeyApprovedRecord>"
    )]
    approvals: JsValue,
    #[wasm_bindgen(unchecked_param_type = "BatchItem[]")] items: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ActionEnvelope[]")] actions: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CheckContext")] context: JsValue,
) -> Result<JsValue, JsValue> {
    checked(
        &approvals,
        &items,
        &actions,
        &context,
        |members, items, actions, ctx| {
            let checked = check_batch_values(members, items, actions, ctx).map_err(Fail::Core)?;
            to_js::value(&checked.to_value()).map_err(Fail::Js)
        },
    )
}

/// Converts a check's four arguments (the context's `contract` may be a `Contract`) and hands
/// them to `f` with the context read.
fn checked(
    approvals: &JsValue,
    middle: &JsValue,
    action: &JsValue,
    context: &JsValue,
    f: impl FnOnce(
        &[Value<'_>],
        &Value<'_>,
        &Value<'_>,
        &actionseal_core::Context,
    ) -> Result<JsValue, Fail>,
) -> Result<JsValue, JsValue> {
    let proto = contract::prototype();
    let lift = Lift {
        value: 2,
        key: "contract",
    };
    let values = [approvals, action, context];
    let out = host::convert(
        &values,
        &Options::default(),
        Some((lift, &proto)),
        |v, lifted| {
            let context = context_of(&v[2], lifted)?;
            let members = approval_set(&v[0])?;
            host::convert(&[middle], &Options::default(), None, |m, _| {
                f(members, &m[0], &v[1], &context)
            })?
        },
    );
    Ok(out??)
}

/// One event of a batch's circuit breaker: `policy` its thresholds and `breaker` its stored state (null or None: no thresholds, a new closed breaker), `event` `{kind: claim | outcome | redecided, outcome?, at}`. Returns the new state and the transition; a claim while open raises `breaker_open`.
///
/// Returns `{ breaker, transition: 'none' | 'tripped' | 'half_opened' | 'closed', trip:
/// 'failures' | 'claim_rate' | null }`. A claim over the per-minute rate trips it and is
/// refused (`breaker_open`).
#[wasm_bindgen(js_name = breakerStep, unchecked_return_type = "BreakerStep")]
pub fn breaker_step(
    #[wasm_bindgen(unchecked_param_type = "BreakerPolicy | null")] policy: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Breaker | null")] breaker: JsValue,
    #[wasm_bindgen(unchecked_param_type = "BreakerEvent")] event: JsValue,
) -> Result<JsValue, JsValue> {
    let stepped = with([&policy, &breaker, &event], |[p, b, e]| {
        calls::breaker_step(p, b, e)
    })?;
    to_js::value(&stepped)
}
