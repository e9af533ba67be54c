//! The permit check: before dispatch, prove that the action in hand is still the approved
//! action, that the approval still holds now, and that the people and rules behind it stand.
//!
//! `check(approval, action, context)` evaluates every [`Reason`] and returns them all, in
//! the order of [`Reason::ALL`], with the outcome the worst of them decides. What each reason
//! means and the outcome it calls for are written once, in [`crate::model::reason`]
//! ([`Reason::meaning`], [`Reason::outcome`]); `conformance/codes.json` is generated from them.
//!
//! The outcome is `reject` if any reason rejects, else `reapprove` if there is any reason,
//! else `permit`. A call that is wrong as presented is rejected; an approval that no longer
//! holds for a still-valid task sends the same task back for approval. Neither is a transport
//! error: never retry past them and never mint a new task to get around them. After drift,
//! resume with the approval's frozen action; nothing here suggests updating the approval.

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::action::field;
use crate::model::approval::{self, Approval, Decision};
use crate::model::contract::Contract;
use crate::model::fields::Fields;
use crate::model::proof::{self, ProofPolicy};
use crate::model::reason::{Outcome, Reason};
use std::borrow::Cow;
use std::sync::Arc;

/// What the executor's own server knows at dispatch time. Never taken from the model or the
/// caller's payload.
///
/// ```json
/// {"now": 1764500600000, "tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01",
///  "contract": {...},
///  "approver_authorized": {"approver": "user:bob", "authorized": true},
///  "subject_authorized": {"subject": "user:alice", "authorized": true},
///  "revoked": {"approval_id": "apr-1", "revoked": false}}
/// ```
///
/// `now` is in ms since the epoch, `contract` the tool's current contract document (or `null`
/// when the server has none for the action's tool). Each fact names whom it is about, so a
/// fact looked up for another approver, subject or approval (a caching or lookup bug) is not
/// believed: the check fails closed with the fact's reason. `approver_authorized` and `revoked`
/// may be `null` when no approval is presented; with an approval, a `null` fact is a fact
/// missing, and fails closed too.
///
/// Optionally `"proof": {"required", "keys"}`, the trusted key set ([`ProofPolicy`]).
#[derive(Clone, Debug)]
pub struct Context {
    now: i64,
    tenant: String,
    policy_version: String,
    contract: Option<Contract>,
    approver: Option<Fact>,
    subject: Fact,
    revoked: Option<Fact>,
    proof: Option<Arc<ProofPolicy>>,
}

/// A trusted fact about one named approver, subject or approval: `authorized` for the
/// first two, `revoked` for the third.
#[derive(Clone, Debug)]
struct Fact {
    about: String,
    flag: bool,
}

impl Fact {
    /// Whether the fact is about `who` and its flag is `flag`.
    fn says(&self, who: &str, flag: bool) -> bool {
        self.about == who && self.flag == flag
    }
}

const CONTEXT_FIELDS: [&str; 8] = [
    "now",
    "tenant",
    "policy_version",
    "contract",
    "approver_authorized",
    "subject_authorized",
    "revoked",
    "proof",
];

impl Context {
    /// Reads a context; problems are [`Code::InvalidContext`] (or the contract's own error
    /// under `/contract`).
    pub fn from_value(v: &Value<'_>) -> Result<Context> {
        let f = Fields::new(v, Code::InvalidContext, "context", &CONTEXT_FIELDS)?;
        let contract = match f.required("contract")? {
            Value::Null => None,
            c => Some(Contract::from_value(c).map_err(|e| e.in_key("contract"))?),
        };
        Context::read(&f, contract)
    }

    /// Reads a context whose contract is already loaded (so a long-running executor compiles
    /// each contract once): `v` holds every field but `contract`.
    pub fn with_contract(v: &Value<'_>, contract: Option<Contract>) -> Result<Context> {
        let f = Fields::new(v, Code::InvalidContext, "context", &CONTEXT_FIELDS[..])?;
        if f.get("contract").is_some() {
            return Err(Error::new(
                Code::InvalidContext,
                "the contract is given separately: leave it out of the context",
            )
            .in_key("contract"));
        }
        Context::read(&f, contract)
    }

    fn read(f: &Fields<'_, '_>, contract: Option<Contract>) -> Result<Context> {
        Ok(Context {
            now: f.integer("now", 0)?,
            tenant: f.identity("tenant")?.to_owned(),
            policy_version: f.identity("policy_version")?.to_owned(),
            contract,
            approver: nullable_fact(f, APPROVER_FACT)?,
            subject: fact(f, SUBJECT_FACT)?,
            revoked: nullable_fact(f, REVOKED_FACT)?,
            proof: match f.get("proof") {
                Some(p) => Some(Arc::new(
                    ProofPolicy::from_value(p).map_err(|e| e.in_key("proof"))?,
                )),
                None => None,
            },
        })
    }

    /// The context with this proof policy instead of its own (so a long-running executor
    /// reads its key set once).
    pub fn with_proof(mut self, policy: Option<Arc<ProofPolicy>>) -> Context {
        self.proof = policy;
        self
    }

    /// The proof policy, if the context has one.
    pub fn proof(&self) -> Option<&ProofPolicy> {
        self.proof.as_deref()
    }

    /// The tool's current contract, if the server has one.
    pub fn contract(&self) -> Option<&Contract> {
        self.contract.as_ref()
    }
}

/// Reads `{"<who>": identifier, "<flag>": boolean}` at `key`.
/// A fact's key, the members naming its subject and its flag, and how messages name it (a
/// literal: a name formatted on every check cost more than reading the fact).
type FactKeys = (&'static str, &'static str, &'static str, &'static str);

const APPROVER_FACT: FactKeys = (
    "approver_authorized",
    "approver",
    "authorized",
    r#"approver_authorized (a fact {"approver", "authorized"})"#,
);
const SUBJECT_FACT: FactKeys = (
    "subject_authorized",
    "subject",
    "authorized",
    r#"subject_authorized (a fact {"subject", "authorized"})"#,
);
const REVOKED_FACT: FactKeys = (
    "revoked",
    "approval_id",
    "revoked",
    r#"revoked (a fact {"approval_id", "revoked"})"#,
);

fn fact(f: &Fields<'_, '_>, (key, who, flag, what): FactKeys) -> Result<Fact> {
    let v = f.required(key)?;
    let read = || -> Result<Fact> {
        let inner = Fields::new(v, Code::InvalidContext, what, &[who, flag])?;
        Ok(Fact {
            about: inner.identity(who)?.to_owned(),
            flag: inner.boolean(flag)?,
        })
    };
    read().map_err(|e| e.in_key(key))
}

/// [`fact`], or `None` for `null`.
fn nullable_fact(f: &Fields<'_, '_>, keys: FactKeys) -> Result<Option<Fact>> {
    match f.required(keys.0)? {
        Value::Null => Ok(None),
        _ => fact(f, keys).map(Some),
    }
}

/// The result of a check.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// Permit, reapprove or reject.
    pub outcome: Outcome,
    /// Every reason found, in [`Reason::ALL`] order; empty exactly when permitted.
    pub reasons: Vec<Reason>,
    /// JSON Pointers where the presented action differs from the approved one.
    pub drift: Vec<String>,
    /// Fingerprint of the presented action.
    pub action_digest: Digest,
    /// The approved action's fingerprint, when a valid, untampered approval was presented.
    pub approved_digest: Option<Digest>,
    /// Why the action is invalid, with `invalid_action`.
    pub action_error: Option<Error>,
}

impl Verdict {
    /// The verdict as JSON: `{"outcome", "reasons", "drift", "action_digest",
    /// "approved_digest", "action_error": null | {"code", "path"}}`.
    pub fn to_value(&self) -> OwnedValue {
        let s = |s: String| Value::String(Cow::Owned(s));
        let strings = |v: Vec<String>| Value::Array(v.into_iter().map(s).collect());
        let action_error = match &self.action_error {
            None => Value::Null,
            Some(e) => object(vec![
                ("code", s(e.code().as_str().to_owned())),
                ("path", s(e.path().to_owned())),
            ]),
        };
        object(vec![
            ("outcome", s(self.outcome.as_str().to_owned())),
            (
                "reasons",
                strings(self.reasons.iter().map(|r| r.as_str().to_owned()).collect()),
            ),
            ("drift", strings(self.drift.clone())),
            ("action_digest", s(self.action_digest.to_string())),
            (
                "approved_digest",
                self.approved_digest
                    .map_or(Value::Null, |d| s(d.to_string())),
            ),
            ("action_error", action_error),
        ])
    }
}

fn object(entries: Vec<(&'static str, OwnedValue)>) -> OwnedValue {
    let entries = entries
        .into_iter()
        .map(|(k, v)| (Cow::Borrowed(k), v))
        .collect();
    // Keys are distinct literals.
    Value::Object(Object::from_entries(entries).unwrap_or_default())
}

/// Checks a presented action against an approval (`None` or JSON `null` when there is none)
/// and the trusted context given as JSON. Only a malformed context is an error: everything
/// wrong with the approval or the action is a reason in the verdict.
///
/// A check never rounds: it has no number profile, and its inputs must be values read with
/// the strict profile (the default of [`crate::parse`], and what every binding uses for the
/// host values it is given). A text parsed with [`crate::Profile::Rfc8785`] has already been
/// rounded (`2500.0000000000000001` reads as 2500) and must not be checked.
pub fn check(
    approval: Option<&Value<'_>>,
    action: &Value<'_>,
    context: &Value<'_>,
) -> Result<Verdict> {
    Ok(check_with(approval, action, &Context::from_value(context)?))
}

/// [`check`] with a context already read.
pub fn check_with(approval: Option<&Value<'_>>, action: &Value<'_>, ctx: &Context) -> Verdict {
    // A signed or passkey-approved record counts only once its proof holds.
    let mut payload = Vec::new();
    let opened = proof::open(approval, ctx.proof(), ctx.now, &mut payload);
    let presented = match (opened.refused(), opened.record()) {
        (Some(reason), _) => Presented::Refused(reason),
        (None, None) => Presented::None,
        (None, Some(v)) => match approval::read(v) {
            Ok(r) => Presented::Record(r, None),
            Err(_) => Presented::Invalid,
        },
    };
    decide(presented, action, ctx)
}

/// [`check_with`] with an approval loaded once ([`Approval::from_value`]), as an executor that
/// checks the same approval repeatedly holds it: its record is not read again and its frozen
/// action not fingerprinted again. The verdict is the one [`check_with`] gives for the
/// record (a loaded approval is a bare record: a context that requires proof refuses it).
pub fn check_approval(approval: Option<&Approval>, action: &Value<'_>, ctx: &Context) -> Verdict {
    let presented = match approval {
        None => Presented::None,
        Some(a) => {
            let mut payload = Vec::new();
            match proof::open(Some(a.value()), ctx.proof(), ctx.now, &mut payload).refused() {
                Some(reason) => Presented::Refused(reason),
                None => match a.record() {
                    Some(r) => Presented::Record(r, Some(a)),
                    None => Presented::Invalid,
                },
            }
        }
    };
    decide(presented, action, ctx)
}

/// The approval a check was given.
enum Presented<'v, 'a> {
    None,
    /// Malformed.
    Invalid,
    /// Its proof does not hold, for this reason.
    Refused(Reason),
    /// Well-formed (and proven where the context asks for proof); loaded, when it was.
    Record(approval::Record<'v, 'a>, Option<&'v Approval>),
}

fn decide(presented: Presented<'_, '_>, action: &Value<'_>, ctx: &Context) -> Verdict {
    let mut reasons = Vec::new();
    let mut drift = Vec::new();
    // A presented action equal to a loaded approval's frozen one has its fingerprint: equal
    // values have the same canonical form (numbers compare as doubles, and `-0` and `0` are
    // both written `0`), so it is not hashed again. Any other is fingerprinted.
    let action_digest = match &presented {
        Presented::Record(_, Some(a))
            if std::ptr::eq(a.action().value(), action) || a.action().value() == action =>
        {
            a.action().digest()
        }
        _ => crate::fingerprint(action),
    };

    // The approval, if one was presented: None = absent, Some(None) = invalid or tampered.
    // The frozen action usually equals the presented one, whose fingerprint is already
    // known and whose shape is then already checked.
    let mut same_as_frozen = false;
    let contract = ctx.contract.as_ref();
    let cap = contract.and_then(Contract::max_approval_ms);
    let mut refused = None;
    let mut loaded = None;
    let presented = match presented {
        Presented::None => None,
        Presented::Invalid => Some(None),
        Presented::Refused(reason) => {
            refused = Some(reason);
            Some(None)
        }
        Presented::Record(r, approval) => {
            loaded = approval;
            let known = approval.map(|a| a.action().digest());
            // Equal fingerprints are equal canonical forms, so the same envelope.
            same_as_frozen = match known {
                Some(d) => d == action_digest,
                None => r.frozen == action,
            };
            let frozen_digest = match known {
                Some(d) => d,
                None if same_as_frozen => action_digest,
                None => crate::fingerprint(r.frozen),
            };
            // Sealed when the claimed digest is the frozen action's fingerprint; valid only
            // for as long as the contract in force lets an approval hold.
            let sealed = r.action_digest.ct_eq(&frozen_digest)
                && cap.is_none_or(|cap| r.expires_at - r.decided_at <= cap);
            Some(sealed.then_some(r))
        }
    };
    let record = presented.as_ref().and_then(Option::as_ref);

    let mut action_error = if same_as_frozen {
        None
    } else {
        crate::model::action::check_shape(action).err()
    };
    let valid_action = action_error.is_none();
    let known_tool = match contract {
        None => false,
        Some(c) => !valid_action || field(action, "tool") == c.tool(),
    };
    let mut requirement = None;
    if let (true, Some(c), true) = (valid_action, contract, known_tool) {
        let args = action
            .as_object()
            .and_then(|o| o.get("args"))
            .unwrap_or(&Value::Null);
        let check = || c.requires_approval(args).map(|r| r.required);
        // A loaded approval keeps the check of its own (equal) arguments.
        let checked = match loaded {
            Some(a) if same_as_frozen => a.args_checked(c, check),
            _ => check(),
        };
        match checked {
            Ok(required) => requirement = Some(required),
            Err(e) => action_error = Some(e.in_key("args")),
        }
    }
    // Envelopes whose fields can be compared with the context: the frozen one and, when
    // well-formed, the presented one.
    let frozen = record.map(|r| r.frozen);
    // The presented action may be the frozen value itself (a binding found them the same).
    let other = valid_action && !frozen.is_some_and(|f| std::ptr::eq(f, action));
    let envelopes = [frozen, other.then_some(action)];
    let any_differs =
        |key: &str, want: &str| envelopes.iter().flatten().any(|e| field(e, key) != want);

    if presented.is_none() && requirement != Some(false) {
        reasons.push(Reason::NoApproval);
    }
    if matches!(presented, Some(None)) {
        reasons.push(refused.unwrap_or(Reason::InvalidApproval));
    }
    if action_error.is_some() {
        reasons.push(Reason::InvalidAction);
    }
    if !known_tool {
        reasons.push(Reason::UnknownTool);
    }
    if record.is_some_and(|r| r.decision == Decision::Rejected) {
        reasons.push(Reason::DecisionRejected);
    }
    if record.is_some_and(|r| ctx.now < r.decided_at) {
        reasons.push(Reason::DecidedInFuture);
    }
    if any_differs("tenant", &ctx.tenant) {
        reasons.push(Reason::TenantMismatch);
    }
    if let Some(r) = record {
        if !r.action_digest.ct_eq(&action_digest) {
            diff(r.frozen, action, &mut String::new(), &mut drift);
            reasons.push(Reason::ActionDrift);
        }
        if ctx.now >= r.expires_at {
            reasons.push(Reason::Expired);
        }
        if !ctx
            .approver
            .as_ref()
            .is_some_and(|f| f.says(r.approver, true))
        {
            reasons.push(Reason::ApproverUnauthorized);
        }
    }
    if !ctx.subject.flag || any_differs("subject", &ctx.subject.about) {
        reasons.push(Reason::SubjectUnauthorized);
    }
    if any_differs("policy_version", &ctx.policy_version) {
        reasons.push(Reason::PolicyDrift);
    }
    if contract.is_some_and(|c| any_differs("contract", c.digest_text())) {
        reasons.push(Reason::ContractDrift);
    }
    if record.is_some_and(|r| {
        !ctx.revoked
            .as_ref()
            .is_some_and(|f| f.says(r.approval_id, false))
    }) {
        reasons.push(Reason::Revoked);
    }

    let outcome = reasons
        .iter()
        .map(|r| r.outcome())
        .max()
        .unwrap_or(Outcome::Permit);
    Verdict {
        outcome,
        reasons,
        drift,
        action_digest,
        approved_digest: record.map(|r| r.action_digest),
        action_error,
    }
}

/// Appends the JSON Pointers at which `a` and `b` differ: a member on one side only, a value
/// of another type or another scalar value, or an array of another length (reported at the
/// array).
pub(crate) fn diff(a: &Value<'_>, b: &Value<'_>, path: &mut String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&str> = x
                .iter()
                .map(|(k, _)| k)
                .chain(y.iter().map(|(k, _)| k))
                .collect();
            keys.sort_by(|p, q| crate::cmp_utf16(p, q));
            keys.dedup();
            for k in keys {
                let len = path.len();
                path.push('/');
                crate::json::pointer::push_escaped(path, k);
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => diff(p, q, path, out),
                    _ => out.push(path.clone()),
                }
                path.truncate(len);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                diff(p, q, path, out);
                path.truncate(len);
            }
        }
        _ if a == b => {}
        _ => out.push(path.clone()),
    }
}

#[cfg(test)]
mod tests;
