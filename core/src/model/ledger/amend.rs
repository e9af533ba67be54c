//! Amendments: a reviewer replaces the arguments of a proposed action before deciding.
//!
//! Seed 003: if the arguments really must change, the decision is made again, about the
//! changed action, in the same task; nothing is updated silently after approval. So an
//! amendment is allowed only while the task awaits a decision ([`super::next`] with
//! [`super::Op::Amend`]), it may change the arguments and nothing else, the new arguments must
//! satisfy the task's contract, and the decision that follows must name the amended digest.
//! What the model proposed stays on record (its digest in the approval record, as
//! `proposed_digest`), and every amendment is audited with digests and pointers only.

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{OwnedValue, Value};
use crate::model::action::{check_shape, field, Action};
use crate::model::contract::Contract;
use crate::model::fields::Fields;
use crate::model::ledger::values::{object, string, strings};

/// A reviewer's amendment of a task's action:
/// `{"task_id", "amends", "action", "reviewer", "reason"}`, exactly these.
///
/// `amends` is the digest of the action the reviewer edited (the task's current one, as they
/// loaded it): the ledger applies the amendment only if the task still holds that action
/// (compare-and-set), so of two reviewers editing the same action one wins and the other is
/// told it changed ([`Code::AmendConflict`]).
#[derive(Clone, Debug)]
pub struct Amendment {
    /// The task.
    pub task_id: String,
    /// The digest of the action this amendment replaces.
    pub amends: Digest,
    /// The replacement: the whole action envelope, with new arguments.
    pub action: OwnedValue,
    /// Who amended it (a trusted reviewer, never the model).
    pub reviewer: String,
    /// Why, in the reviewer's words. Stored with the task; the audit holds only its digest,
    /// since free text may carry argument values.
    pub reason: String,
}

/// The members of an amendment.
pub const FIELDS: [&str; 5] = ["task_id", "amends", "action", "reviewer", "reason"];

/// The longest reason accepted, in characters.
pub const MAX_REASON_CHARS: usize = 1000;

impl Amendment {
    /// Reads an amendment; problems are [`Code::InvalidRequest`] at the field. The action is
    /// only required to be present here: [`amend_action`] checks it against the task.
    pub fn from_value(v: &Value<'_>) -> Result<Amendment> {
        let f = Fields::new(v, Code::InvalidRequest, "amendment", &FIELDS)?;
        let reason = f.string("reason")?;
        if reason.trim().is_empty() || reason.chars().count() > MAX_REASON_CHARS {
            return Err(Error::new(
                Code::InvalidRequest,
                format!("reason must be a non-blank text of at most {MAX_REASON_CHARS} characters"),
            )
            .in_key("reason"));
        }
        Ok(Amendment {
            task_id: f.identity("task_id")?.to_owned(),
            amends: f.digest("amends")?,
            action: f.required("action")?.clone().into_owned(),
            reviewer: f.identity("reviewer")?.to_owned(),
            reason: reason.to_owned(),
        })
    }

    /// The amendment as JSON.
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("task_id", string(&self.task_id)),
            ("amends", string(&self.amends.to_string())),
            ("action", self.action.clone()),
            ("reviewer", string(&self.reviewer)),
            ("reason", string(&self.reason)),
        ])
    }

    /// The fingerprint of the reason (what the audit records of it).
    pub fn reason_digest(&self) -> Digest {
        Digest::of(crate::canonicalize(&string(&self.reason)).as_bytes())
    }
}

/// The fields an amendment may not change, each with the code that refuses a change to it.
/// Four codes for four remedies: tenant, subject, job and request say who and which task the
/// action is for (a change is another task: propose it as one); the tool is another action;
/// the contract and the policy version are the server's, and a change to them means the task
/// must be proposed again under the ones in force.
const FIXED: [(&str, Code); 7] = [
    ("tenant", Code::AmendIdentityChanged),
    ("subject", Code::AmendIdentityChanged),
    ("job_id", Code::AmendIdentityChanged),
    ("request_id", Code::AmendIdentityChanged),
    ("tool", Code::AmendToolChanged),
    ("contract", Code::AmendContractChanged),
    ("policy_version", Code::AmendPolicyChanged),
];

/// Checks that `replacement` may replace the task's `current` action under `contract` (the
/// task's contract, from the server), and returns it as an [`Action`]:
///
/// - it is an action envelope ([`Code::InvalidAction`] otherwise);
/// - tenant, subject, job_id, request_id, tool, contract and policy_version are the current
///   action's ([`Code::AmendIdentityChanged`], [`Code::AmendToolChanged`],
///   [`Code::AmendContractChanged`], [`Code::AmendPolicyChanged`] at the first that differs,
///   in that order);
/// - `contract` is the contract the action names ([`Code::AmendContractChanged`] at
///   `/contract`: the contract in force is no longer the task's);
/// - its arguments satisfy the contract (the schema's own codes, under `/args`).
///
/// Paths are inside the replacement. Pure: whether the task may be amended at all (its state)
/// and whether `current` is still the task's action are the ledger's questions.
pub fn amend_action(
    current: &Action,
    replacement: &Value<'_>,
    contract: &Contract,
) -> Result<Action> {
    check_shape(replacement)?;
    for (key, code) in FIXED {
        let (was, now) = (current.field(key), field(replacement, key));
        if was != now {
            return Err(Error::new(
                code,
                format!(
                    "an amendment may change the arguments only, not {key} ({was:?} -> {now:?}): \
                     {}",
                    match code {
                        Code::AmendIdentityChanged => "that is another task; propose it as one",
                        Code::AmendToolChanged => "another tool is another action; propose it",
                        _ => "it is the server's; propose the task again under the one in force",
                    }
                ),
            )
            .in_key(key));
        }
    }
    if contract.digest_text() != current.field("contract") {
        return Err(Error::new(
            Code::AmendContractChanged,
            format!(
                "the task was proposed under contract {}, and the contract in force is {}: \
                 propose the task again under it",
                current.field("contract"),
                contract.digest_text()
            ),
        )
        .in_key("contract"));
    }
    let args = replacement
        .as_object()
        .and_then(|o| o.get("args"))
        .unwrap_or(&Value::Null);
    contract.validate_args(args).map_err(|e| e.in_key("args"))?;
    Action::from_value(replacement)
}

/// The JSON Pointers at which the `amended` action differs from the `proposed` one: what a
/// reviewer changed, for display beside the two fingerprints (the same pointers a check
/// reports as drift between an approval and a presented action).
pub fn amended_pointers(proposed: &Value<'_>, amended: &Value<'_>) -> Vec<String> {
    super::drift_between(proposed, amended)
}

/// A reviewer's edit, checked as the ledger checks it ([`amend`]): what a page or a runtime
/// shows beside the two fingerprints before the reviewer decides.
#[derive(Clone, Debug)]
pub struct AmendedAction {
    /// The amended action, as the decision that follows must name it.
    pub action: Action,
    /// The fingerprint of the action the reviewer edited.
    pub proposed_digest: Digest,
    /// Where the amended action differs from it ([`amended_pointers`]); empty when the edit
    /// changed nothing.
    pub amended_pointers: Vec<String>,
}

impl AmendedAction {
    /// Whether the edit changed the action (its fingerprint).
    pub fn is_amended(&self) -> bool {
        !self.action.digest().ct_eq(&self.proposed_digest)
    }

    /// `{"action", "action_digest", "proposed_digest", "amended_pointers"}`: the names the
    /// ledger's task and the approval record use for the same things.
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("action", self.action.value().clone()),
            ("action_digest", string(&self.action.digest().to_string())),
            ("proposed_digest", string(&self.proposed_digest.to_string())),
            ("amended_pointers", strings(&self.amended_pointers)),
        ])
    }
}

/// The stateless half of an amendment: `current` (the action envelope the reviewer edited,
/// read as [`Action::from_value`] reads it, its errors at their path in it) replaced by
/// `replacement` under `contract`, checked by [`amend_action`] (its errors at their path in
/// the replacement), with both fingerprints and the pointers that changed. A reviewer's page
/// validates an edit with it exactly as the ledger's `amend` will; whether the task may still
/// be amended, and still holds `current`, only the ledger knows.
pub fn amend(
    current: &Value<'_>,
    replacement: &Value<'_>,
    contract: &Contract,
) -> Result<AmendedAction> {
    let current = Action::from_value(current)?;
    let action = amend_action(&current, replacement, contract)?;
    Ok(AmendedAction {
        amended_pointers: amended_pointers(current.value(), action.value()),
        proposed_digest: current.digest(),
        action,
    })
}

#[cfg(test)]
mod tests;
