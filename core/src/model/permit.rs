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
//!
//! `check_set(approvals, action, context)` checks a set of records (a quorum's decisions, at
//! most [`MAX_SET`]) the same way, member by member, then by the set's own rules (`set.rs`);
//! `check` is `check_set` of no record or one.

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::approval::Approval;
use crate::model::batch::BreakerState;
use crate::model::contract::Contract;
use crate::model::delegation::LinkSource;
use crate::model::fields::Fields;
use crate::model::proof::{self, ProofPolicy};
use crate::model::quorum::QuorumState;
use crate::model::reason::{Outcome, Reason};
use crate::model::sensitive::calls::read_disclosures;
use crate::model::sensitive::Disclosure;
use facts::{Fact, Facts, LinkFact, Named, Revocations, RoleFact, APPROVER_FACT, SUBJECT_FACT};
use std::borrow::Cow;
use std::sync::Arc;

mod facts;
mod item;
mod set;

pub use item::{
    check_batch, check_batch_values, check_batch_with, check_item, check_item_with, BatchVerdict,
};
use set::Presented;
pub use set::{check_set, check_set_with, MAX_SET};

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
///
/// For sets of approvals (quorums, separation of duties, delegation), these optional facts
/// (see `facts.rs`; at most one fact about one identity):
///
/// - `approver_authorized` may be an array of facts, one per counting identity;
/// - `approver_roles`: `[{"approver", "role", "holds"}]`, the roles approvers hold;
/// - `revoked` may be an array of facts each naming `approval_id` (required, as the single
///   fact is) or `decision_id` (`true` withdraws that decision);
/// - `proposer` and `amended_by`: who proposed the task and who amended its action before the
///   decision, an identifier or `null` (no one); when a duty needs one and it is absent, the
///   check fails closed;
/// - `delegations_revoked`: `[{"delegation": "sha256:...", "revoked"}]`, one per link.
///
/// When the contract marks values sensitive (see [`crate::sensitive`]), optionally
/// `"disclosures"`: the disclosures (base64url) of the approved action's commitments, as the
/// host stored them apart. The action is then presented in the clear, or committed as it was
/// frozen (what a resume presents), which the disclosures then open
/// ([`crate::sensitive::reveal_presented`]); the check commits the clear action again with the
/// disclosures' salts ([`crate::sensitive::recommit`]) and compares that with the approved
/// action, so a sensitive value that differs is drift at its place and never
/// appears in the verdict. A disclosure that does not read is an error with its own code
/// ([`Code::InvalidDisclosure`], [`Code::DisclosureNotCanonical`]) under `/disclosures`;
/// disclosures that do not open the approved action's commitments are the reason
/// `disclosure_invalid`, the code in `action_error`.
///
/// For an item of a batch, optionally `"breaker"`: the batch's circuit breaker, `closed`,
/// `open` or `half_open` (see [`crate::batch::Breaker`]); `open` gives `breaker_open`.
#[derive(Clone, Debug)]
pub struct Context {
    now: i64,
    tenant: String,
    policy_version: String,
    contract: Option<Contract>,
    approver: Option<Facts>,
    subject: Fact,
    revoked: Option<Revocations>,
    roles: Vec<RoleFact>,
    proposer: Named,
    amended_by: Named,
    links: Vec<LinkFact>,
    proof: Option<Arc<ProofPolicy>>,
    /// The state of the batch's circuit breaker, when the action is an item of a batch.
    breaker: Option<BreakerState>,
    /// The disclosures of the approved action's sensitive values.
    disclosures: Vec<Disclosure>,
    /// Where the delegation links checked against it come from: a ledger's claim context
    /// reads back the links its `decide` verified.
    pub(crate) link_source: LinkSource,
}

/// A context's members: the first [`REQUIRED_FIELDS`] required (all but `contract` when the
/// contract is given separately), the others optional.
const CONTEXT_FIELDS: [&str; 14] = [
    "now",
    "tenant",
    "policy_version",
    "contract",
    "approver_authorized",
    "subject_authorized",
    "revoked",
    "proof",
    "approver_roles",
    "proposer",
    "amended_by",
    "delegations_revoked",
    "breaker",
    "disclosures",
];

const REQUIRED_FIELDS: usize = 7;

impl Context {
    /// Reads a context; problems are [`Code::InvalidContext`] (or the contract's own error
    /// under `/contract`).
    pub fn from_value(v: &Value<'_>) -> Result<Context> {
        let f = Fields::new(v, Code::InvalidContext, "context", &CONTEXT_FIELDS)?;
        let contract = match f.required("contract")? {
            Value::Null => None,
            c => Some(Contract::from_value(c).map_err(|e| e.in_key("contract"))?),
        };
        Context::read(&f, contract, REQUIRED_FIELDS)
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
        Context::read(&f, contract, REQUIRED_FIELDS - 1)
    }

    /// Reads the context in `f`, which has `required` required members.
    fn read(f: &Fields<'_, '_>, contract: Option<Contract>, required: usize) -> Result<Context> {
        let mut ctx = Context {
            now: f.integer("now", 0)?,
            tenant: f.identity("tenant")?.to_owned(),
            policy_version: f.identity("policy_version")?.to_owned(),
            contract,
            approver: facts::facts(f, APPROVER_FACT)?,
            subject: facts::fact(f, SUBJECT_FACT)?,
            revoked: facts::revocations(f)?,
            roles: Vec::new(),
            proposer: Named::Unknown,
            amended_by: Named::Unknown,
            links: Vec::new(),
            proof: None,
            breaker: None,
            disclosures: Vec::new(),
            link_source: LinkSource::Presented,
        };
        // Every member is a distinct, known key: a context of required members alone (most
        // are; one is read for every check) has no optional one to look up.
        if f.len() > required {
            ctx.roles = facts::roles(f)?;
            ctx.proposer = facts::named(f, "proposer")?;
            ctx.amended_by = facts::named(f, "amended_by")?;
            ctx.links = facts::links(f)?;
            if f.get("breaker").is_some() {
                let state = BreakerState::parse(f.string("breaker")?);
                ctx.breaker =
                    Some(state.map_err(|e| e.with_code(Code::InvalidContext).in_key("breaker"))?);
            }
            if let Some(d) = f.get("disclosures") {
                ctx.disclosures = read_disclosures(d).map_err(|e| e.in_key("disclosures"))?;
            }
            if let Some(p) = f.get("proof") {
                let policy = ProofPolicy::from_value(p).map_err(|e| e.in_key("proof"))?;
                ctx.proof = Some(Arc::new(policy));
            }
        }
        Ok(ctx)
    }

    /// The context with this state of the batch's breaker (a ledger's, from its own row).
    pub fn with_breaker(mut self, state: Option<BreakerState>) -> Context {
        self.breaker = state;
        self
    }

    /// The context with this proof policy instead of its own (so a long-running executor
    /// reads its key set once).
    pub fn with_proof(mut self, policy: Option<Arc<ProofPolicy>>) -> Context {
        self.proof = policy;
        self
    }

    /// The context with these disclosures instead of its own (a ledger's, read apart from the
    /// approval).
    pub fn with_disclosures(mut self, disclosures: Vec<Disclosure>) -> Context {
        self.disclosures = disclosures;
        self
    }

    /// The disclosures of the approved action's sensitive values.
    pub fn disclosures(&self) -> &[Disclosure] {
        &self.disclosures
    }

    /// The proof policy, if the context has one.
    pub fn proof(&self) -> Option<&ProofPolicy> {
        self.proof.as_deref()
    }

    /// The tool's current contract, if the server has one.
    pub fn contract(&self) -> Option<&Contract> {
        self.contract.as_ref()
    }

    /// The server's time, in ms since the epoch.
    pub fn now(&self) -> i64 {
        self.now
    }

    /// Whether a fact says `approver` may approve (a counting identity: an approver, or the
    /// root delegator a delegate decides for).
    pub fn approver_authorized(&self, approver: &str) -> bool {
        self.approver
            .as_deref()
            .and_then(|f| facts::about(f, approver))
            .is_some_and(|f| f.flag)
    }

    /// What the context says about a delegation link, by its digest: `Some(revoked)`, or
    /// `None` when it has no fact about it (a chain then fails closed).
    pub fn delegation_revoked(&self, link: &Digest) -> Option<bool> {
        self.links
            .iter()
            .find(|f| f.delegation == *link)
            .map(|f| f.revoked)
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
    /// Why the action is invalid, with `invalid_action`; else why the context's disclosures do
    /// not open the approved action, with `disclosure_invalid`.
    pub action_error: Option<Error>,
    /// Where the quorum stands, exactly when the contract in force has a quorum.
    pub quorum: Option<QuorumState>,
}

impl Verdict {
    /// The verdict as JSON: `{"outcome", "reasons", "drift", "action_digest",
    /// "approved_digest", "action_error": null | {"code", "path"}}`, and `"quorum"`
    /// ([`QuorumState::to_value`]) when the contract in force has a quorum.
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
        let mut entries = vec![
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
        ];
        if let Some(q) = &self.quorum {
            entries.push(("quorum", q.to_value()));
        }
        object(entries)
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

/// [`check`] with a context already read: [`check_set_with`] of no record or one.
pub fn check_with(approval: Option<&Value<'_>>, action: &Value<'_>, ctx: &Context) -> Verdict {
    // As check_set_with of one record, without allocating a set.
    let v = match approval {
        None | Some(Value::Null) => return set::decide(&mut [], action, ctx),
        Some(v) => v,
    };
    let mut payload = Vec::new();
    let opened = proof::open(Some(v), ctx.proof(), ctx.now, &mut payload);
    set::decide(&mut [Presented::opened(&opened)], action, ctx)
}

/// [`check_with`] with an approval loaded once ([`Approval::from_value`]), as an executor that
/// checks the same approval repeatedly holds it: its record is not read again and its frozen
/// action not fingerprinted again. The verdict is the one [`check_with`] gives for the
/// record (a loaded approval is a bare record: a context that requires proof refuses it).
pub fn check_approval(approval: Option<&Approval>, action: &Value<'_>, ctx: &Context) -> Verdict {
    let Some(a) = approval else {
        return set::decide(&mut [], action, ctx);
    };
    // What `proof::open` finds in a loaded approval, which is a bare record.
    let presented = match proof::bare(ctx.proof()) {
        Some(reason) => Presented::Refused(reason),
        None => match a.record() {
            Some(r) => Presented::Record(r, Some(a)),
            None => Presented::Invalid,
        },
    };
    set::decide(&mut [presented], action, ctx)
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
mod disclosed_tests;
#[cfg(test)]
mod tests;
