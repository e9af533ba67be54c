//! Action envelopes: the exact call a reviewer approves.
//!
//! `{"tenant", "subject", "tool", "contract", "args", "job_id", "request_id", "policy_version"}`,
//! nothing more and nothing less. `contract` is the fingerprint of the tool's contract, `args`
//! the call's arguments, the other fields non-blank identity strings (no leading or trailing
//! whitespace, no control characters). The envelope's fingerprint is what an approval binds.

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::held::Held;
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::contract::Contract;
use crate::model::fields::{check_identity, Fields};
use crate::model::rule::Requirement;
use std::borrow::Cow;

/// The fields of an action envelope, in canonical order.
pub const ACTION_FIELDS: [&str; 8] = [
    "args",
    "contract",
    "job_id",
    "policy_version",
    "request_id",
    "subject",
    "tenant",
    "tool",
];

/// Who acts, in which tenant, for which job and request, under which policy: everything of an
/// action besides the tool and its arguments. Trusted: it comes from the server, not the model.
#[derive(Clone, Copy, Debug)]
pub struct ActionIds<'s> {
    /// The tenant the call runs in.
    pub tenant: &'s str,
    /// The principal the agent acts for.
    pub subject: &'s str,
    /// The durable task this call belongs to.
    pub job_id: &'s str,
    /// The request identity within the task (stable across retries).
    pub request_id: &'s str,
    /// The policy version in force when the call was proposed.
    pub policy_version: &'s str,
}

impl<'s> ActionIds<'s> {
    /// Reads `{"tenant", "subject", "job_id", "request_id", "policy_version"}` (exactly
    /// these, all identity strings); problems are [`Code::InvalidAction`] at the field.
    pub fn from_value(v: &'s Value<'_>) -> Result<ActionIds<'s>> {
        let f = Fields::new(
            v,
            Code::InvalidAction,
            "action ids",
            &[
                "tenant",
                "subject",
                "job_id",
                "request_id",
                "policy_version",
            ],
        )?;
        Ok(ActionIds {
            tenant: f.identity("tenant")?,
            subject: f.identity("subject")?,
            job_id: f.identity("job_id")?,
            request_id: f.identity("request_id")?,
            policy_version: f.identity("policy_version")?,
        })
    }
}

/// A validated action envelope and its fingerprint.
#[derive(Clone, Debug)]
pub struct Action {
    envelope: OwnedValue,
    digest: Digest,
}

impl Action {
    /// Builds the envelope for a call of `contract`'s tool: validates `args` against the
    /// contract (errors keep their codes, with paths under `/args`), checks the identities
    /// ([`Code::InvalidAction`]), and fills `tool` and `contract` from the contract.
    pub fn build(contract: &Contract, args: &Value<'_>, ids: &ActionIds<'_>) -> Result<Action> {
        let envelope = Action::envelope(contract, args, ids)?;
        Ok(Action {
            digest: crate::fingerprint(&envelope),
            envelope,
        })
    }

    /// The envelope [`Action::build`] makes, not yet fingerprinted (a committed action is
    /// fingerprinted once committed).
    fn envelope(contract: &Contract, args: &Value<'_>, ids: &ActionIds<'_>) -> Result<OwnedValue> {
        contract.validate_args(args).map_err(|e| e.in_key("args"))?;
        let strings = [
            ("job_id", ids.job_id),
            ("policy_version", ids.policy_version),
            ("request_id", ids.request_id),
            ("subject", ids.subject),
            ("tenant", ids.tenant),
        ];
        for (key, s) in strings {
            check_identity(s).map_err(|why| {
                Error::new(Code::InvalidAction, format!("{key} {why}")).in_key(key)
            })?;
        }
        let mut entries: Vec<(Cow<'static, str>, OwnedValue)> = strings
            .iter()
            .map(|(k, s)| {
                (
                    Cow::Borrowed(*k),
                    Value::String(Cow::Owned((*s).to_owned())),
                )
            })
            .collect();
        entries.push(("args".into(), args.clone().into_owned()));
        entries.push((
            "contract".into(),
            Value::String(Cow::Owned(contract.digest().to_string())),
        ));
        entries.push((
            "tool".into(),
            Value::String(Cow::Owned(contract.tool().to_owned())),
        ));
        Ok(Value::Object(Object::from_entries(entries)?))
    }

    /// Builds the envelope as [`Action::build`] does and commits its sensitive values (see
    /// [`crate::sensitive`]), each salted by one call of `salt`, the host's CSPRNG: the
    /// arguments are validated in the clear, the action returned holds commitments where the
    /// contract marks values sensitive, and the disclosures travel beside it. Under a contract
    /// without sensitive pointers this is [`Action::build`] and no disclosure.
    pub fn commit(
        contract: &Contract,
        args: &Value<'_>,
        ids: &ActionIds<'_>,
        salt: &mut dyn FnMut() -> [u8; crate::sensitive::SALT_BYTES],
    ) -> Result<(Action, Vec<crate::sensitive::Disclosure>)> {
        Ok(committed(
            Action::envelope(contract, args, ids)?,
            contract,
            salt,
        ))
    }

    /// [`Action::commit`] with the salts drawn at once, as a binding draws them from its
    /// host's CSPRNG in one call: `draw` fills one salt per sensitive place (an empty slice
    /// when there is none). A failure of `draw` is the host's own, returned as it is.
    pub fn commit_drawn<E>(
        contract: &Contract,
        args: &Value<'_>,
        ids: &ActionIds<'_>,
        draw: impl FnOnce(&mut [[u8; crate::sensitive::SALT_BYTES]]) -> std::result::Result<(), E>,
    ) -> std::result::Result<Result<(Action, Vec<crate::sensitive::Disclosure>)>, E> {
        let mut clear = match Action::envelope(contract, args, ids) {
            Ok(clear) => clear,
            Err(e) => return Ok(Err(e)),
        };
        // Counted by the commit's own walk, which builds no list and no pointer.
        let mut places = 0;
        if let Some(sensitive) = contract.sensitive() {
            sensitive.each_place_mut(&mut clear, &mut |_, _| places += 1);
        }
        let mut salts = vec![[0; crate::sensitive::SALT_BYTES]; places];
        draw(&mut salts)?;
        // One salt per place: the walk that counted them is the walk that takes them.
        let mut salts = salts.into_iter();
        let mut next = || salts.next().unwrap_or_default();
        Ok(Ok(committed(clear, contract, &mut next)))
    }

    /// Reads an envelope, checking its shape only (arguments are checked against a contract
    /// by [`crate::check`]). Problems are [`Code::InvalidAction`].
    pub fn from_value(v: &Value<'_>) -> Result<Action> {
        check_shape(v)?;
        let envelope = v.clone().into_owned();
        Ok(Action {
            digest: crate::fingerprint(&envelope),
            envelope,
        })
    }

    /// The envelope.
    pub fn value(&self) -> &OwnedValue {
        &self.envelope
    }

    /// The envelope, given up.
    pub fn into_value(self) -> OwnedValue {
        self.envelope
    }

    /// The envelope's fingerprint: what an approval binds.
    pub fn digest(&self) -> Digest {
        self.digest
    }

    /// A string field of the envelope (every field but `args` is one).
    pub fn field(&self, key: &str) -> &str {
        field(&self.envelope, key)
    }

    /// The call's arguments.
    pub fn args(&self) -> &OwnedValue {
        args_of(&self.envelope)
    }
}

/// The action of `clear` (an envelope in the clear) with its sensitive values committed,
/// fingerprinted once.
fn committed(
    clear: OwnedValue,
    contract: &Contract,
    salt: &mut dyn FnMut() -> [u8; crate::sensitive::SALT_BYTES],
) -> (Action, Vec<crate::sensitive::Disclosure>) {
    let (envelope, disclosures) = match contract.sensitive() {
        Some(sensitive) => crate::model::sensitive::commit_owned(sensitive, clear, &[], salt),
        None => (clear, Vec::new()),
    };
    (
        Action {
            digest: crate::fingerprint(&envelope),
            envelope,
        },
        disclosures,
    )
}

// Written here, beside the envelope it checks, so that contracts know nothing of actions.
impl Contract {
    /// Checks that `action` is an envelope for a call of this contract, as a confirmation page
    /// must before it offers an Approve button: a well-formed envelope ([`Code::InvalidAction`]),
    /// naming this tool and this contract's fingerprint ([`Code::InvalidAction`] at `/tool` or
    /// `/contract`), with arguments this contract accepts (their own codes, under `/args`).
    /// Every value is judged as given: a proposal's arguments are in the clear.
    pub fn validate_action(&self, action: &Value<'_>) -> Result<()> {
        self.validate_envelope(action, &Held::default())
    }

    /// What a reviewer's page asks of an action the ledger froze: [`Contract::validate_action`],
    /// except that a sensitive place may hold its commitment (`{"_sd": "sha256:<hex>"}`, see
    /// [`crate::sensitive`]) in place of its value, and whether the call needs a person, by
    /// which rule ([`Contract::requires_approval`]). A commitment stands for a value the
    /// ledger validated in the clear when the call was proposed, so it is not validated here;
    /// anything else at a sensitive place, and anything at any other place, is validated as
    /// given. A rule that tests a value still committed, other than for its presence, cannot
    /// tell, and asks for a person. A schema that tells values apart by a sensitive value from
    /// outside its place (a `oneOf` of whole objects, an `enum` of them) sees the commitment
    /// and refuses it.
    pub fn review_action(&self, action: &Value<'_>) -> Result<Requirement> {
        let held = Held::of(
            self.sensitive()
                .map(|s| s.commitments(action))
                .unwrap_or_default(),
        );
        self.validate_envelope(action, &held)?;
        Ok(self.requirement_of_valid(args_of(action), &held))
    }

    /// [`Contract::validate_action`] with the values in `held` held back.
    fn validate_envelope(&self, action: &Value<'_>, held: &Held) -> Result<()> {
        check_shape(action)?;
        let get = |k| field(action, k);
        if get("tool") != self.tool() {
            return Err(Error::new(
                Code::InvalidAction,
                format!("the action is for {:?}, not {:?}", get("tool"), self.tool()),
            )
            .in_key("tool"));
        }
        if get("contract") != self.digest_text() {
            return Err(Error::new(
                Code::InvalidAction,
                "the action was made under another contract than this one",
            )
            .in_key("contract"));
        }
        self.validate_args_holding(args_of(action), held)
            .map_err(|e| e.in_key("args"))
    }
}

/// The arguments of an envelope whose shape was checked.
fn args_of<'v, 'a>(action: &'v Value<'a>) -> &'v Value<'a> {
    static NONE: Value<'static> = Value::Null;
    action
        .as_object()
        .and_then(|o| o.get("args"))
        .unwrap_or(&NONE)
}

/// Checks that `v` is an action envelope: exactly the eight fields, identities, a digest,
/// object arguments.
pub(crate) fn check_shape(v: &Value<'_>) -> Result<()> {
    let f = Fields::new(v, Code::InvalidAction, "action", &ACTION_FIELDS)?;
    for key in [
        "tenant",
        "subject",
        "tool",
        "job_id",
        "request_id",
        "policy_version",
    ] {
        f.identity(key)?;
    }
    f.digest("contract")?;
    if !matches!(f.required("args")?, Value::Object(_)) {
        return Err(Error::new(Code::InvalidAction, "args must be an object").in_key("args"));
    }
    Ok(())
}

/// A string field of an envelope whose shape was checked.
pub(crate) fn field<'v>(v: &'v Value<'_>, key: &str) -> &'v str {
    v.as_object()
        .and_then(|o| o.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

#[cfg(test)]
mod tests;
