//! Approval records: a person's decision about one exact action.
//!
//! `{"approval_id", "decision_id", "decision": "approved"|"rejected", "action": <the frozen
//! envelope>, "action_digest", "approver", "decided_at", "expires_at"}`, times in integer
//! milliseconds since the Unix epoch, `expires_at` after `decided_at`; `approval_id`,
//! `decision_id` and `approver` are identifiers (see [`crate::model::fields`]). The record
//! carries the frozen action itself, so a task resumes with exactly what was approved, and
//! `action_digest` must be its fingerprint.
//!
//! When a reviewer amended the proposed action before deciding, the record also carries
//! `"proposed_digest"`: the fingerprint of what the model proposed, present only when it
//! differs from `action_digest`. It is a record of where the decided action came from, for
//! display and audit; a check compares only the frozen, decided action.
//!
//! Under a quorum, optional members say in what authority the approver decided: `"role"`
//! (an identifier: the role the decision counts for, when the server's facts say its counting
//! identity holds it), and `"on_behalf_of"` with `"delegation"` (present together or not at
//! all): the root delegator the decision counts for, and the chain of delegation links, root
//! first, through which `approver` (the delegate) decided. Members of one set share one
//! `approval_id` (the round); each has its own `decision_id`.

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::action::Action;
use crate::model::contract::Contract;
use crate::model::fields::{check_identity, Fields};
use std::borrow::Cow;

pub use crate::model::decision::Decision;
use std::sync::OnceLock;

/// Who decided what, and when the decision stops holding. Ids and times are passed in, so
/// building a record is pure.
#[derive(Clone, Copy, Debug)]
pub struct DecisionInput<'s> {
    /// Identity of this approval.
    pub approval_id: &'s str,
    /// Identity of the decision callback (for de-duplicating repeated deliveries).
    pub decision_id: &'s str,
    /// Approved or rejected.
    pub decision: Decision,
    /// The person who decided.
    pub approver: &'s str,
    /// When they decided, in ms since the epoch.
    pub decided_at: i64,
    /// When the decision stops holding, in ms since the epoch; after `decided_at`.
    pub expires_at: i64,
    /// The fingerprint of the action as the model proposed it, when a reviewer amended it
    /// before this decision (and only then: it must differ from the decided action's).
    pub proposed_digest: Option<Digest>,
    /// The role the approver decides in, if any.
    pub role: Option<&'s str>,
    /// The root delegator the decision counts for, when the approver decides as a delegate
    /// (with `delegation`, and only then).
    pub on_behalf_of: Option<&'s str>,
    /// The delegation links, root first (1 to [`MAX_DELEGATION_LINKS`]), with `on_behalf_of`.
    pub delegation: Option<&'s [Value<'s>]>,
}

/// The most links a decision's delegation chain may have (root first). Each link is one more
/// party whose key, scope and revocation a check must get right; four covers a person, their
/// deputy, a team lead's standing delegation and a holiday cover, and bounds the work a
/// presented chain can ask for. A longer chain in a record is `delegation_too_deep`.
pub const MAX_DELEGATION_LINKS: usize = 4;

impl<'s> DecisionInput<'s> {
    /// Reads `{"approval_id", "decision_id", "decision", "approver", "decided_at",
    /// "expires_at"}` (exactly these, plus `"proposed_digest"` when the action was amended,
    /// and optionally `"role"`, `"on_behalf_of"` with `"delegation"`; times integer ms);
    /// problems are [`Code::InvalidApproval`] at the field.
    pub fn from_value(v: &'s Value<'_>) -> Result<DecisionInput<'s>> {
        let f = Fields::new(
            v,
            Code::InvalidApproval,
            "decision",
            &[
                "approval_id",
                "decision_id",
                "decision",
                "approver",
                "decided_at",
                "expires_at",
                "proposed_digest",
                "role",
                "on_behalf_of",
                "delegation",
            ],
        )?;
        let authority = read_authority(&f)?;
        Ok(DecisionInput {
            approval_id: f.identity("approval_id")?,
            decision_id: f.identity("decision_id")?,
            decision: Decision::parse(f.string("decision")?)?,
            approver: f.identity("approver")?,
            decided_at: f.integer("decided_at", 0)?,
            expires_at: f.integer("expires_at", 0)?,
            proposed_digest: optional_digest(&f)?,
            role: authority.role,
            on_behalf_of: authority.on_behalf_of,
            delegation: authority.delegation,
        })
    }
}

/// The optional members naming the authority a decision was made in.
struct Authority<'v, 'a> {
    role: Option<&'v str>,
    on_behalf_of: Option<&'v str>,
    delegation: Option<&'v [Value<'a>]>,
}

/// Reads `role`, and `on_behalf_of` with `delegation` (a non-empty array of links; each link's
/// own shape, and the chain's depth, are the delegation check's).
fn read_authority<'v, 'a>(f: &Fields<'v, 'a>) -> Result<Authority<'v, 'a>> {
    let optional_identity = |key| match f.get(key) {
        Some(_) => f.identity(key).map(Some),
        None => Ok(None),
    };
    let role = optional_identity("role")?;
    let on_behalf_of = optional_identity("on_behalf_of")?;
    let delegation = match f.get("delegation") {
        None => None,
        Some(Value::Array(links)) if !links.is_empty() => Some(links.as_slice()),
        Some(_) => {
            return Err(Error::new(
                Code::InvalidApproval,
                "delegation must be a non-empty array of delegation links, root first",
            )
            .in_key("delegation"))
        }
    };
    match (on_behalf_of.is_some(), delegation.is_some()) {
        (true, false) => Err(Error::new(
            Code::InvalidApproval,
            "on_behalf_of needs the delegation it is decided through",
        )
        .in_key("on_behalf_of")),
        (false, true) => Err(Error::new(
            Code::InvalidApproval,
            "delegation needs on_behalf_of: the root delegator the decision counts for",
        )
        .in_key("delegation")),
        _ => Ok(Authority {
            role,
            on_behalf_of,
            delegation,
        }),
    }
}

/// `proposed_digest`, when present: a digest.
fn optional_digest(f: &Fields<'_, '_>) -> Result<Option<Digest>> {
    match f.get("proposed_digest") {
        Some(_) => f.digest("proposed_digest").map(Some),
        None => Ok(None),
    }
}

/// A `proposed_digest` equal to the decided action's would say "amended" about an action
/// that was not: there is one spelling of "not amended", and it is the field's absence.
fn check_proposed(proposed: Option<Digest>, decided: &Digest) -> Result<()> {
    match proposed {
        Some(p) if p.ct_eq(decided) => Err(Error::new(
            Code::InvalidApproval,
            "proposed_digest equals action_digest: leave it out when the action was not amended",
        )
        .in_key("proposed_digest")),
        _ => Ok(()),
    }
}

/// A validated approval record, loaded once: an executor that checks the same approval
/// repeatedly passes this to [`crate::check_approval`], which neither reads the record again
/// nor fingerprints its frozen action again.
#[derive(Clone, Debug)]
pub struct Approval {
    record: OwnedValue,
    action: Action,
    action_digest: Digest,
    proposed_digest: Option<Digest>,
    decision: Decision,
    decided_at: i64,
    expires_at: i64,
    /// The identifiers a check reads, kept as read (the record is not searched for them again).
    approval_id: String,
    decision_id: String,
    approver: String,
    /// Whether the record names a role or a delegation (most do not: a check then looks
    /// neither up).
    authority: bool,
    /// Whether the frozen action's arguments fit a contract, and whether the call needs an
    /// approval under it, from the first check against that contract (a pure function of the
    /// two, so later checks with an equal action and the same contract reuse it).
    args_checked: OnceLock<(Digest, Result<bool>)>,
}

const FIELDS: [&str; 14] = [
    "action",
    "action_digest",
    "approval_id",
    "approver",
    "batch",
    "batch_digest",
    "decided_at",
    "decision",
    "decision_id",
    "delegation",
    "expires_at",
    "on_behalf_of",
    "proposed_digest",
    "role",
];

impl Approval {
    /// Records a decision about `action`.
    pub fn decide(action: &Action, d: &DecisionInput<'_>) -> Result<Approval> {
        let record = decision_record(Subject::Action, action.value().clone(), action.digest(), d)?;
        // The record is read as any other (one set of rules for its shape), but its frozen
        // action is `action` itself: neither copied again nor fingerprinted again.
        Approval::with_action(record, |_| Ok(action.clone()))
    }

    /// Reads a record, checking its shape ([`Code::InvalidApproval`], or the action's own
    /// error under `/action`). Whether `action_digest` matches the frozen action is a separate
    /// question: see [`Approval::is_sealed`].
    pub fn from_value(v: &Value<'_>) -> Result<Approval> {
        Approval::with_action(v.clone().into_owned(), |frozen| {
            Action::from_value(frozen).map_err(|e| e.in_key("action"))
        })
    }

    /// Reads `record`, keeping it, with the frozen action `action` makes of its `action`.
    fn with_action(
        record: OwnedValue,
        action: impl FnOnce(&Value<'_>) -> Result<Action>,
    ) -> Result<Approval> {
        let r = read(&record)?;
        let authority = r.role.is_some() || r.on_behalf_of.is_some();
        let (approval_id, decision_id, approver) = (
            r.approval_id.to_owned(),
            r.decision_id.to_owned(),
            r.approver.to_owned(),
        );
        let action = action(r.frozen)?;
        let (action_digest, proposed_digest, decision, decided_at, expires_at) = (
            r.action_digest,
            r.proposed_digest,
            r.decision,
            r.decided_at,
            r.expires_at,
        );
        Ok(Approval {
            record,
            action,
            action_digest,
            proposed_digest,
            decision,
            decided_at,
            expires_at,
            approval_id,
            decision_id,
            approver,
            authority,
            args_checked: OnceLock::new(),
        })
    }

    /// The record.
    pub fn value(&self) -> &OwnedValue {
        &self.record
    }

    /// The frozen action.
    pub fn action(&self) -> &Action {
        &self.action
    }

    /// The digest the record claims for its action.
    pub fn action_digest(&self) -> Digest {
        self.action_digest
    }

    /// The fingerprint of the action the model proposed, when a reviewer amended it before the
    /// decision; `None` when the decided action is the proposed one.
    pub fn proposed_digest(&self) -> Option<Digest> {
        self.proposed_digest
    }

    /// Whether `action_digest` is the fingerprint of the frozen action (a record whose action
    /// was edited after the decision is not).
    pub fn is_sealed(&self) -> bool {
        self.action_digest.ct_eq(&self.action.digest())
    }

    /// Approved or rejected.
    pub fn decision(&self) -> Decision {
        self.decision
    }

    /// When the reviewer decided (ms since the epoch).
    pub fn decided_at(&self) -> i64 {
        self.decided_at
    }

    /// When the decision stops holding (ms since the epoch).
    pub fn expires_at(&self) -> i64 {
        self.expires_at
    }

    /// The role the approver decided in, if the record names one.
    pub fn role(&self) -> Option<&str> {
        self.text("role")
    }

    /// The root delegator the decision counts for, when decided through a delegation.
    pub fn on_behalf_of(&self) -> Option<&str> {
        self.text("on_behalf_of")
    }

    /// The delegation links, root first, when decided through a delegation.
    pub fn delegation(&self) -> Option<&[OwnedValue]> {
        match self.record.as_object()?.get("delegation")? {
            Value::Array(links) => Some(links),
            _ => None,
        }
    }

    fn text(&self, key: &str) -> Option<&str> {
        self.record.as_object()?.get(key)?.as_str()
    }

    /// The record as `check` reads it, from what was read when the approval was loaded (its
    /// fields were checked then, and are not checked again). This cannot fail; were it to,
    /// the approval is treated as invalid.
    pub(crate) fn record(&self) -> Option<Record<'_, 'static>> {
        let o = self.record.as_object()?;
        let text = |key| o.get(key).and_then(Value::as_str);
        Some(Record {
            // The frozen action as loaded: equal to the record's `action`, of which it is a copy.
            frozen: self.action.value(),
            action_digest: self.action_digest,
            approval_id: &self.approval_id,
            decision_id: &self.decision_id,
            approver: &self.approver,
            role: self.authority.then(|| text("role")).flatten(),
            on_behalf_of: self.authority.then(|| text("on_behalf_of")).flatten(),
            delegation: self.authority.then(|| self.delegation()).flatten(),
            proposed_digest: self.proposed_digest,
            decision: self.decision,
            decided_at: self.decided_at,
            expires_at: self.expires_at,
        })
    }

    /// `check(contract)`, the check of the frozen action's arguments against `contract`,
    /// computed once per approval for the first contract it is checked with.
    pub(crate) fn args_checked(
        &self,
        contract: &Contract,
        check: impl FnOnce() -> Result<bool>,
    ) -> Result<bool> {
        if let Some((digest, result)) = self.args_checked.get() {
            if *digest == contract.digest() {
                return result.clone();
            }
        }
        let result = check();
        // Only the first contract is kept; another one is checked each time.
        let _ = self.args_checked.set((contract.digest(), result.clone()));
        result
    }
}

/// What a decision record is about: one action, or a batch of them (see
/// [`crate::batch`]). The two spell their subject with their own members, so neither record
/// can be read as the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Subject {
    /// `"action"` and `"action_digest"`.
    Action,
    /// `"batch"` (the batch's header) and `"batch_digest"`.
    Batch,
}

impl Subject {
    /// The record's members holding the frozen subject and its digest.
    fn keys(self) -> (&'static str, &'static str) {
        match self {
            Subject::Action => ("action", "action_digest"),
            Subject::Batch => ("batch", "batch_digest"),
        }
    }
}

/// A decision record about `subject` (frozen as `frozen`, whose fingerprint is `digest`),
/// made as `d` says. Checks what a record's reader would refuse, at the field.
pub(crate) fn decision_record(
    subject: Subject,
    frozen: OwnedValue,
    digest: Digest,
    d: &DecisionInput<'_>,
) -> Result<OwnedValue> {
    for (key, s) in [
        ("approval_id", d.approval_id),
        ("decision_id", d.decision_id),
        ("approver", d.approver),
    ] {
        check_identity(s)
            .map_err(|why| Error::new(Code::InvalidApproval, format!("{key} {why}")).in_key(key))?;
    }
    let int = |key: &'static str, n: i64| -> Result<OwnedValue> {
        crate::Number::from_i64(n, crate::Profile::Strict)
            .ok()
            .filter(|_| (0..=crate::MAX_SAFE_INTEGER).contains(&n))
            .map(Value::Number)
            .ok_or_else(|| {
                Error::new(
                    Code::InvalidApproval,
                    format!("{key} must be an integer from 0 to 2^53 - 1"),
                )
                .in_key(key)
            })
    };
    check_proposed(d.proposed_digest, &digest)?;
    if d.delegation
        .is_some_and(|links| links.len() > MAX_DELEGATION_LINKS)
    {
        return Err(Error::new(
            Code::InvalidApproval,
            format!("delegation may have at most {MAX_DELEGATION_LINKS} links"),
        )
        .in_key("delegation"));
    }
    let string = |s: &str| Value::String(Cow::Owned(s.to_owned()));
    let (frozen_key, digest_key) = subject.keys();
    let mut entries: Vec<(Cow<'static, str>, OwnedValue)> = vec![
        (frozen_key.into(), frozen),
        (digest_key.into(), string(&digest.to_string())),
        ("approval_id".into(), string(d.approval_id)),
        ("approver".into(), string(d.approver)),
        ("decided_at".into(), int("decided_at", d.decided_at)?),
        ("decision".into(), string(d.decision.as_str())),
        ("decision_id".into(), string(d.decision_id)),
        ("expires_at".into(), int("expires_at", d.expires_at)?),
    ];
    if let Some(p) = d.proposed_digest {
        entries.push(("proposed_digest".into(), string(&p.to_string())));
    }
    if let Some(role) = d.role {
        entries.push(("role".into(), string(role)));
    }
    if let Some(who) = d.on_behalf_of {
        entries.push(("on_behalf_of".into(), string(who)));
    }
    if let Some(links) = d.delegation {
        let links = links.iter().map(|l| l.clone().into_owned()).collect();
        entries.push(("delegation".into(), Value::Array(links)));
    }
    Ok(Value::Object(Object::from_entries(entries)?))
}

/// A record whose shape was checked, borrowing the frozen action.
#[derive(Clone, Copy)]
pub(crate) struct Record<'v, 'a> {
    pub(crate) frozen: &'v Value<'a>,
    pub(crate) action_digest: Digest,
    pub(crate) approval_id: &'v str,
    pub(crate) decision_id: &'v str,
    pub(crate) approver: &'v str,
    pub(crate) role: Option<&'v str>,
    pub(crate) on_behalf_of: Option<&'v str>,
    pub(crate) delegation: Option<&'v [Value<'a>]>,
    pub(crate) proposed_digest: Option<Digest>,
    pub(crate) decision: Decision,
    pub(crate) decided_at: i64,
    pub(crate) expires_at: i64,
}

impl<'v> Record<'v, '_> {
    /// Who it counts as: its counting identity and, when it decided through a delegation,
    /// its delegate.
    pub(crate) fn identities(&self) -> (&'v str, Option<&'v str>) {
        match self.on_behalf_of {
            Some(root) => (root, Some(self.approver)),
            None => (self.approver, None),
        }
    }

    /// It as a quorum's [`tally`](crate::model::quorum::tally) takes it, decided through the
    /// delegation links whose digests are `delegations`.
    pub(crate) fn member(&self, delegations: Vec<Digest>) -> crate::model::quorum::Member {
        let (who, delegate) = self.identities();
        crate::model::quorum::Member {
            approver: who.to_owned(),
            role: self.role.map(str::to_owned),
            decision: self.decision,
            decided_at: self.decided_at,
            decision_id: self.decision_id.to_owned(),
            delegate: delegate.map(str::to_owned),
            delegations,
        }
    }
}

/// Checks the shape of an approval record (of one action).
pub(crate) fn read<'v, 'a>(v: &'v Value<'a>) -> Result<Record<'v, 'a>> {
    read_as(v, Subject::Action)
}

/// Checks the shape of a decision record about `subject`: its frozen subject is `frozen`, the
/// digest it claims `action_digest` (for a batch, the batch's header and digest).
pub(crate) fn read_as<'v, 'a>(v: &'v Value<'a>, subject: Subject) -> Result<Record<'v, 'a>> {
    read_subject(v, subject).map(|(r, _)| r)
}

/// [`read_as`], with a batch decision's header as read (`None` for an action's approval).
pub(crate) fn read_subject<'v, 'a>(
    v: &'v Value<'a>,
    subject: Subject,
) -> Result<(Record<'v, 'a>, Option<crate::batch::Header>)> {
    let f = Fields::new(v, Code::InvalidApproval, "approval", &FIELDS)?;
    let (frozen_key, digest_key) = subject.keys();
    let other = match subject {
        Subject::Action => Subject::Batch,
        Subject::Batch => Subject::Action,
    };
    let (other_frozen, other_digest) = other.keys();
    for key in [other_frozen, other_digest] {
        if f.get(key).is_some() {
            return Err(Error::new(
                Code::InvalidApproval,
                format!("a decision about one {frozen_key} has no {key:?}"),
            )
            .in_key(key));
        }
    }
    let approval_id = f.identity("approval_id")?;
    let decision_id = f.identity("decision_id")?;
    let approver = f.identity("approver")?;
    let authority = read_authority(&f)?;
    let decision = Decision::parse(f.string("decision")?)?;
    let decided_at = f.integer("decided_at", 0)?;
    let expires_at = f.integer("expires_at", 0)?;
    if expires_at <= decided_at {
        return Err(
            Error::new(Code::InvalidApproval, "expires_at must be after decided_at")
                .in_key("expires_at"),
        );
    }
    let action_digest = f.digest(digest_key)?;
    let proposed_digest = optional_digest(&f)?;
    check_proposed(proposed_digest, &action_digest)?;
    let frozen = f.required(frozen_key)?;
    let header = match subject {
        Subject::Action => crate::model::action::check_shape(frozen).map(|()| None),
        Subject::Batch => crate::batch::Header::from_value(frozen).map(Some),
    }
    .map_err(|e| e.in_key(frozen_key))?;
    let record = Record {
        frozen,
        action_digest,
        approval_id,
        decision_id,
        approver,
        role: authority.role,
        on_behalf_of: authority.on_behalf_of,
        delegation: authority.delegation,
        proposed_digest,
        decision,
        decided_at,
        expires_at,
    };
    Ok((record, header))
}

#[cfg(test)]
mod tests;
