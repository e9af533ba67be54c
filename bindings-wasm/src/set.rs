//! `checkSet`: the permit check of a set of approvals (a quorum's members), each element what
//! `check` takes as its approval. Core decides everything: the set's shape
//! (`host::approval_set`), every member and the quorum.

use crate::host::{self, Fail};
use crate::model::context_of;
use crate::{contract, to_js};
use actionseal_core::host::approval_set;
use actionseal_core::{check_set_with, Options};
use actionseal_js::Lift;
use wasm_bindgen::prelude::*;

/// The permit check of a set of approvals (a quorum's members: each a record, a signed envelope or a passkey-approved record, as `check` takes one), all about `action`: does the contract's quorum hold, with every member standing? An empty list is no approval. Only a malformed context or a set that is not a list raises; everything wrong with a member, the set or the action is a reason in the verdict, whose `quorum` says who counted and what is missing.
///
/// `approvals` is an array (at most 32) of approval records, signed envelopes or
/// passkey-approved records (plain data: an `Approval` instance is not one), each checked as
/// `check` checks its approval; `context` is `check`'s, with the quorum's facts; its
/// `contract` may be a `Contract`. When the contract in force has a quorum, the verdict's
/// `quorum` is `{ required, counted, missing, missing_roles }`. Throws `invalid_approval` for
/// a set that is not an array or has more than 32 members, `invalid_context` for a malformed
/// context.
#[wasm_bindgen(js_name = checkSet, unchecked_return_type = "Verdict")]
pub fn check_set(
    #[wasm_bindgen(
        unchecked_param_type = "Array<ApprovalRecord | SignedEnvelope | PasskeyApprovedRecord>"
    )]
    approvals: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ActionEnvelope")] action: JsValue,
    #[wasm_bindgen(unchecked_param_type = "CheckContext")] context: JsValue,
) -> Result<JsValue, JsValue> {
    let proto = contract::prototype();
    let lift = Lift {
        value: 2,
        key: "contract",
    };
    let values = [&approvals, &action, &context];
    let verdict = host::convert(
        &values,
        &Options::default(),
        Some((lift, &proto)),
        |v, lifted| {
            let context = context_of(&v[2], lifted)?;
            let members = approval_set(&v[0])?;
            Ok::<_, Fail>(to_js::verdict(&check_set_with(members, &v[1], &context)))
        },
    );
    Ok(verdict??)
}
