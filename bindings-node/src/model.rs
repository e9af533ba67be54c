//! The approval model: when a call needs a person (`requiresApproval`), the envelope a reviewer
//! sees (`action`), a reviewer's edit of it (`amend`), the record of their decision
//! (`approve`), the permit check before dispatch (`check`), budgets (`charge`), what a reader
//! could misread in a value (`notices`) and the spoken form of a fingerprint.
//!
//! Every argument is JSON data, converted as `fingerprint` converts it (a `Contract` may stand
//! where a contract document is expected, an `Approval` where a record is); every rule,
//! default and message is core's. None of them takes options: the approval model reads
//! everything with the strict profile (core refuses any with `invalid_option`). Data goes back
//! as fresh plain objects (`to_js.rs`).

use crate::contract::{self, contract_of, Requirement};
use crate::host::{self, Lift, Walked};
use crate::instance;
use crate::js::{Handle, Js, JsResult};
use crate::options;
use crate::run;
use crate::strings::Reader;
use crate::to_js;
use crate::verdict;
use actionseal_core::host::digest_argument;
use actionseal_core::{
    check_approval, check_with, Action, ActionIds, Approval, Approval as CoreApproval, Context,
    Contract as CoreContract, DecisionInput, Options, Value,
};
use napi::bindgen_prelude::{Env, Unknown};
use napi::sys::ValueType;
use napi::{JsValue, Result};
use napi_derive::napi;
use std::cell::Cell;
use std::sync::Arc;

/// Refuses the options a caller passed to a function of the approval model.
fn no_options(js: Js, options: Option<Unknown<'_>>) -> JsResult<()> {
    options::none(js, options.map(|o| o.raw()))
}

/// Runs `f` on the converted values of `values`, read in one walk.
fn with<const N: usize, R>(
    js: Js,
    values: [Handle; N],
    f: impl FnOnce(&[Value<'_>; N]) -> JsResult<R>,
) -> JsResult<R> {
    host::with_values(js, values, &Options::default(), None, None, |values, _| {
        f(values)
    })?
}

/// Whether a call of the contract's tool with these arguments needs an approval.
///
/// Whether a call with these arguments needs an approval under `contract` (a `Contract` or a
/// contract document), and which rule of the contract decided. The arguments are validated
/// first: invalid arguments throw, they never mean "no approval".
///
/// @example
/// requiresApproval(refund, { order_id: 'order-17', amount_minor: 2500, currency: 'USD' })
/// // { required: true, rule: '/approval/when/0' }
#[napi(ts_args_type = "contract: Contract | ContractDocument, args: object")]
pub fn requires_approval(
    env: Env,
    contract: Unknown<'_>,
    args: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Requirement> {
    run(&env, |js| {
        no_options(js, options)?;
        let contract = contract_of(js, contract.raw())?;
        contract::requirement(js, &contract, args.raw())
    })
}

/// The action envelope a reviewer approves, with `tool` and `contract` filled in.
///
/// The action envelope for a call of `contract`'s tool (a `Contract` or a contract document)
/// with `args`: the arguments are validated against the contract (their own codes, under
/// `/args`), the ids checked (`invalid_action` at the id: each must be a non-blank string
/// without surrounding whitespace or control characters, and no other key is allowed), and
/// `tool` and `contract` (the contract's fingerprint) filled in. The envelope's fingerprint
/// is what an approval binds.
#[napi(
    ts_args_type = "contract: Contract | ContractDocument, args: object, ids: ActionIds",
    ts_return_type = "ActionEnvelope"
)]
pub fn action(
    env: Env,
    contract: Unknown<'_>,
    args: Unknown<'_>,
    ids: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        no_options(js, options)?;
        let contract = contract_of(js, contract.raw())?;
        // The arguments are the envelope's `args`: errors in them, the conversion's as the
        // contract's, are under `/args`.
        host::with_value(js, args.raw(), &Options::default(), |args, _| {
            with(js, [ids.raw()], |[ids]| {
                let ids = ActionIds::from_value(ids)?;
                let action = Action::build(&contract, args, &ids)?;
                to_js::value(js, action.value())
            })
        })
        .map_err(|f| f.in_key("args"))?
    })
}

/// The approval record of a decision about exactly this action (times in ms); `proposed_digest`:
/// the model's proposal, when a reviewer amended it first.
///
/// The approval record of a reviewer's decision about `action` (a well-formed envelope;
/// `invalid_action` otherwise). Every field of `decision` is required, there are no defaults:
/// `invalid_approval` at the field for a missing, unknown or malformed one (`expires_at` must
/// be after `decided_at`, both integer milliseconds since the epoch). The one optional field,
/// `proposed_digest`, is the fingerprint of the action the model proposed when a reviewer
/// amended it before deciding (`amend`'s `proposed_digest`); it must differ from the action's.
#[napi(
    ts_args_type = "action: ActionEnvelope, decision: DecisionInput",
    ts_return_type = "ApprovalRecord"
)]
pub fn approve(
    env: Env,
    action: Unknown<'_>,
    decision: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        no_options(js, options)?;
        with(js, [action.raw(), decision.raw()], |[action, decision]| {
            let action = Action::from_value(action)?;
            let decision = DecisionInput::from_value(decision)?;
            let approval = Approval::decide(&action, &decision)?;
            to_js::value(js, approval.value())
        })
    })
}

/// A reviewer's edit of `current` checked as `Ledger.amend` checks it: the amended action, both
/// fingerprints and the pointers that changed; raises the amend_* codes or the schema's, the path
/// inside `replacement`.
///
/// A reviewer's edit of an action, checked as the ledger's `amend` will check it, without a
/// ledger: `current` is the envelope the reviewer edited (the task's action), `replacement`
/// the whole envelope with new arguments, `contract` the task's (a `Contract` or a contract
/// document). Returns the amended action and its fingerprint, the fingerprint of `current`
/// (`proposed_digest`) and the JSON Pointers that changed (`amended_pointers`; empty when
/// nothing did). Only the arguments may change, within the contract: the error's path is in
/// `replacement` (`amend_identity_changed`, `amend_tool_changed`, `amend_contract_changed`,
/// `amend_policy_changed`, the schema's own code under `/args`, `invalid_action`); a
/// malformed `current` throws its own error, the path in it. Decide about the result with
/// `approve(amended.action, { ...decision, proposed_digest: amended.proposed_digest })` when
/// the two fingerprints differ.
///
/// @example
/// const amended = amend(proposed, { ...proposed, args: { ...proposed.args, amount_minor: 2000 } }, refund)
/// // amended.amended_pointers: ['/args/amount_minor']
#[napi(
    ts_args_type = "current: ActionEnvelope, replacement: ActionEnvelope, contract: Contract | ContractDocument",
    ts_return_type = "AmendedAction"
)]
pub fn amend(
    env: Env,
    current: Unknown<'_>,
    replacement: Unknown<'_>,
    contract: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        no_options(js, options)?;
        let contract = contract_of(js, contract.raw())?;
        with(
            js,
            [current.raw(), replacement.raw()],
            |[current, replacement]| {
                let amended = actionseal_core::ledger::amend(current, replacement, &contract)?;
                to_js::value(js, &amended.to_value())
            },
        )
    })
}

/// The permit check before dispatch: is `action` the approved action, does the approval still hold,
/// do the people and rules behind it stand? `approval` is an `Approval` (loaded once: fastest), an
/// approval record, a signed envelope or a passkey-approved record (whose proof the context's
/// `proof` key set must verify), or none (`None`, `null` or `undefined`). Only a malformed context
/// is an error (`invalid_context`, or the contract's own error under `/contract`); everything wrong
/// with the approval or the action is a reason in the verdict. The context's `contract` may be a
/// `Contract`, which is then not compiled again.
///
/// @example
/// const verdict = check(approval, action, { now: Date.now(), tenant: 'tenant-a',
///   policy_version: 'refund-policy-2026-08-01', contract: refund,
///   approver_authorized: { approver: approval.approver, authorized: true },
///   subject_authorized: { subject: action.subject, authorized: true },
///   revoked: { approval_id: approval.approval_id, revoked: false } })
/// if (verdict.outcome === 'permit') dispatch(action)
#[napi(
    ts_args_type = "approval: Approval | ApprovalRecord | SignedEnvelope | PasskeyApprovedRecord | null | undefined, action: ActionEnvelope, context: CheckContext",
    ts_return_type = "Verdict"
)]
pub fn check(
    env: Env,
    approval: Unknown<'_>,
    action: Unknown<'_>,
    context: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let options = options.map(|o| o.raw());
        check_of(js, approval.raw(), action.raw(), context.raw(), options)
            .map(|v| to_js::unknown(js, v))
    })
}

/// The member of `check`'s context that may hold a `Contract`, and `Contract.prototype`.
pub(crate) fn contract_lift(js: Js, value: usize) -> JsResult<(Lift, Handle)> {
    let lift = Lift {
        value,
        key: "contract",
    };
    Ok((lift, instance::get(js, |i| i.contract_proto)?))
}

/// The trusted context of a check, its contract the `Contract` lifted out of it when there
/// was one.
pub(crate) fn context_of(js: Js, context: &Value<'_>, lifted: Option<Handle>) -> JsResult<Context> {
    match lifted {
        Some(h) => Ok(Context::with_contract(
            context,
            Some(contract::lifted(js, h)?),
        )?),
        None => Ok(Context::from_value(context)?),
    }
}

/// `check(approval, action, context, options)`.
pub(crate) fn check_of(
    js: Js,
    approval: Handle,
    action: Handle,
    context: Handle,
    options: Option<Handle>,
) -> JsResult<Handle> {
    options::none(js, options)?;
    let options = Options::default();
    // A loaded approval: only the action and the context are read.
    if let Some(loaded) = crate::approval::instance(js, approval)? {
        let held = contract_lift(js, 1)?;
        let values = [action, context];
        return host::with_values(
            js,
            values,
            &options,
            Some(held),
            None,
            |[action, context], h| {
                let context = context_of(js, context, h)?;
                verdict::to_js(js, &check_approval(Some(&loaded), action, &context))
            },
        )?;
    }
    // No approval presented: `null` (an absent approval to core), which is also what
    // `undefined` means here, though as data it would be refused.
    let approval = match js.type_of(approval)? {
        ValueType::napi_undefined => js.null()?,
        _ => approval,
    };
    let lift = contract_lift(js, 2)?;
    let values = [approval, action, context];
    host::with_values(
        js,
        values,
        &options,
        Some(lift),
        None,
        |[approval, action, context], h| {
            let context = context_of(js, context, h)?;
            verdict::to_js(js, &check_with(Some(approval), action, &context))
        },
    )?
}

/// What the walker's front remembers between its checks: the `Approval` and the `Contract` of
/// its last successful check, read from their objects then. The front says, by identity, when
/// it is given the same objects again (`same`); both are immutable, so what was read still
/// holds. Each front has its own, so that two fronts in one environment (the module loaded
/// twice) cannot mix up their objects.
#[derive(Default)]
pub(crate) struct Remembered {
    approval: Option<Arc<CoreApproval>>,
    contract: Option<CoreContract>,
}

/// `same`: the approval is the last one's object.
const SAME_APPROVAL: u32 = 1;
/// `same`: the only held object (the context's `Contract`) is the last one's object.
const SAME_CONTRACT: u32 = 2;

/// `check` of an `Approval` whose action and context the walker's front walked (`walked`,
/// the context's `Contract` held): core's verdict strings for the walker's `verdict` (their
/// lengths on the instance's lengths array). Anything that only looks like an `Approval` gets
/// the whole check, and its verdict object.
pub(crate) fn check_loaded(
    js: Js,
    approval: Handle,
    walked: Walked,
    [action, context]: [Handle; 2],
    same: u32,
    remembered: &Cell<Remembered>,
) -> JsResult<Handle> {
    // Taken out while this runs (no JavaScript can reach it meanwhile but a nested check,
    // which finds it empty and reads its objects), and put back on success only, so that it
    // always matches what the front remembers.
    let last = remembered.take();
    let loaded = match last.approval {
        Some(a) if same & SAME_APPROVAL != 0 => a,
        _ => match crate::approval::instance(js, approval)? {
            Some(a) => a,
            None => return check_of(js, approval, action, context, None),
        },
    };
    let known_contract = last.contract.filter(|_| same & SAME_CONTRACT != 0);
    let held = contract_lift(js, 1)?;
    let values = [action, context];
    let options = Options::default();
    // The action an approval froze is usually the one presented: then the held value is
    // checked, and the presented one is compared with it, not built.
    let frozen = loaded.action().value();
    let (pool, contract) = host::with_values_held_first(
        js,
        values,
        &options,
        Some(held),
        Some(walked),
        frozen,
        |[action, context], h| {
            let contract = match (h, known_contract) {
                (None, _) => None,
                (Some(_), Some(known)) => Some(known),
                (Some(h), None) => Some(contract::lifted(js, h)?),
            };
            let context = match &contract {
                Some(c) => Context::with_contract(context, Some(c.clone()))?,
                None => Context::from_value(context)?,
            };
            let pool = verdict::pool(js, &check_approval(Some(&loaded), action, &context))?;
            Ok::<_, crate::fail::Fail>((pool, contract))
        },
    )??;
    // The contract only when the front passed it as the one held object: that is when the
    // front marks it too.
    remembered.set(Remembered {
        approval: Some(loaded),
        contract: contract.filter(|_| walked.held.is_some()),
    });
    Ok(pool)
}

/// The budget with `cost_minor` more spent; raises `budget_exceeded` past the limit.
///
/// `budget` with `costMinor` more spent, as a new object (the budget passed in is not
/// changed). A budget or cost that is not a non-negative safe integer is `invalid_budget`;
/// spending past the limit is `budget_exceeded` (reaching it exactly is allowed).
#[napi(
    ts_args_type = "budget: Budget, costMinor: number",
    ts_return_type = "Budget"
)]
pub fn charge(
    env: Env,
    budget: Unknown<'_>,
    cost_minor: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        no_options(js, options)?;
        with(js, [budget.raw(), cost_minor.raw()], |[budget, cost]| {
            to_js::value(js, &actionseal_core::charge(budget, cost)?)
        })
    })
}

/// The strings and keys of the value with characters a reader could miss or misread (invisible,
/// non-ASCII, leading or trailing spaces): one notice per string, with its pointer, how many, and
/// the first 64 with their positions.
///
/// The strings and keys of `value` with characters a reader could miss or misread, as core
/// decides: one `{pointer, within, count, marks}` per string (`within: 'key'` for the key of
/// the member at `pointer`), `count` how many of its characters are noticed, and `marks` the
/// first 64 (`{at, code_point, kind}`, `kind` one of `invisible`, `non_ascii`,
/// `leading_space`, `trailing_space`). What a confirmation page marks, and what a reviewer must
/// acknowledge.
///
/// @example
/// notices({ order_id: 'order-17\u200b' })
/// // [{ pointer: '/order_id', within: 'value', count: 1, marks: [{ at: 8, code_point: 'U+200B', kind: 'invisible' }] }]
#[napi(ts_args_type = "value: unknown", ts_return_type = "Notice[]")]
pub fn notices(
    env: Env,
    value: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        no_options(js, options)?;
        with(js, [value.raw()], |[v]| {
            to_js::value(js, &actionseal_core::notices_value(v))
        })
    })
}

/// The first 64 bits of a fingerprint as four groups of four hex digits.
///
/// The first 64 bits of a fingerprint as four groups of four hex digits
/// (`'f31c 54dd 3e07 a4eb'`): what a reviewer reads aloud or compares by eye against the
/// executor's log. Machines compare the full digest. Anything but a well-formed fingerprint
/// is `invalid_digest`.
#[napi(ts_args_type = "digest: string")]
pub fn short_fingerprint(env: Env, digest: Unknown<'_>) -> Result<String> {
    run(&env, |js| match Reader::new(js).string(digest.raw())? {
        Some(digest) => Ok(actionseal_core::short_fingerprint(&digest)?),
        None => {
            let description = crate::text::describe(js, digest.raw())?;
            Err(digest_argument(actionseal_js::described(&description)).into())
        }
    })
}
