//! `checkSet`: the permit check of a set of approvals (a quorum's members), each element what
//! `check` takes as its approval. Core decides everything: the set's shape
//! (`host::approval_set`), every member and the quorum.

use crate::host;
use crate::model::{context_of, contract_lift};
use crate::run;
use crate::to_js;
use crate::verdict;
use actionseal_core::host::approval_set;
use actionseal_core::{check_set_with, Options};
use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

/// The permit check of a set of approvals (a quorum's members: each a record, a signed envelope or a passkey-approved record, as `check` takes one), all about `action`: does the contract's quorum hold, with every member standing? An empty list is no approval. Only a malformed context or a set that is not a list raises; everything wrong with a member, the set or the action is a reason in the verdict, whose `quorum` says who counted and what is missing.
///
/// `approvals` is an array (at most 32) of approval records, signed envelopes or
/// passkey-approved records (plain data: an `Approval` instance is not one), each checked as
/// `check` checks its approval; `context` is `check`'s, with the quorum's facts
/// (`approver_roles`, `proposer`, `amended_by`, `delegations_revoked`, and
/// `approver_authorized` and `revoked` as arrays of facts); its `contract` may be a
/// `Contract`. When the contract in force has a quorum, the verdict's `quorum` is `{ required,
/// counted: [{ approver, role, decision_id, delegate, delegations }], missing, missing_roles:
/// [{ role, count }] }`. Dispatch only on `'permit'`. Throws `invalid_approval` for a set that
/// is not an array or has more than 32 members, `invalid_context` for a malformed context.
///
/// @example
/// const verdict = checkSet([carol, dave], action, { ...context, approver_roles })
/// if (verdict.outcome !== 'permit') console.log(verdict.quorum.missing_roles)
#[napi(
    ts_args_type = "approvals: Array<ApprovalRecord | SignedEnvelope | PasskeyApprovedRecord>, action: ActionEnvelope, context: CheckContext",
    ts_return_type = "Verdict"
)]
pub fn check_set(
    env: Env,
    approvals: Unknown<'_>,
    action: Unknown<'_>,
    context: Unknown<'_>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let lift = contract_lift(js, 2)?;
        let values = [approvals.raw(), action.raw(), context.raw()];
        let made = host::with_values(
            js,
            values,
            &Options::default(),
            Some(lift),
            None,
            |[set, action, context], h| {
                let context = context_of(js, context, h)?;
                let members = approval_set(set)?;
                verdict::to_js(js, &check_set_with(members, action, &context))
            },
        )??;
        Ok(to_js::unknown(js, made))
    })
}
