//! The approval model: when a call needs a person (`requiresApproval`), the envelope a reviewer
//! sees (`action`), a reviewer's edit of it (`amend`), the record of their decision
//! (`approve`), the permit check before dispatch (`check`), budgets (`charge`), what a reader
//! could misread in a value (`notices`) and the spoken form of a fingerprint.
//!
//! Every argument is JSON data converted as `fingerprint` converts it (a `Contract` may stand
//! where a contract document is expected, an `Approval` where a record is); every rule,
//! default and message is core's. None of them takes options: the approval model reads
//! everything with the strict profile (core refuses any with `invalid_option`). Data goes
//! back as fresh plain objects (`to_js.rs`).

use crate::contract::{self, contract_of};
use crate::host::Fail;
use crate::{error, host, to_js, NoOptions};
use actionseal_core::host::digest_argument;
use actionseal_core::{
    check_approval, check_with, Action, ActionIds, Approval, Context, DecisionInput, Options, Value,
};
use actionseal_js::wasm::HOST;
use actionseal_js::Lift;
use wasm_bindgen::prelude::*;

/// Converts the values of one call in one walk and hands them to `f`.
pub(crate) fn with<const N: usize, R>(
    values: [&JsValue; N],
    f: impl FnOnce(&[Value<'_>; N]) -> actionseal_core::Result<R>,
) -> Result<R, Fail> {
    host::convert(&values, &Options::default(), None, |v, _| {
        match v.try_into() {
            Ok(v) => f(v).map_err(Fail::Core),
            Err(_) => Err(Fail::Js(host::internal("value count"))),
        }
    })?
}

/// Whether a call of the contract's tool with these arguments needs an approval.
///
/// Whether a call with these arguments needs an approval under `contract` (a `Contract` or a
/// contract document), and which rule decided. Invalid arguments throw.
#[wasm_bindgen(js_name = requiresApproval, unchecked_return_type = "Requirement")]
pub fn requires_approval(
    #[wasm_bindgen(unchecked_param_type = "Contract | ContractDocument")] contract: JsValue,
    #[wasm_bindgen(unchecked_param_type = "object")] args: JsValue,
    options: Option<NoOptions>,
) -> Result<JsValue, JsValue> {
    crate::no_options(options)?;
    contract::requirement(&contract_of(&contract)?, &args)
}

/// The action envelope a reviewer approves, with `tool` and `contract` filled in.
///
/// The action envelope for a call of `contract`'s tool with `args`: the arguments are
/// validated (errors under `/args`), the ids checked (errors at the id), and `tool` and
/// `contract` (the contract's fingerprint) filled in.
#[wasm_bindgen(js_name = action, unchecked_return_type = "ActionEnvelope")]
pub fn action(
    #[wasm_bindgen(unchecked_param_type = "Contract | ContractDocument")] contract: JsValue,
    #[wasm_bindgen(unchecked_param_type = "object")] args: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ActionIds")] ids: JsValue,
    options: Option<NoOptions>,
) -> Result<JsValue, JsValue> {
    crate::no_options(options)?;
    let contract = contract_of(&contract)?;
    // The arguments are the envelope's `args`: errors in them, the conversion's as the
    // contract's, are under `/args`.
    let built = host::with_value(&args, &Options::default(), |args| {
        with([&ids], |[ids]| {
            let ids = ActionIds::from_value(ids)?;
            Action::build(&contract, args, &ids)
        })
    })
    .map_err(|f| f.in_key("args"))??;
    to_js::value(built.value())
}

/// The approval record of a decision about exactly this action (times in ms); `proposed_digest`:
/// the model's proposal, when a reviewer amended it first.
///
/// The approval record of a reviewer's decision about `action` (a well-formed envelope). Every
/// field of `decision` is required: there are no defaults; the one optional field,
/// `proposed_digest`, is `amend`'s, when a reviewer amended the proposed action first.
#[wasm_bindgen(js_name = approve, unchecked_return_type = "ApprovalRecord")]
pub fn approve(
    #[wasm_bindgen(unchecked_param_type = "ActionEnvelope")] action: JsValue,
    #[wasm_bindgen(unchecked_param_type = "DecisionInput")] decision: JsValue,
    options: Option<NoOptions>,
) -> Result<JsValue, JsValue> {
    crate::no_options(options)?;
    let approval = with([&action, &decision], |[action, decision]| {
        let action = Action::from_value(action)?;
        let decision = DecisionInput::from_value(decision)?;
        Approval::decide(&action, &decision)
    })?;
    to_js::value(approval.value())
}

/// A reviewer's edit of `current` checked as `Ledger.amend` checks it: the amended action, both
/// fingerprints and the pointers that changed; raises the amend_* codes or the schema's, the path
/// inside `replacement`.
///
/// A reviewer's edit of an action, checked as the ledger's `amend` will check it: `current`
/// is the envelope the reviewer edited, `replacement` the whole envelope with new arguments,
/// `contract` the task's (a `Contract` or a contract document). Returns the amended action,
/// both fingerprints and the JSON Pointers that changed. Only the arguments may change,
/// within the contract: the error's path is in `replacement` (the amend_* codes, the
/// schema's own code under `/args`, `invalid_action`); a malformed `current` throws its own.
#[wasm_bindgen(js_name = amend, unchecked_return_type = "AmendedAction")]
pub fn amend(
    #[wasm_bindgen(unchecked_param_type = "ActionEnvelope")] current: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ActionEnvelope")] replacement: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Contract | ContractDocument")] contract: JsValue,
    options: Option<NoOptions>,
) -> Result<JsValue, JsValue> {
    crate::no_options(options)?;
    let contract = contract_of(&contract)?;
    let amended = with([&current, &replacement], |[current, replacement]| {
        actionseal_core::ledger::amend(current, replacement, &contract)
    })?;
    to_js::value(&amended.to_value())
}

/// The permit check before dispatch: is `action` the approved action, does the approval still hold,
/// do the people and rules behind it stand? `approval` is an `Approval` (loaded once: fastest), an
/// approval record, a signed envelope or a passkey-approved record (whose proof the context's
/// `proof` key set must verify), or none (`None`, `null` or `undefined`). Only a malformed context
/// is an error (`invalid_context`, or the contract's own error under `/contract`); everything wrong
/// with the approval or the action is a reason in the verdict. The context's `contract` may be a
/// `Contract`, which is then not compiled again.
#[wasm_bindgen(js_name = check, unchecked_return_type = "Verdict")]
pub fn check(
    #[wasm_bindgen(
        unchecked_param_type = "Approval | ApprovalRecord | SignedEnvelope | PasskeyApprovedRecord | null | undefined"
    )]
    approval: JsValue,
    #[wasm_bindgen(unchecked_param_type = "object")] action: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CheckContext")] context: JsValue,
    options: Option<NoOptions>,
) -> Result<JsValue, JsValue> {
    crate::no_options(options)?;
    let contract_proto = contract::prototype();
    let lift = Lift {
        value: 1,
        key: "contract",
    };
    let options = Options::default();
    // A loaded approval: only the action and the context are read.
    if let Some(loaded) = crate::approval::lent(&approval)? {
        let values = [&action, &context];
        let verdict = host::convert(
            &values,
            &options,
            Some((lift, &contract_proto)),
            |v, lifted| {
                let context = context_of(&v[1], lifted)?;
                Ok::<_, Fail>(to_js::verdict(&check_approval(
                    Some(&loaded),
                    &v[0],
                    &context,
                )))
            },
        );
        return Ok(verdict??);
    }
    // No approval presented: `null` (an absent approval to core), which is also what
    // `undefined` means here, though as data it would be refused.
    let approval = if approval.is_undefined() {
        JsValue::NULL
    } else {
        approval
    };
    let values = [&approval, &action, &context];
    let lift = Lift { value: 2, ..lift };
    let verdict = host::convert(
        &values,
        &options,
        Some((lift, &contract_proto)),
        |v, lifted| {
            let context = context_of(&v[2], lifted)?;
            Ok::<_, Fail>(to_js::verdict(&check_with(Some(&v[0]), &v[1], &context)))
        },
    );
    Ok(verdict??)
}

/// A check's trusted context, its contract the `Contract` lifted out of it when there was one
/// (anything else there that is not data is refused as such).
pub(crate) fn context_of(context: &Value<'_>, lifted: Option<JsValue>) -> Result<Context, Fail> {
    Ok(match lifted {
        Some(h) => match contract::lent(&h)? {
            Some(c) => Context::with_contract(context, Some(c))?,
            None => {
                let description = HOST.with(|host| host.describe(&h));
                let t = actionseal_js::described(&description);
                return Err(actionseal_core::host::not_an_instance(t, "contract").into());
            }
        },
        None => Context::from_value(context)?,
    })
}

/// The budget with `cost_minor` more spent; raises `budget_exceeded` past the limit.
///
/// `budget` with `costMinor` more spent. A cost or budget that is not a non-negative safe
/// integer is `invalid_budget`; spending past the limit is `budget_exceeded` (reaching it
/// exactly is allowed). The budget passed in is never changed.
#[wasm_bindgen(js_name = charge, unchecked_return_type = "Budget")]
pub fn charge(
    #[wasm_bindgen(unchecked_param_type = "Budget")] budget: JsValue,
    #[wasm_bindgen(js_name = costMinor, unchecked_param_type = "number")] cost_minor: JsValue,
    options: Option<NoOptions>,
) -> Result<JsValue, JsValue> {
    crate::no_options(options)?;
    let charged = with([&budget, &cost_minor], |[budget, cost]| {
        actionseal_core::charge(budget, cost)
    })?;
    to_js::value(&charged)
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
#[wasm_bindgen(js_name = notices, unchecked_return_type = "Notice[]")]
pub fn notices(
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
    options: Option<NoOptions>,
) -> Result<JsValue, JsValue> {
    crate::no_options(options)?;
    let found = with([&value], |[v]| Ok(actionseal_core::notices_value(v)))?;
    to_js::value(&found)
}

/// The first 64 bits of a fingerprint as four groups of four hex digits.
///
/// The first 64 bits of a fingerprint as four groups of four hex digits
/// (`"f31c 54dd 3e07 a4eb"`): what a reviewer reads aloud or compares by eye. Machines compare
/// the full digest. Anything but a well-formed fingerprint is `invalid_digest`.
#[wasm_bindgen(js_name = shortFingerprint)]
pub fn short_fingerprint(
    #[wasm_bindgen(unchecked_param_type = "string")] digest: JsValue,
) -> Result<String, JsValue> {
    let Some(text) = digest.as_string() else {
        let description = HOST.with(|h| h.describe(&digest));
        return Err(error::to_js(&digest_argument(actionseal_js::described(
            &description,
        ))));
    };
    actionseal_core::short_fingerprint(&text).map_err(|e| error::to_js(&e))
}
