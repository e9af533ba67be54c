//! Ledger requests as JSON objects: what the Python methods' arguments and the Node methods'
//! request objects become, read here once so that every binding accepts and refuses the same
//! requests with the same codes and paths.
//!
//! Each request has exactly its fields. A missing, unknown or mistyped one is
//! [`Code::InvalidRequest`] at its name; an optional field may also be `null`. The documents a
//! request carries (an action, a contract, facts, a result) are only taken here: the ledger
//! reads them with their own readers, codes and paths.

use crate::error::{Code, Error, Result};
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::fields::Fields;
use crate::model::ledger::amend::{Amendment, MAX_REASON_CHARS};
use crate::model::ledger::event::ChainHead;
use crate::model::ledger::heads::ExportedHeads;
use crate::model::ledger::state::{Observed, Reported, State};
use crate::model::proof::{ProofPolicy, ProofRequirement};

fn fields<'v, 'a>(v: &'v Value<'a>, what: &str, allowed: &[&str]) -> Result<Fields<'v, 'a>> {
    Fields::new(v, Code::InvalidRequest, what, allowed)
}

/// An optional member: absent and `null` are both `None`.
fn optional<'v, 'a>(f: &Fields<'v, 'a>, key: &str) -> Option<&'v Value<'a>> {
    f.get(key).filter(|v| !matches!(v, Value::Null))
}

/// An optional identity (absent or `null`: none).
fn optional_identity<'v>(f: &Fields<'v, '_>, key: &str) -> Result<Option<&'v str>> {
    match optional(f, key) {
        Some(_) => f.identity(key).map(Some),
        None => Ok(None),
    }
}

/// One of a fixed set of names, parsed.
fn named<T>(
    f: &Fields<'_, '_>,
    key: &str,
    all: &[T],
    name: impl Fn(&T) -> &'static str,
    parse: impl Fn(&str) -> Result<T>,
) -> Result<T> {
    let names: Vec<&'static str> = all.iter().map(name).collect();
    parse(f.one_of(key, &names)?)
}

/// The `proof` member: `"optional"` or `"required"`.
fn requirement(f: &Fields<'_, '_>) -> Result<ProofRequirement> {
    named(
        f,
        "proof",
        ProofRequirement::ALL,
        |r| r.as_str(),
        ProofRequirement::parse,
    )
}

/// `{"url", "proof"?}`: where a ledger lives (`sqlite:PATH`, `sqlite::memory:`,
/// `postgres://...`; the ledger parses it) and, optionally, the proof its decisions need:
/// `{"required", "keys"}` as in a check's trusted context ([`ProofPolicy`]; absent or `null`:
/// none, and a decision that carries proof is refused as `unknown_key`). A binding lifts its
/// clock object out of the request before reading it.
#[derive(Clone, Debug)]
pub struct Open<'v> {
    /// The ledger URL.
    pub url: &'v str,
    /// The keys that prove decisions, and whether every decision must be proven.
    pub proof: Option<ProofPolicy>,
}

impl<'v> Open<'v> {
    /// Reads an open request.
    pub fn from_value(v: &'v Value<'_>) -> Result<Open<'v>> {
        let f = fields(v, "the ledger's options", &["url", "proof"])?;
        let proof = optional(&f, "proof")
            .map(|p| ProofPolicy::from_value(p).map_err(|e| e.in_key("proof")))
            .transpose()?;
        Ok(Open {
            url: f.string("url")?,
            proof,
        })
    }
}

/// `{"task_id", "amends", "action", "reviewer", "reason", "contract"}`: a reviewer's
/// amendment (read by [`Amendment::from_value`]) and the task's contract as the server holds
/// it.
#[derive(Clone, Debug)]
pub struct Amend<'v, 'a> {
    /// The amendment.
    pub amendment: Amendment,
    /// The contract document the amended arguments must satisfy.
    pub contract: &'v Value<'a>,
}

impl<'v, 'a> Amend<'v, 'a> {
    /// Reads an amendment request.
    pub fn from_value(v: &'v Value<'a>) -> Result<Amend<'v, 'a>> {
        let mut keys = crate::model::ledger::amend::FIELDS.to_vec();
        keys.push("contract");
        let f = fields(v, "an amendment", &keys)?;
        let contract = f.required("contract")?;
        let rest: Vec<_> = v
            .as_object()
            .map(|o| {
                o.iter()
                    .filter(|(k, _)| *k != "contract")
                    .map(|(k, x)| (k.to_owned().into(), x.clone().into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        let rest: OwnedValue = Value::Object(Object::from_entries(rest)?);
        Ok(Amend {
            amendment: Amendment::from_value(&rest)?,
            contract,
        })
    }
}

/// `{"action", "contract", "proposer"}`: a proposal.
#[derive(Clone, Copy, Debug)]
pub struct Propose<'v, 'a> {
    /// The action envelope.
    pub action: &'v Value<'a>,
    /// The contract document it was made under.
    pub contract: &'v Value<'a>,
    /// Who proposes it (the agent).
    pub proposer: &'v str,
}

impl<'v, 'a> Propose<'v, 'a> {
    /// Reads a proposal request.
    pub fn from_value(v: &'v Value<'a>) -> Result<Propose<'v, 'a>> {
        let f = fields(v, "a proposal", &["action", "contract", "proposer"])?;
        Ok(Propose {
            action: f.required("action")?,
            contract: f.required("contract")?,
            proposer: f.identity("proposer")?,
        })
    }
}

/// `{"task_id", "action", "facts", "executor", "lease_ms", "budget"?, "proof"?}`: a claim;
/// `proof` is `"required"` or `"optional"` (absent or `null`: optional), the least the claim
/// requires of the task's decision.
#[derive(Clone, Copy, Debug)]
pub struct Claim<'v, 'a> {
    /// The task.
    pub task_id: &'v str,
    /// The action the executor presents for dispatch.
    pub action: &'v Value<'a>,
    /// The executor's trusted facts from its own server (see [`super::FACT_FIELDS`]; `now`
    /// and `revoked` come from the ledger).
    pub facts: &'v Value<'a>,
    /// Who claims: the executor's identity.
    pub executor: &'v str,
    /// The lease in ms (a positive integer): complete before it runs out, or the task
    /// becomes `unknown`.
    pub lease_ms: i64,
    /// The budget account to reserve the contract's cost on, if any.
    pub budget: Option<&'v str>,
    /// The least this claim requires of the task's decision: with
    /// [`ProofRequirement::Required`], a task whose decision was recorded without proof is
    /// refused (`missing_proof`, nothing changes: revoke the approval to send the task back
    /// for a proven decision). The ledger's own policy may require it anyway.
    pub proof: ProofRequirement,
}

impl<'v, 'a> Claim<'v, 'a> {
    /// Reads a claim request.
    pub fn from_value(v: &'v Value<'a>) -> Result<Claim<'v, 'a>> {
        let f = fields(
            v,
            "a claim",
            &[
                "task_id", "action", "facts", "executor", "lease_ms", "budget", "proof",
            ],
        )?;
        let t = ClaimTerms::read(&f)?;
        Ok(Claim {
            task_id: f.identity("task_id")?,
            action: f.required("action")?,
            facts: t.facts,
            executor: t.executor,
            lease_ms: t.lease_ms,
            budget: t.budget,
            proof: t.proof,
        })
    }
}

/// What every claim gives besides what it claims (a task, a batch's items): read once for
/// [`Claim`] and [`ClaimBatch`].
struct ClaimTerms<'v, 'a> {
    facts: &'v Value<'a>,
    executor: &'v str,
    lease_ms: i64,
    budget: Option<&'v str>,
    proof: ProofRequirement,
}

impl<'v, 'a> ClaimTerms<'v, 'a> {
    fn read(f: &Fields<'v, 'a>) -> Result<ClaimTerms<'v, 'a>> {
        let proof = match optional(f, "proof") {
            Some(_) => requirement(f)?,
            None => ProofRequirement::Optional,
        };
        Ok(ClaimTerms {
            facts: f.required("facts")?,
            executor: f.identity("executor")?,
            lease_ms: f.integer("lease_ms", 1)?,
            budget: optional_identity(f, "budget")?,
            proof,
        })
    }
}

/// `{"task_id", "fence", "outcome", "executor", "result"?}`: an executor's report.
#[derive(Clone, Copy, Debug)]
pub struct Complete<'v, 'a> {
    /// The task.
    pub task_id: &'v str,
    /// The fence token of the claim.
    pub fence: i64,
    /// What happened.
    pub outcome: Reported,
    /// Who reports.
    pub executor: &'v str,
    /// What the business system answered (any JSON; `null` or absent: nothing).
    pub result: Option<&'v Value<'a>>,
}

impl<'v, 'a> Complete<'v, 'a> {
    /// Reads a completion request.
    pub fn from_value(v: &'v Value<'a>) -> Result<Complete<'v, 'a>> {
        let f = fields(
            v,
            "a completion",
            &["task_id", "fence", "outcome", "executor", "result"],
        )?;
        Ok(Complete {
            task_id: f.identity("task_id")?,
            fence: f.integer("fence", 0)?,
            outcome: named(
                &f,
                "outcome",
                Reported::ALL,
                |r| r.as_str(),
                Reported::parse,
            )?,
            executor: f.identity("executor")?,
            result: optional(&f, "result"),
        })
    }
}

/// `{"proof", "actor", "reason"}`: an explicit change of the ledger's proof requirement
/// (`"optional"` or `"required"`), by whom and why (1 to [`MAX_REASON_CHARS`] characters,
/// kept in the audit: say why, never argument values).
#[derive(Clone, Copy, Debug)]
pub struct SetProofRequirement<'v> {
    /// The new requirement.
    pub proof: ProofRequirement,
    /// Who changes it.
    pub actor: &'v str,
    /// Why.
    pub reason: &'v str,
}

impl<'v> SetProofRequirement<'v> {
    /// Reads a policy change request.
    pub fn from_value(v: &'v Value<'_>) -> Result<SetProofRequirement<'v>> {
        let f = fields(v, "a policy change", &["proof", "actor", "reason"])?;
        let reason = f.string("reason")?;
        let chars = reason.chars().count();
        if chars == 0 || chars > MAX_REASON_CHARS {
            return Err(Error::new(
                Code::InvalidRequest,
                format!("a reason is 1 to {MAX_REASON_CHARS} characters, not {chars}"),
            )
            .in_key("reason"));
        }
        Ok(SetProofRequirement {
            proof: requirement(&f)?,
            actor: f.identity("actor")?,
            reason,
        })
    }
}

/// `{"task_id", "observed", "actor", "result"?}`: what the business system answered about a
/// task in doubt.
#[derive(Clone, Copy, Debug)]
pub struct Reconcile<'v, 'a> {
    /// The task.
    pub task_id: &'v str,
    /// What the business system says happened.
    pub observed: Observed,
    /// Who reconciles.
    pub actor: &'v str,
    /// Its answer (any JSON; `null` or absent: nothing).
    pub result: Option<&'v Value<'a>>,
}

impl<'v, 'a> Reconcile<'v, 'a> {
    /// Reads a reconciliation request.
    pub fn from_value(v: &'v Value<'a>) -> Result<Reconcile<'v, 'a>> {
        let f = fields(
            v,
            "a reconciliation",
            &["task_id", "observed", "actor", "result"],
        )?;
        Ok(Reconcile {
            task_id: f.identity("task_id")?,
            observed: named(
                &f,
                "observed",
                Observed::ALL,
                |o| o.as_str(),
                Observed::parse,
            )?,
            actor: f.identity("actor")?,
            result: optional(&f, "result"),
        })
    }
}

/// `{"approval_id", "actor"}`: a revocation.
#[derive(Clone, Copy, Debug)]
pub struct Revoke<'v> {
    /// The approval.
    pub approval_id: &'v str,
    /// Who revokes it.
    pub actor: &'v str,
}

impl<'v> Revoke<'v> {
    /// Reads a revocation request.
    pub fn from_value(v: &'v Value<'_>) -> Result<Revoke<'v>> {
        let f = fields(v, "a revocation", &["approval_id", "actor"])?;
        Ok(Revoke {
            approval_id: f.identity("approval_id")?,
            actor: f.identity("actor")?,
        })
    }
}

/// `{"name", "limit_minor"}`: a budget account's limit.
#[derive(Clone, Copy, Debug)]
pub struct SetBudget<'v> {
    /// The account.
    pub name: &'v str,
    /// The most that may be spent, in minor units.
    pub limit_minor: i64,
}

impl<'v> SetBudget<'v> {
    /// Reads a budget limit request.
    pub fn from_value(v: &'v Value<'_>) -> Result<SetBudget<'v>> {
        let f = fields(v, "a budget limit", &["name", "limit_minor"])?;
        Ok(SetBudget {
            name: f.identity("name")?,
            limit_minor: f.integer("limit_minor", 0)?,
        })
    }
}

/// `{"state"?, "tenant"?, "since"?, "until"?}`: which tasks to list (absent or `null`: any).
#[derive(Clone, Copy, Debug)]
pub struct Filter<'v> {
    /// Only tasks in this state.
    pub state: Option<State>,
    /// Only tasks of this tenant.
    pub tenant: Option<&'v str>,
    /// Only those at or after this time (ms since the epoch): a task's proposal, an event's time.
    pub since: Option<i64>,
    /// Only those before this time (ms, exclusive).
    pub until: Option<i64>,
}

const FILTER: [&str; 4] = ["state", "tenant", "since", "until"];

impl<'v> Filter<'v> {
    /// Reads a task filter.
    pub fn from_value(v: &'v Value<'_>) -> Result<Filter<'v>> {
        Filter::read(&fields(v, "a task filter", &FILTER)?)
    }

    fn read(f: &Fields<'v, '_>) -> Result<Filter<'v>> {
        let state = match optional(f, "state") {
            Some(_) => Some(named(f, "state", State::ALL, |s| s.as_str(), State::parse)?),
            None => None,
        };
        let time = |key| {
            optional(f, key)
                .map(|_| f.integer(key, i64::MIN + 1))
                .transpose()
        };
        Ok(Filter {
            state,
            tenant: optional_identity(f, "tenant")?,
            since: time("since")?,
            until: time("until")?,
        })
    }
}

/// `{"state"?, "tenant"?, "since"?, "until"?, "limit"?, "after"?}`: a [`Filter`] read a page
/// at a time: at most `limit` (from 1) rows, after the cursor `after` (a page's `next`).
#[derive(Clone, Copy, Debug)]
pub struct PageQuery<'v> {
    pub filter: Filter<'v>,
    pub limit: Option<u32>,
    /// A cursor as a previous page gave it (the ledger reads it).
    pub after: Option<&'v str>,
}

impl<'v> PageQuery<'v> {
    /// Reads a paged query.
    pub fn from_value(v: &'v Value<'_>) -> Result<PageQuery<'v>> {
        let f = fields(
            v,
            "a paged query",
            &[&FILTER[..], &["limit", "after"]].concat(),
        )?;
        let limit = match optional(&f, "limit") {
            Some(_) => {
                let n = f.integer("limit", 1)?;
                Some(u32::try_from(n).map_err(|_| {
                    Error::new(
                        Code::InvalidRequest,
                        format!("limit must be at most {}, not {n}", u32::MAX),
                    )
                    .in_key("limit")
                })?)
            }
            None => None,
        };
        let after = match optional(&f, "after") {
            Some(_) => Some(f.string("after")?),
            None => None,
        };
        Ok(PageQuery {
            filter: Filter::read(&f)?,
            limit,
            after,
        })
    }
}

/// `{"tenant", "job_id", "request_id"}`: a task's identity, from which its id is derived
/// ([`super::task_id`]).
#[derive(Clone, Copy, Debug)]
pub struct TaskIdentity<'v> {
    /// The tenant.
    pub tenant: &'v str,
    /// The job (a framework's run or thread).
    pub job_id: &'v str,
    /// The request within the job (a framework's tool call id).
    pub request_id: &'v str,
}

impl<'v> TaskIdentity<'v> {
    /// Reads a task identity.
    pub fn from_value(v: &'v Value<'_>) -> Result<TaskIdentity<'v>> {
        let f = fields(v, "a task identity", &["tenant", "job_id", "request_id"])?;
        Ok(TaskIdentity {
            tenant: f.identity("tenant")?,
            job_id: f.identity("job_id")?,
            request_id: f.identity("request_id")?,
        })
    }

    /// The task id these name.
    pub fn task_id(&self) -> String {
        super::task_id(self.tenant, self.job_id, self.request_id)
    }
}

/// `{}`: a request that takes nothing (a sweep, an export).
pub fn nothing(v: &Value<'_>) -> Result<()> {
    fields(v, "the request", &[]).map(drop)
}

/// `{key: <identity>}`: a request that names one thing (a task, a budget account).
pub fn identity<'v>(v: &'v Value<'_>, key: &str) -> Result<&'v str> {
    fields(v, "the request", &[key])?.identity(key)
}

/// `{key: <integer at least min>}`: a request that gives one integer (a time in ms).
pub fn integer(v: &Value<'_>, key: &str, min: i64) -> Result<i64> {
    fields(v, "the request", &[key])?.integer(key, min)
}

/// `{"exported"?}`: what verifying a ledger's audit takes: heads exported earlier
/// ([`ExportedHeads`], read with its own code; absent or `null`: none).
pub fn audit_verify(v: &Value<'_>) -> Result<Option<ExportedHeads>> {
    let f = fields(v, "the request", &["exported"])?;
    optional(&f, "exported")
        .map(|h| ExportedHeads::from_value(h).map_err(|e| e.in_key("exported")))
        .transpose()
}

/// The chain heads an audit is verified against: `null` (none), or a list of
/// `{"chain", "seq", "digest"}` as an audit report's `heads` lists them.
pub fn heads(v: &Value<'_>) -> Result<Vec<ChainHead>> {
    let items = match v {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        other => {
            return Err(Error::new(
                Code::InvalidRequest,
                format!("heads must be a list, not {}", other.type_name()),
            ))
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let head = || -> Result<ChainHead> {
                let f = fields(h, "a chain head", &["chain", "seq", "digest"])?;
                Ok((
                    f.integer("chain", 0)?,
                    f.integer("seq", 1)?,
                    f.digest("digest")?,
                ))
            };
            head().map_err(|e| e.in_index(i))
        })
        .collect()
}

mod batch;
mod retention;
mod wake;
pub use batch::{AmendBatch, ClaimBatch, ProposeBatch};
pub use retention::{Redact, SetRetention};
pub use wake::{Changes, Wait, DEFAULT_CHANGES, MAX_CHANGES};

#[cfg(test)]
mod tests;
