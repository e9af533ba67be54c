//! Batches: building one (`batchBuild`), a reviewer's deselection (`batchDeselect`), an item's
//! inclusion (`batchVerifyItem`), the decision over one (`batchDecide`, `batchVerifyDecision`),
//! the checks of its items before dispatch (`checkItem`, `checkBatch`) and its circuit
//! breaker (`breakerStep`). Core reads every argument and decides every code
//! (`actionseal_core::batch::calls`, `check_item`, `check_batch`); this file walks and maps.

use crate::contract::contract_of;
use crate::host;
use crate::js::{Handle, Js, JsResult};
use crate::model::{context_of, contract_lift};
use crate::run;
use crate::to_js;
use crate::verdict;
use actionseal_core::batch::{calls, check_batch_values, check_item_with};
use actionseal_core::host::approval_set;
use actionseal_core::{Context, Options, Value};
use napi::bindgen_prelude::{Env, Unknown};
use napi::sys::ValueType;
use napi::{JsValue, Result};
use napi_derive::napi;

/// Converts the values of one call (at most three) in one walk and hands them to `f`.
fn with<const N: usize, R>(
    js: Js,
    values: [Handle; N],
    f: impl FnOnce(&[Value<'_>; N]) -> actionseal_core::Result<R>,
) -> JsResult<R> {
    Ok(host::with_values(
        js,
        values,
        &Options::default(),
        None,
        None,
        |v, _| f(v),
    )??)
}

/// The server's policy argument: `null` to core when left out.
fn server_of(js: Js, server: Option<Unknown<'_>>) -> JsResult<Handle> {
    match server {
        Some(s) if js.type_of(s.raw())? != ValueType::napi_undefined => Ok(s.raw()),
        _ => js.null(),
    }
}

/// The batch of `actions` under the contract, as a reviewer's page and an executor need it: the frozen header, the batch fingerprint a decision binds, each item's fingerprint, task id and inclusion proof, and the totals under the caps; `server` narrows the contract's batch policy.
///
/// `contract` is a `Contract` or a contract document with a `batch` member
/// (`batch_not_allowed` otherwise); `semantics` is `'all_or_nothing'` or `'per_item'`;
/// `actions` are action envelopes of its tool, in one tenant, with distinct task identities.
/// Throws `batch_too_large` past `max_items`, `batch_cap_exceeded` when the whole list breaks
/// a cap (the path names the item), `invalid_batch` for a malformed list.
#[napi(
    ts_args_type = "contract: Contract | ContractDocument, semantics: 'all_or_nothing' | 'per_item', actions: ActionEnvelope[], server?: BatchPolicy | null",
    ts_return_type = "Batch"
)]
pub fn batch_build(
    env: Env,
    contract: Unknown<'_>,
    semantics: Unknown<'_>,
    actions: Unknown<'_>,
    server: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let contract = contract_of(js, contract.raw())?;
        let server = server_of(js, server)?;
        let built = with(js, [semantics.raw(), actions.raw(), server], |[s, a, p]| {
            calls::build(contract.document(), s, a, p)
        })?;
        to_js::value(js, &built)
    })
}

/// The batch `batch_build` makes without the items at `indices` (a reviewer's deselection): the remainder, its new fingerprint, and `proposed_digest`, the fingerprint of the batch as proposed.
///
/// The remainder keeps the items' order; each index must name an item, once, and at least
/// one item must remain (`invalid_batch`). The arguments are `batchBuild`'s, with `indices`
/// before the optional `server`.
#[napi(
    ts_args_type = "contract: Contract | ContractDocument, semantics: 'all_or_nothing' | 'per_item', actions: ActionEnvelope[], indices: number[], server?: BatchPolicy | null",
    ts_return_type = "DeselectedBatch"
)]
pub fn batch_deselect(
    env: Env,
    contract: Unknown<'_>,
    semantics: Unknown<'_>,
    actions: Unknown<'_>,
    indices: Unknown<'_>,
    server: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let contract = contract_of(js, contract.raw())?;
        let server = server_of(js, server)?;
        let values = [semantics.raw(), actions.raw(), server];
        let kept = host::with_values(js, values, &Options::default(), None, None, |v, _| {
            let [s, a, p] = v;
            with(js, [indices.raw()], |[i]| {
                calls::deselect(contract.document(), s, a, p, i)
            })
        })??;
        to_js::value(js, &kept)
    })
}

/// Verifies that `item` (`{action, proof}`) is in the batch `header` describes: its inclusion proof leads to the header's root; raises `not_in_batch` otherwise.
///
/// Returns `{ action_digest, batch_digest, index }`: the item's fingerprint, the batch's and
/// the item's position. A malformed header or item is `invalid_batch`.
#[napi(
    ts_args_type = "header: BatchHeader, item: BatchItem",
    ts_return_type = "VerifiedItem"
)]
pub fn batch_verify_item(
    env: Env,
    header: Unknown<'_>,
    item: Unknown<'_>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let verified = with(js, [header.raw(), item.raw()], |[h, i]| {
            calls::verify_item(h, i)
        })?;
        to_js::value(js, &verified)
    })
}

/// The decision record of a reviewer's decision about the whole batch `header` describes: `batch` (the frozen header) and `batch_digest` in place of an approval's `action` and `action_digest`.
///
/// `decision` is what `approve` takes (`proposed_digest`: the batch as proposed, when the
/// reviewer deselected items). The record is signed with `SigningKey.sign`, approved with a
/// passkey and counted in a quorum as an approval record is.
#[napi(
    ts_args_type = "header: BatchHeader, decision: DecisionInput",
    ts_return_type = "BatchDecisionRecord"
)]
pub fn batch_decide(
    env: Env,
    header: Unknown<'_>,
    decision: Unknown<'_>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let record = with(js, [header.raw(), decision.raw()], |[h, d]| {
            calls::decide(h, d)
        })?;
        to_js::value(js, &record)
    })
}

/// Verifies the proof a batch decision carries (a signed envelope or a passkey-approved record) against the key set, the key judged at `at`; raises why it does not hold.
///
/// Returns `{ approval, signer }` as `verifyProof` does, `approval` the batch decision
/// record. A bare record is `missing_proof`; an approval of one action is `invalid_approval`.
#[napi(
    ts_args_type = "decision: SignedEnvelope | PasskeyApprovedRecord, keys: KeySet, at: number",
    ts_return_type = "VerifiedBatchProof"
)]
pub fn batch_verify_decision(
    env: Env,
    decision: Unknown<'_>,
    keys: Unknown<'_>,
    at: Unknown<'_>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let values = [decision.raw(), keys.raw(), at.raw()];
        let verified = with(js, values, |[d, k, a]| calls::verify_decision(d, k, a))?;
        to_js::value(js, &verified)
    })
}

/// The permit check of one item of a batch before dispatch: the batch decision(s) checked as `check_set` checks approvals of one action, but against the item (`{action, proof}`: its inclusion first, `not_in_batch`) and its frozen action (drift). Only a malformed context raises.
///
/// `approvals` are batch decision records (bare, signed or passkey-approved; several for a
/// quorum); `action` is the action presented for dispatch; `context` is `check`'s, with the
/// batch's `breaker` state when it has one (`open` is `breaker_open`). Dispatch only on
/// `'permit'`.
#[napi(
    ts_args_type = "approvals: Array<BatchDecisionRecord | SignedEnvelope | PasskeyApprovedRecord>, item: BatchItem, action: ActionEnvelope, context: CheckContext",
    ts_return_type = "Verdict"
)]
pub fn check_item(
    env: Env,
    approvals: Unknown<'_>,
    item: Unknown<'_>,
    action: Unknown<'_>,
    context: Unknown<'_>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let made = checked(
            js,
            [approvals, item, action, context],
            |members, i, a, ctx| verdict::to_js(js, &check_item_with(members, i, a, ctx)),
        )?;
        Ok(to_js::unknown(js, made))
    })
}

/// The permit check of several items of one batch (`items[i]` presented as `actions[i]`), each as `check_item` checks it, and which of them may be claimed now: under `all_or_nothing` every item or none, under `per_item` each permitted one.
///
/// Returns `{ semantics, claimable, verdicts }`. `items` and `actions` are arrays of one
/// length (`invalid_request` otherwise); a malformed context raises.
#[napi(
    ts_args_type = "approvals: Array<BatchDecisionRecord | SignedEnvelope | PasskeyApprovedRecord>, items: BatchItem[], actions: ActionEnvelope[], context: CheckContext",
    ts_return_type = "BatchVerdict"
)]
pub fn check_batch(
    env: Env,
    approvals: Unknown<'_>,
    items: Unknown<'_>,
    actions: Unknown<'_>,
    context: Unknown<'_>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        checked(
            js,
            [approvals, items, actions, context],
            |members, i, a, ctx| {
                to_js::value(js, &check_batch_values(members, i, a, ctx)?.to_value())
            },
        )
    })
}

/// Converts a check's four arguments (approvals, items, actions, context: its `contract` may
/// be a `Contract`) and hands them to `f` with the context read.
fn checked<R>(
    js: Js,
    [approvals, middle, action, context]: [Unknown<'_>; 4],
    f: impl FnOnce(&[Value<'_>], &Value<'_>, &Value<'_>, &Context) -> JsResult<R>,
) -> JsResult<R> {
    let lift = contract_lift(js, 2)?;
    let values = [approvals.raw(), action.raw(), context.raw()];
    host::with_values(
        js,
        values,
        &Options::default(),
        Some(lift),
        None,
        |[set, action, context], h| {
            let context = context_of(js, context, h)?;
            let members = approval_set(set)?;
            host::with_value(js, middle.raw(), &Options::default(), |m, _| {
                f(members, m, action, &context)
            })?
        },
    )?
}

/// One event of a batch's circuit breaker: `policy` its thresholds and `breaker` its stored state (null or None: no thresholds, a new closed breaker), `event` `{kind: claim | outcome | redecided, outcome?, at}`. Returns the new state and the transition; a claim while open raises `breaker_open`.
///
/// Returns `{ breaker, transition: 'none' | 'tripped' | 'half_opened' | 'closed', trip:
/// 'failures' | 'claim_rate' | null }`. A claim over the per-minute rate trips it and is
/// refused (`breaker_open`).
#[napi(
    ts_args_type = "policy: BreakerPolicy | null, breaker: Breaker | null, event: BreakerEvent",
    ts_return_type = "BreakerStep"
)]
pub fn breaker_step(
    env: Env,
    policy: Unknown<'_>,
    breaker: Unknown<'_>,
    event: Unknown<'_>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let values = [policy.raw(), breaker.raw(), event.raw()];
        let stepped = with(js, values, |[p, b, e]| calls::breaker_step(p, b, e))?;
        to_js::value(js, &stepped)
    })
}
