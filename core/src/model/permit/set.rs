//! The check of a set of approval records: each member checked as a single approval is,
//! then the set's own rules (one round, one decision each, one person once, separation of
//! duties, delegation), then the quorum.
//!
//! A member with any reason of its own does not count. What counts goes to
//! [`tally`]; the verdict gives the union of every reason, in [`Reason::ALL`] order, and, when
//! the contract in force has a quorum, where it stands ([`QuorumState`]). A single record is a
//! set of one, under a contract without a quorum a quorum of one vetoed by any rejection, so
//! [`super::check`] gives what it always gave.

use super::{diff, Context, Verdict};
use crate::json::digest::Digest;
use crate::json::value::Value;
use crate::model::action::field;
use crate::model::approval::{self, Approval, Decision, Record};
use crate::model::contract::Contract;
use crate::model::proof::{self, Opened};
use crate::model::quorum::{tally, Duty, Member, Quorum, Veto};
use crate::model::reason::{Outcome, Reason};
use crate::Result;
use std::collections::BTreeSet;

/// The most records one set may hold; a larger set is `invalid_approval`.
pub const MAX_SET: usize = 32;

/// Checks a presented action against a set of approval records (each a bare record, a DSSE
/// envelope or a passkey-approved record, as [`super::check`] takes one; an empty set is no
/// approval) and the trusted context given as JSON. Only a malformed context is an error.
pub fn check_set(
    approvals: &[Value<'_>],
    action: &Value<'_>,
    context: &Value<'_>,
) -> Result<Verdict> {
    Ok(check_set_with(
        approvals,
        action,
        &Context::from_value(context)?,
    ))
}

/// [`check_set`] with a context already read.
pub fn check_set_with(approvals: &[Value<'_>], action: &Value<'_>, ctx: &Context) -> Verdict {
    if approvals.len() > MAX_SET {
        // Not opened at all: each member may cost a signature check.
        return decide(vec![Presented::Invalid], action, ctx);
    }
    // A signed or passkey-approved record counts only once its proof holds.
    let mut payloads: Vec<Vec<u8>> = approvals.iter().map(|_| Vec::new()).collect();
    let opened: Vec<Opened<'_, '_, '_>> = approvals
        .iter()
        .zip(payloads.iter_mut())
        .map(|(a, payload)| proof::open(Some(a), ctx.proof(), ctx.now, payload))
        .collect();
    let presented = opened
        .iter()
        .map(|o| match (o.refused(), o.record()) {
            (Some(reason), _) => Presented::Refused(reason),
            // A `null` member is not a record.
            (None, None) => Presented::Invalid,
            (None, Some(v)) => match approval::read(v) {
                Ok(r) => Presented::Record(r, None),
                Err(_) => Presented::Invalid,
            },
        })
        .collect();
    decide(presented, action, ctx)
}

/// One approval a check was given.
pub(super) enum Presented<'v, 'a> {
    /// Malformed.
    Invalid,
    /// Its proof does not hold, for this reason.
    Refused(Reason),
    /// Well-formed (and proven where the context asks for proof); loaded, when it was.
    Record(Record<'v, 'a>, Option<&'v Approval>),
}

/// A member once read: refused, or a record with what was learnt about it.
enum Seen<'v, 'a> {
    /// Malformed, tampered, held too long, or its proof refused: this reason.
    Refused(Reason),
    /// A sealed record.
    Record(Record<'v, 'a>),
}

/// The delegation chain a record decided through: its links' digests, root first (none
/// without delegation), or why it does not hold.
///
/// The chain is verified in the delegation module (`model/delegation.rs`, `verify_chain`);
/// until it is wired in here, a record that carries a delegation fails closed.
fn chain_of(
    record: &Record<'_, '_>,
    _action: &Value<'_>,
    _ctx: &Context,
) -> Result<Vec<Digest>, Reason> {
    match record.delegation {
        None => Ok(Vec::new()),
        Some(_) => Err(Reason::DelegationInvalid),
    }
}

/// Who a record counts as: its counting identity and, when it decided through a delegation,
/// its delegate.
fn identities<'v>(r: &Record<'v, '_>) -> (&'v str, Option<&'v str>) {
    match r.on_behalf_of {
        Some(root) => (root, Some(r.approver)),
        None => (r.approver, None),
    }
}

pub(super) fn decide(
    presented: Vec<Presented<'_, '_>>,
    action: &Value<'_>,
    ctx: &Context,
) -> Verdict {
    let mut reasons = BTreeSet::new();
    let mut drift = Vec::new();
    // A presented action equal to a loaded approval's frozen one has its fingerprint: equal
    // values have the same canonical form (numbers compare as doubles, and `-0` and `0` are
    // both written `0`), so it is not hashed again. Any other is fingerprinted.
    let action_digest = presented
        .iter()
        .find_map(|p| match p {
            Presented::Record(_, Some(a))
                if std::ptr::eq(a.action().value(), action) || a.action().value() == action =>
            {
                Some(a.action().digest())
            }
            _ => None,
        })
        .unwrap_or_else(|| crate::fingerprint(action));

    // Each member: refused, or sealed (its claimed digest is its frozen action's fingerprint)
    // and valid for as long as the contract in force lets an approval hold. The frozen action
    // usually equals the presented one, whose fingerprint is then already known and whose
    // shape is then already checked.
    let contract = ctx.contract.as_ref();
    let cap = contract.and_then(Contract::max_approval_ms);
    let none_presented = presented.is_empty();
    let mut same_as_frozen = false;
    let mut loaded = None;
    let seen: Vec<Seen<'_, '_>> = presented
        .into_iter()
        .map(|p| match p {
            Presented::Invalid => Seen::Refused(Reason::InvalidApproval),
            Presented::Refused(reason) => Seen::Refused(reason),
            Presented::Record(r, approval) => {
                let known = approval.map(|a| a.action().digest());
                let same = match known {
                    Some(d) => d == action_digest,
                    None => r.frozen == action,
                };
                if same && !same_as_frozen {
                    same_as_frozen = true;
                    loaded = approval;
                }
                let frozen_digest = match known {
                    Some(d) => d,
                    None if same => action_digest,
                    None => crate::fingerprint(r.frozen),
                };
                let sealed = r.action_digest.ct_eq(&frozen_digest)
                    && cap.is_none_or(|cap| r.expires_at - r.decided_at <= cap);
                if sealed {
                    Seen::Record(r)
                } else {
                    Seen::Refused(Reason::InvalidApproval)
                }
            }
        })
        .collect();
    let records = || {
        seen.iter().filter_map(|s| match s {
            Seen::Record(r) => Some(r),
            Seen::Refused(_) => None,
        })
    };

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
            Some(a) => a.args_checked(c, check),
            None => check(),
        };
        match checked {
            Ok(required) => requirement = Some(required),
            Err(e) => action_error = Some(e.in_key("args")),
        }
    }

    if none_presented && requirement != Some(false) {
        reasons.insert(Reason::NoApproval);
    }
    if action_error.is_some() {
        reasons.insert(Reason::InvalidAction);
    }
    if !known_tool {
        reasons.insert(Reason::UnknownTool);
    }
    // The presented action, when it can be compared with the context.
    let presented_action = valid_action.then_some(action);
    if presented_action.is_some_and(|a| field(a, "tenant") != ctx.tenant) {
        reasons.insert(Reason::TenantMismatch);
    }
    if !ctx.subject.flag
        || presented_action.is_some_and(|a| field(a, "subject") != ctx.subject.about)
    {
        reasons.insert(Reason::SubjectUnauthorized);
    }
    if presented_action.is_some_and(|a| field(a, "policy_version") != ctx.policy_version) {
        reasons.insert(Reason::PolicyDrift);
    }
    if contract
        .is_some_and(|c| presented_action.is_some_and(|a| field(a, "contract") != c.digest_text()))
    {
        reasons.insert(Reason::ContractDrift);
    }

    let quorum = contract.and_then(Contract::quorum);
    static SINGLE: Quorum = Quorum::SINGLE;
    let rule = quorum.unwrap_or(&SINGLE);
    let duties = contract.map_or(&[][..], Contract::separation);
    let round = records().next().map(|r| (r.approval_id, r.action_digest));
    let mut decisions: Vec<&str> = Vec::new();
    let mut approving: Vec<(&str, Option<&str>)> = Vec::new();
    let mut members = Vec::new();
    for s in &seen {
        let r = match s {
            Seen::Refused(reason) => {
                reasons.insert(*reason);
                continue;
            }
            Seen::Record(r) => r,
        };
        // Under veto `none` a rejection neither counts nor gives a reason.
        if r.decision == Decision::Rejected && rule.veto == Veto::None {
            continue;
        }
        let mut own = BTreeSet::new();
        if r.decision == Decision::Rejected {
            own.insert(Reason::DecisionRejected);
        }
        check_record(r, action, &action_digest, ctx, duties, &mut own, &mut drift);
        let chain = chain_of(r, action, ctx)
            .map_err(|reason| own.insert(reason))
            .ok();
        // The set's own rules: one decision once, one round, one person once.
        if decisions.contains(&r.decision_id) {
            own.insert(Reason::DuplicateDecision);
        }
        decisions.push(r.decision_id);
        if round.is_some_and(|(id, digest)| id != r.approval_id || !digest.ct_eq(&r.action_digest))
        {
            own.insert(Reason::OtherRound);
        }
        let (who, delegate) = identities(r);
        if r.decision == Decision::Approved && !own.contains(&Reason::DuplicateDecision) {
            let same = |(w, d): &(&str, Option<&str>)| {
                [Some(*w), *d]
                    .iter()
                    .flatten()
                    .any(|i| *i == who || Some(*i) == delegate)
            };
            if approving.iter().any(same) {
                own.insert(Reason::ApproverCountedTwice);
            }
            approving.push((who, delegate));
        }
        if own.is_empty() {
            members.push(Member {
                approver: who.to_owned(),
                role: r.role.map(str::to_owned),
                decision: r.decision,
                decided_at: r.decided_at,
                decision_id: r.decision_id.to_owned(),
                delegate: delegate.map(str::to_owned),
                delegations: chain.unwrap_or_default(),
            });
        }
        reasons.extend(own);
    }

    let state = tally(rule, &members);
    if rule.out_of_order(&state.counted) {
        reasons.insert(Reason::QuorumOutOfOrder);
    }
    // Without a quorum, a set of one that does not count already has its reason.
    if quorum.is_some() && !none_presented && requirement != Some(false) && !state.holds() {
        reasons.insert(Reason::QuorumShort);
    }

    let reasons: Vec<Reason> = reasons.into_iter().collect();
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
        approved_digest: records().next().map(|r| r.action_digest),
        action_error,
        quorum: quorum.map(|_| state),
    }
}

/// The reasons one sealed record gives on its own, as a single approval's check gives them,
/// and the duties it breaks.
fn check_record(
    r: &Record<'_, '_>,
    action: &Value<'_>,
    action_digest: &Digest,
    ctx: &Context,
    duties: &[Duty],
    own: &mut BTreeSet<Reason>,
    drift: &mut Vec<String>,
) {
    let frozen = r.frozen;
    if ctx.now < r.decided_at {
        own.insert(Reason::DecidedInFuture);
    }
    if field(frozen, "tenant") != ctx.tenant {
        own.insert(Reason::TenantMismatch);
    }
    if !r.action_digest.ct_eq(action_digest) {
        let mut found = Vec::new();
        diff(frozen, action, &mut String::new(), &mut found);
        for p in found {
            if !drift.contains(&p) {
                drift.push(p);
            }
        }
        own.insert(Reason::ActionDrift);
    }
    if ctx.now >= r.expires_at {
        own.insert(Reason::Expired);
    }
    let (who, delegate) = identities(r);
    if !ctx.approver_authorized(who) {
        own.insert(Reason::ApproverUnauthorized);
    }
    if field(frozen, "subject") != ctx.subject.about {
        own.insert(Reason::SubjectUnauthorized);
    }
    if field(frozen, "policy_version") != ctx.policy_version {
        own.insert(Reason::PolicyDrift);
    }
    if ctx
        .contract
        .as_ref()
        .is_some_and(|c| field(frozen, "contract") != c.digest_text())
    {
        own.insert(Reason::ContractDrift);
    }
    let revoked = ctx.revoked.as_ref().is_none_or(|facts| {
        super::facts::about(&facts.approvals, r.approval_id).is_none_or(|f| f.flag)
            || super::facts::about(&facts.decisions, r.decision_id).is_some_and(|f| f.flag)
    });
    if revoked {
        own.insert(Reason::Revoked);
    }
    if r.role
        .is_some_and(|role| !super::facts::holds(&ctx.roles, who, role))
    {
        own.insert(Reason::RoleNotHeld);
    }
    let is = |name: &str| name == who || Some(name) == delegate;
    let names = |named: &super::Named| match named {
        super::Named::Unknown => true,
        super::Named::NoOne => false,
        super::Named::Is(n) => is(n),
    };
    for duty in duties {
        let (broken, reason) = match duty {
            Duty::Subject => (
                is(field(frozen, "subject")) || is(field(action, "subject")),
                Reason::ApproverIsSubject,
            ),
            Duty::Proposer => (names(&ctx.proposer), Reason::ApproverIsProposer),
            Duty::Amender => (
                r.proposed_digest.is_some() && names(&ctx.amended_by),
                Reason::ApproverAmended,
            ),
        };
        if broken {
            own.insert(reason);
        }
    }
}

#[cfg(test)]
mod tests;
