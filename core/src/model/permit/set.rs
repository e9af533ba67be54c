//! The check of a set of approval records: each member checked as a single approval is,
//! then the set's own rules (one round, one decision each, one person once, separation of
//! duties, delegation), then the quorum.
//!
//! A member with any reason of its own does not count. Under a quorum, what counts goes to
//! [`tally`], and the verdict says where the quorum stands
//! ([`crate::model::quorum::QuorumState`]). Without one, the contract asks for one approval,
//! which any rejection vetoes: every member must hold, and a member that does not count has a
//! reason, so nothing is tallied, and [`super::check`] of one record gives what it always
//! gave. The verdict gives the union of every reason, in [`Reason::ALL`] order.

use super::{diff, Context, Verdict};
use crate::json::digest::Digest;
use crate::json::value::Value;
use crate::model::action::field;
use crate::model::approval::{self, Approval, Decision, Record};
use crate::model::contract::Contract;
use crate::model::delegation::{verify_chain, Chain, ChainFacts, LinkSource};
use crate::model::proof::{self, Opened, ProofPolicy};
use crate::model::quorum::{tally, Duty, Veto};
use crate::model::reason::{Outcome, Reason};
use crate::Result;

// A chain is judged against the check's own time, proof policy and links' provenance.
impl ChainFacts for Context {
    fn now(&self) -> i64 {
        Context::now(self)
    }
    fn link_source(&self) -> LinkSource {
        self.link_source
    }
    fn proof(&self) -> Option<&ProofPolicy> {
        Context::proof(self)
    }
}

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
        return decide(&mut [Presented::Invalid], action, ctx);
    }
    // A signed or passkey-approved record counts only once its proof holds.
    let mut payloads: Vec<Vec<u8>> = approvals.iter().map(|_| Vec::new()).collect();
    let opened: Vec<Opened<'_, '_, '_>> = approvals
        .iter()
        .zip(payloads.iter_mut())
        .map(|(a, payload)| proof::open(Some(a), ctx.proof(), ctx.now, payload))
        .collect();
    let mut presented: Vec<Presented<'_, '_>> = opened.iter().map(Presented::opened).collect();
    decide(&mut presented, action, ctx)
}

/// A set of reasons, listed in [`Reason::ALL`] order (a bit per reason: a check allocates
/// nothing to collect them).
#[derive(Clone, Copy, Default)]
struct Reasons(u64);

const _: () = assert!(Reason::ALL.len() <= 64);

impl Reasons {
    fn insert(&mut self, r: Reason) {
        self.0 |= 1 << r as u32;
    }

    fn contains(self, r: Reason) -> bool {
        self.0 & (1 << r as u32) != 0
    }

    fn is_empty(self) -> bool {
        self.0 == 0
    }

    fn extend(&mut self, other: Reasons) {
        self.0 |= other.0;
    }

    fn to_vec(self) -> Vec<Reason> {
        let mut bits = self.0;
        let mut out = Vec::with_capacity(bits.count_ones() as usize);
        while bits != 0 {
            out.push(Reason::ALL[bits.trailing_zeros() as usize]);
            bits &= bits - 1;
        }
        out
    }
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

impl<'v> Presented<'v, 'v> {
    /// An approval whose proof was opened: its record read, unless refused.
    pub(super) fn opened(o: &'v Opened<'_, '_, '_>) -> Presented<'v, 'v> {
        match (o.refused(), o.record()) {
            (Some(reason), _) => Presented::Refused(reason),
            // A `null` member of a set is not a record.
            (None, None) => Presented::Invalid,
            (None, Some(v)) => match approval::read(v) {
                Ok(r) => Presented::Record(r, None),
                Err(_) => Presented::Invalid,
            },
        }
    }
}

/// The delegation chain a record decided through (none without delegation), or why it does
/// not hold ([`verify_chain`], then the context's revocation facts).
fn chain_of(record: &Record<'_, '_>, action: &Value<'_>, ctx: &Context) -> Result<Chain, Reason> {
    match (record.delegation, record.on_behalf_of) {
        (None, _) => Ok(Chain::default()),
        (Some(links), Some(root)) => {
            verify_chain(links, root, record.approver, record.decided_at, action, ctx)?
                .unrevoked(|digest| ctx.delegation_revoked(digest))
        }
        // A record reads only with both (`invalid_approval` otherwise).
        (Some(_), None) => Err(Reason::DelegationInvalid),
    }
}

/// The verdict for the approvals presented (in place, each record that is not sealed becomes
/// `invalid_approval`, so a check of one approval allocates no set).
pub(super) fn decide(
    presented: &mut [Presented<'_, '_>],
    action: &Value<'_>,
    ctx: &Context,
) -> Verdict {
    decide_known(presented, action, None, ctx)
}

/// [`decide`], given the presented action's fingerprint when the caller already has it (a
/// batch item's check computed it for the inclusion proof).
pub(super) fn decide_known(
    presented: &mut [Presented<'_, '_>],
    action: &Value<'_>,
    known: Option<Digest>,
    ctx: &Context,
) -> Verdict {
    // Under a contract that marks values sensitive, the action is presented in the clear and
    // approvals froze it committed: it is compared as committed again with the context's
    // salts, and its arguments are checked in the clear.
    let sensitive = ctx.contract.as_ref().and_then(Contract::sensitive);
    // An action presented committed, as it was frozen, is read in the clear first.
    let opened =
        sensitive.and_then(|s| crate::sensitive::reveal_presented(s, action, &ctx.disclosures));
    let action = opened.as_ref().unwrap_or(action);
    let recommitted = sensitive.map(|s| crate::sensitive::recommit(s, action, &ctx.disclosures));
    let (clear, action) = (action, recommitted.as_ref().unwrap_or(action));
    let known = known.filter(|_| sensitive.is_none());
    // A presented action equal to a loaded approval's frozen one has its fingerprint: equal
    // values have the same canonical form (numbers compare as doubles, and `-0` and `0` are
    // both written `0`), so it is not hashed again. Any other is fingerprinted.
    let action_digest = known
        .or_else(|| {
            presented.iter().find_map(|p| match p {
                Presented::Record(_, Some(a))
                    if std::ptr::eq(a.action().value(), action) || a.action().value() == action =>
                {
                    Some(a.action().digest())
                }
                _ => None,
            })
        })
        .unwrap_or_else(|| crate::fingerprint(action));
    let frozen = seal(presented, action, &action_digest, ctx);
    let presented = &*presented;

    let quorum = ctx.contract.as_ref().and_then(Contract::quorum);
    let mut reasons = Reasons::default();
    let mut drift = Vec::new();
    let mut set = SetRules::new(presented);
    let mut members = Vec::new();
    let mut disclosure_error = None;
    // Whether a member's frozen action that is the presented value itself (a binding found
    // them the same) was compared with the context: the presented one is then not compared
    // again, since `check_record` compares the same fields as `check_action`.
    let mut compared = false;
    for p in presented {
        let r = match p {
            Presented::Invalid => {
                reasons.insert(Reason::InvalidApproval);
                continue;
            }
            Presented::Refused(reason) => {
                reasons.insert(*reason);
                continue;
            }
            Presented::Record(r, _) => r,
        };
        // Under veto `none` a rejection neither counts nor gives a reason.
        if r.decision == Decision::Rejected && quorum.is_some_and(|q| q.veto == Veto::None) {
            continue;
        }
        let mut own = Reasons::default();
        if r.decision == Decision::Rejected {
            own.insert(Reason::DecisionRejected);
        }
        if let Some(s) = sensitive {
            let every = crate::sensitive::Coverage::Every;
            if let Err(e) = crate::sensitive::verify(s, r.frozen, &ctx.disclosures, every) {
                own.insert(Reason::DisclosureInvalid);
                disclosure_error.get_or_insert(e);
            }
        }
        let chain = chain_of(r, clear, ctx)
            .map_err(|reason| own.insert(reason))
            .ok();
        check_record(
            r,
            action,
            &action_digest,
            chain.as_ref(),
            ctx,
            &mut own,
            &mut drift,
        );
        compared |= std::ptr::eq(r.frozen, action);
        set.check(r, &mut own);
        // Without a quorum nothing is tallied: a member that does not count has a reason.
        if own.is_empty() && quorum.is_some() {
            members.push(r.member(chain.map(|c| c.links).unwrap_or_default()));
        }
        reasons.extend(own);
    }
    let mut checked = check_action(clear, ctx, frozen, !compared);
    reasons.extend(checked.reasons);
    if presented.is_empty() && checked.requirement != Some(false) {
        reasons.insert(Reason::NoApproval);
    }

    let state = quorum.map(|q| tally(q, &members));
    if let (Some(q), Some(state)) = (quorum, &state) {
        if q.out_of_order(&state.counted) {
            reasons.insert(Reason::QuorumOutOfOrder);
        }
        if !presented.is_empty() && checked.requirement != Some(false) && !state.holds() {
            reasons.insert(Reason::QuorumShort);
        }
    }

    let reasons = reasons.to_vec();
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
        approved_digest: set.round.map(|(_, digest)| digest),
        action_error: checked.action_error.take().or(disclosure_error),
        quorum: state,
    }
}

/// What the first member that is a frozen copy of the presented action tells the check: that
/// the action's shape was checked when the record was read, and (when loaded) the approval
/// that keeps the check of its arguments.
#[derive(Clone, Copy, Default)]
struct Frozen<'v> {
    same: bool,
    loaded: Option<&'v Approval>,
}

/// Turns every record that is not sealed (its claimed digest is not its frozen action's
/// fingerprint) or holds longer than the contract in force allows into `invalid_approval`.
/// The frozen action usually equals the presented one, whose fingerprint is then known.
fn seal<'v>(
    presented: &mut [Presented<'v, '_>],
    action: &Value<'_>,
    action_digest: &Digest,
    ctx: &Context,
) -> Frozen<'v> {
    let cap = ctx.contract.as_ref().and_then(Contract::max_approval_ms);
    let mut frozen = Frozen::default();
    for p in presented.iter_mut() {
        let Presented::Record(r, approval) = p else {
            continue;
        };
        let known = approval.map(|a| a.action().digest());
        let same = match known {
            Some(d) => d == *action_digest,
            None => std::ptr::eq(r.frozen, action) || r.frozen == action,
        };
        if same && !frozen.same {
            frozen = Frozen {
                same,
                loaded: *approval,
            };
        }
        let frozen_digest = match known {
            Some(d) => d,
            None if same => *action_digest,
            None => crate::fingerprint(r.frozen),
        };
        let sealed = r.action_digest.ct_eq(&frozen_digest)
            && cap.is_none_or(|cap| r.expires_at - r.decided_at <= cap);
        if !sealed {
            *p = Presented::Invalid;
        }
    }
    frozen
}

/// What the presented action alone gives: its reasons, its error, and whether it needs an
/// approval (`None`: cannot be told).
struct ActionCheck {
    reasons: Reasons,
    action_error: Option<crate::Error>,
    requirement: Option<bool>,
}

/// `compare`: whether to compare the action's fields with the context.
fn check_action(
    action: &Value<'_>,
    ctx: &Context,
    frozen: Frozen<'_>,
    compare: bool,
) -> ActionCheck {
    let contract = ctx.contract.as_ref();
    let mut reasons = Reasons::default();
    let mut action_error = if frozen.same {
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
        let checked = match frozen.loaded {
            Some(a) => a.args_checked(c, check),
            None => check(),
        };
        match checked {
            Ok(required) => requirement = Some(required),
            Err(e) => action_error = Some(e.in_key("args")),
        }
    }
    if action_error.is_some() {
        reasons.insert(Reason::InvalidAction);
    }
    if !known_tool {
        reasons.insert(Reason::UnknownTool);
    }
    // Compared with the context only when well-formed (each member's frozen action is, too).
    let differs =
        |key: &str, want: &str| compare && action_error.is_none() && field(action, key) != want;
    if differs("tenant", &ctx.tenant) {
        reasons.insert(Reason::TenantMismatch);
    }
    if !ctx.subject.flag || differs("subject", &ctx.subject.about) {
        reasons.insert(Reason::SubjectUnauthorized);
    }
    if differs("policy_version", &ctx.policy_version) {
        reasons.insert(Reason::PolicyDrift);
    }
    if contract.is_some_and(|c| differs("contract", c.digest_text())) {
        reasons.insert(Reason::ContractDrift);
    }
    ActionCheck {
        reasons,
        action_error,
        requirement,
    }
}

/// The set's own rules, member after member: one round and one action (the first sealed
/// record's), each decision once, each person once among the approving members.
struct SetRules<'v> {
    round: Option<(&'v str, Digest)>,
    /// Whether there is anything to compare (a set of one is its own round).
    several: bool,
    decisions: Vec<&'v str>,
    approving: Vec<(&'v str, Option<&'v str>)>,
}

impl<'v> SetRules<'v> {
    fn new(presented: &'v [Presented<'v, '_>]) -> SetRules<'v> {
        let round = presented.iter().find_map(|p| match p {
            Presented::Record(r, _) => Some((r.approval_id, r.action_digest)),
            Presented::Invalid | Presented::Refused(_) => None,
        });
        SetRules {
            round,
            several: presented.len() > 1,
            decisions: Vec::new(),
            approving: Vec::new(),
        }
    }

    fn check(&mut self, r: &Record<'v, '_>, own: &mut Reasons) {
        if !self.several {
            return;
        }
        if self.decisions.contains(&r.decision_id) {
            own.insert(Reason::DuplicateDecision);
        }
        self.decisions.push(r.decision_id);
        if self
            .round
            .is_some_and(|(id, digest)| id != r.approval_id || !digest.ct_eq(&r.action_digest))
        {
            own.insert(Reason::OtherRound);
        }
        if r.decision != Decision::Approved || own.contains(Reason::DuplicateDecision) {
            return;
        }
        let (who, delegate) = r.identities();
        let same = |(w, d): &(&str, Option<&str>)| {
            [Some(*w), *d]
                .iter()
                .flatten()
                .any(|i| *i == who || Some(*i) == delegate)
        };
        if self.approving.iter().any(same) {
            own.insert(Reason::ApproverCountedTwice);
        }
        self.approving.push((who, delegate));
    }
}

/// The reasons one sealed record gives on its own, as a single approval's check gives them,
/// and the duties it breaks: judged on its counting identity and on every delegate along the
/// `chain` it decided through (so a subject or proposer cannot pass a delegation on either).
fn check_record(
    r: &Record<'_, '_>,
    action: &Value<'_>,
    action_digest: &Digest,
    chain: Option<&Chain>,
    ctx: &Context,
    own: &mut Reasons,
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
            // Two commitments differ in their digest: the drift is the value's, at its place.
            let p = crate::model::sensitive::place_of_difference(frozen, action, p);
            if !drift.contains(&p) {
                drift.push(p);
            }
        }
        own.insert(Reason::ActionDrift);
    }
    if ctx.now >= r.expires_at {
        own.insert(Reason::Expired);
    }
    let (who, delegate) = r.identities();
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
    let along = chain.map_or(&[][..], |c| &c.delegates[..]);
    let is = |name: &str| name == who || Some(name) == delegate || along.iter().any(|d| d == name);
    let names = |named: &super::Named| match named {
        super::Named::Unknown => true,
        super::Named::NoOne => false,
        super::Named::Is(n) => is(n),
    };
    let duties = ctx.contract.as_ref().map_or(&[][..], Contract::separation);
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
