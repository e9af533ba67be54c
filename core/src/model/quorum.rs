//! Quorums and separation of duties: how many distinct people must approve one action, in
//! which roles and order, whether one rejection vetoes, and whom the contract forbids to
//! approve.
//!
//! A contract's `approval` may be the object
//!
//! ```json
//! {"when": "always" | [conditions],
//!  "quorum": {"approvers": 2,
//!             "roles": [{"role": "finance", "count": 1}, {"role": "risk", "count": 1}],
//!             "order": "any" | "as_listed", "veto": "any_rejection" | "none"},
//!  "separation": ["subject", "proposer", "amender"]}
//! ```
//!
//! - `approvers`: distinct approvers needed, 1 to [`MAX_QUORUM`].
//! - `roles` (optional): non-empty, distinct role identifiers, each `count` at least 1, the
//!   counts summing to at most `approvers`.
//! - `order` (default `any`): `as_listed` (which needs `roles`) asks that no counted approval
//!   of a later role was decided before a counted approval of an earlier one.
//! - `veto` (default `any_rejection`): one rejection rejects the action; with `none` a
//!   rejection only does not count.
//! - `separation`: duties whose holder may not approve. Under a quorum `subject` and
//!   `proposer` apply whether listed or not, `amender` when listed; without a quorum, what is
//!   listed.
//!
//! `{"when": [conditions]}` alone keeps its meaning, and `{"when": "always"}` with neither
//! `quorum` nor `separation` is refused (its one spelling is `"always"`). A contract without a
//! quorum asks for one approval, which any rejection vetoes.

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::decision::Decision;
use crate::model::fields::Fields;
use crate::model::rule::ApprovalRule;
use std::borrow::Cow;

/// The most approvers a quorum may ask for.
pub const MAX_QUORUM: u8 = 16;

/// How many distinct approvals an action needs, from whom, in what order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quorum {
    /// Distinct approvers needed (1 to [`MAX_QUORUM`]).
    pub approvers: u8,
    /// Roles that must be represented, in the contract's order (empty: any approver).
    pub roles: Vec<RoleCount>,
    /// Whether roles must decide in the order listed.
    pub order: Order,
    /// What a rejection does.
    pub veto: Veto,
}

/// A role and how many approvals in it are needed (or, in a [`QuorumState`], still missing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleCount {
    /// The role, an identifier.
    pub role: String,
    /// How many.
    pub count: u8,
}

/// The order in which a quorum's roles decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Any order.
    Any,
    /// No counted approval of a later role decided before one of an earlier role.
    AsListed,
}

/// What a rejection in the set does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Veto {
    /// Any rejection rejects the action (`decision_rejected`).
    AnyRejection,
    /// A rejection does not count, and gives no reason.
    None,
}

/// A duty whose holder may not approve the action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Duty {
    /// The action's subject (who acts).
    Subject,
    /// Who proposed the task.
    Proposer,
    /// The reviewer who amended the action before the decision.
    Amender,
}

impl Duty {
    /// Every duty, in the order a contract's `separation` is kept.
    pub const ALL: [Duty; 3] = [Duty::Subject, Duty::Proposer, Duty::Amender];

    /// `subject`, `proposer` or `amender`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Duty::Subject => "subject",
            Duty::Proposer => "proposer",
            Duty::Amender => "amender",
        }
    }
}

/// One decision as a quorum counts it, already checked (proof, shape, facts, chain).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The counting identity: the record's `on_behalf_of` (the root delegator) when it
    /// decided through a delegation, else its `approver`.
    pub approver: String,
    /// The role it counts for, when the record names one its counting identity holds.
    pub role: Option<String>,
    /// Approved or rejected.
    pub decision: Decision,
    /// When it was decided (ms since the epoch).
    pub decided_at: i64,
    /// The record's `decision_id`.
    pub decision_id: String,
    /// The record's `approver` when it decided through a delegation.
    pub delegate: Option<String>,
    /// The delegation links' digests, root first.
    pub delegations: Vec<Digest>,
}

impl Member {
    /// Whether two members are one person: their counting identities or delegates meet.
    fn same_person(&self, other: &Member) -> bool {
        let ids = |m: &Member| [Some(m.approver.clone()), m.delegate.clone()];
        let theirs = ids(other);
        ids(self)
            .iter()
            .flatten()
            .any(|i| theirs.contains(&Some(i.clone())))
    }
}

/// Where a quorum stands: who counted and what is still missing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuorumState {
    /// Distinct approvers the quorum needs.
    pub required: u8,
    /// The approving members that count, in set order, one per person.
    pub counted: Vec<Member>,
    /// `max(required - counted, sum of missing_roles counts)`: the quorum holds when 0.
    pub missing: u8,
    /// Roles, in contract order, with the approvals they still need (each count > 0).
    pub missing_roles: Vec<RoleCount>,
}

impl QuorumState {
    /// Whether the quorum holds.
    pub fn holds(&self) -> bool {
        self.missing == 0
    }

    /// `{"required", "counted": [{"approver", "role", "decision_id", "delegate",
    /// "delegations"}], "missing", "missing_roles": [{"role", "count"}]}`.
    pub fn to_value(&self) -> OwnedValue {
        let s = |s: &str| Value::String(Cow::Owned(s.to_owned()));
        let opt = |o: &Option<String>| o.as_deref().map_or(Value::Null, s);
        let counted = self
            .counted
            .iter()
            .map(|m| {
                object(vec![
                    ("approver", s(&m.approver)),
                    ("role", opt(&m.role)),
                    ("decision_id", s(&m.decision_id)),
                    ("delegate", opt(&m.delegate)),
                    (
                        "delegations",
                        Value::Array(m.delegations.iter().map(|d| s(&d.to_string())).collect()),
                    ),
                ])
            })
            .collect();
        let roles = self
            .missing_roles
            .iter()
            .map(|r| object(vec![("role", s(&r.role)), ("count", int(r.count))]))
            .collect();
        object(vec![
            ("required", int(self.required)),
            ("counted", Value::Array(counted)),
            ("missing", int(self.missing)),
            ("missing_roles", Value::Array(roles)),
        ])
    }
}

fn int(n: u8) -> OwnedValue {
    // A small integer is always exact.
    crate::Number::from_i64(i64::from(n), crate::Profile::Strict).map_or(Value::Null, Value::Number)
}

fn object(entries: Vec<(&'static str, OwnedValue)>) -> OwnedValue {
    let entries = entries
        .into_iter()
        .map(|(k, v)| (Cow::Borrowed(k), v))
        .collect();
    // Keys are distinct literals.
    Value::Object(Object::from_entries(entries).unwrap_or_default())
}

/// Counts already-checked members toward `quorum`: approving members, the first of each
/// person (counting identity or delegate) only, each for its role when it has one. Order,
/// veto and separation are the check's; the ledger counts a round's decisions with this.
pub fn tally(quorum: &Quorum, members: &[Member]) -> QuorumState {
    let mut counted: Vec<Member> = Vec::new();
    for m in members.iter().filter(|m| m.decision == Decision::Approved) {
        if !counted.iter().any(|c| c.same_person(m)) {
            counted.push(m.clone());
        }
    }
    let missing_roles: Vec<RoleCount> = quorum
        .roles
        .iter()
        .filter_map(|r| {
            let have = counted
                .iter()
                .filter(|c| c.role.as_deref() == Some(r.role.as_str()))
                .count();
            let need = usize::from(r.count).saturating_sub(have);
            (need > 0).then(|| RoleCount {
                role: r.role.clone(),
                count: need as u8,
            })
        })
        .collect();
    let short_roles: usize = missing_roles.iter().map(|r| usize::from(r.count)).sum();
    let short = usize::from(quorum.approvers).saturating_sub(counted.len());
    QuorumState {
        required: quorum.approvers,
        counted,
        // Both are at most `approvers`, at most MAX_QUORUM.
        missing: short.max(short_roles) as u8,
        missing_roles,
    }
}

impl Quorum {
    /// Under `order: as_listed`, whether some counted member of a later role decided
    /// strictly before a counted member of an earlier role.
    pub fn out_of_order(&self, counted: &[Member]) -> bool {
        if self.order != Order::AsListed {
            return false;
        }
        let rank = |m: &Member| {
            self.roles
                .iter()
                .position(|r| Some(r.role.as_str()) == m.role.as_deref())
        };
        counted.iter().any(|early| {
            counted.iter().any(|late| match (rank(early), rank(late)) {
                (Some(e), Some(l)) => e < l && late.decided_at < early.decided_at,
                _ => false,
            })
        })
    }

    /// Reads `{"approvers", "roles"?, "order"?, "veto"?}`; problems are
    /// [`Code::InvalidContract`] at the member.
    fn from_value(v: &Value<'_>) -> Result<Quorum> {
        let f = Fields::new(
            v,
            Code::InvalidContract,
            "quorum",
            &["approvers", "roles", "order", "veto"],
        )?;
        let approvers = f.integer("approvers", 1)?;
        if approvers > i64::from(MAX_QUORUM) {
            return Err(invalid(format!(
                "approvers must be at most {MAX_QUORUM}, not {approvers}"
            ))
            .in_key("approvers"));
        }
        let approvers = approvers as u8;
        let roles = match f.get("roles") {
            None => Vec::new(),
            Some(r) => read_roles(r, approvers).map_err(|e| e.in_key("roles"))?,
        };
        let order = match f.get("order") {
            None => Order::Any,
            Some(_) => match f.one_of("order", &["any", "as_listed"])? {
                "any" => Order::Any,
                _ if roles.is_empty() => {
                    return Err(invalid("order \"as_listed\" needs roles to order").in_key("order"))
                }
                _ => Order::AsListed,
            },
        };
        let veto = match f.get("veto") {
            None => Veto::AnyRejection,
            Some(_) => match f.one_of("veto", &["any_rejection", "none"])? {
                "any_rejection" => Veto::AnyRejection,
                _ => Veto::None,
            },
        };
        Ok(Quorum {
            approvers,
            roles,
            order,
            veto,
        })
    }
}

/// `[{"role", "count"}, ...]`: non-empty, distinct roles, counts summing to at most
/// `approvers`.
fn read_roles(v: &Value<'_>, approvers: u8) -> Result<Vec<RoleCount>> {
    let Value::Array(items) = v else {
        return Err(invalid("roles must be an array of {\"role\", \"count\"}"));
    };
    if items.is_empty() {
        return Err(invalid(
            "roles must list at least one role: leave it out for any",
        ));
    }
    let mut roles: Vec<RoleCount> = Vec::with_capacity(items.len());
    let mut sum = 0i64;
    for (i, item) in items.iter().enumerate() {
        let mut read = || -> Result<RoleCount> {
            let f = Fields::new(item, Code::InvalidContract, "role", &["role", "count"])?;
            let role = f.identity("role")?;
            if roles.iter().any(|r| r.role == role) {
                return Err(invalid(format!("role {role:?} is listed twice")).in_key("role"));
            }
            let count = f.integer("count", 1)?;
            sum += count;
            if sum > i64::from(approvers) {
                return Err(invalid(format!(
                    "the role counts sum to more than approvers ({approvers})"
                ))
                .in_key("count"));
            }
            Ok(RoleCount {
                role: role.to_owned(),
                count: count as u8,
            })
        };
        roles.push(read().map_err(|e| e.in_index(i))?);
    }
    Ok(roles)
}

/// A contract's `approval` member, read whole.
#[derive(Clone, Debug)]
pub(crate) struct Authority {
    /// When a call needs a person.
    pub(crate) rule: ApprovalRule,
    pub(crate) quorum: Option<Quorum>,
    /// The duties that apply (see [`Duty`]), in [`Duty::ALL`] order.
    pub(crate) separation: Vec<Duty>,
}

impl Authority {
    /// Reads `approval`; problems are [`Code::InvalidContract`] relative to it.
    pub(crate) fn from_value(v: &Value<'_>) -> Result<Authority> {
        let extended = matches!(v, Value::Object(o)
            if o.get("quorum").is_some() || o.get("separation").is_some());
        if !extended {
            return Ok(Authority {
                rule: ApprovalRule::from_value(v)?,
                quorum: None,
                separation: Vec::new(),
            });
        }
        let f = Fields::new(
            v,
            Code::InvalidContract,
            "approval",
            &["when", "quorum", "separation"],
        )?;
        let rule = match f.required("when")? {
            Value::String(s) if s == "always" => Ok(ApprovalRule::Always),
            Value::Array(_) => ApprovalRule::conditions(f.required("when")?),
            _ => Err(invalid("when must be \"always\" or an array of conditions")),
        }
        .map_err(|e| e.in_key("when"))?;
        let quorum = match f.get("quorum") {
            None => None,
            Some(q) => Some(Quorum::from_value(q).map_err(|e| e.in_key("quorum"))?),
        };
        let listed = match f.get("separation") {
            None => Vec::new(),
            Some(s) => read_separation(s).map_err(|e| e.in_key("separation"))?,
        };
        let separation = Duty::ALL
            .into_iter()
            .filter(|d| {
                listed.contains(d)
                    || (quorum.is_some() && matches!(d, Duty::Subject | Duty::Proposer))
            })
            .collect();
        Ok(Authority {
            rule,
            quorum,
            separation,
        })
    }
}

/// A non-empty array of distinct duty names.
fn read_separation(v: &Value<'_>) -> Result<Vec<Duty>> {
    let Value::Array(items) = v else {
        return Err(invalid(
            "separation must be an array of \"subject\", \"proposer\", \"amender\"",
        ));
    };
    if items.is_empty() {
        return Err(invalid("separation must list at least one duty"));
    }
    let mut duties = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let duty = Duty::ALL
            .into_iter()
            .find(|d| item.as_str() == Some(d.as_str()))
            .ok_or_else(|| {
                invalid("a duty is \"subject\", \"proposer\" or \"amender\"").in_index(i)
            })?;
        if duties.contains(&duty) {
            return Err(invalid(format!("{:?} is listed twice", duty.as_str())).in_index(i));
        }
        duties.push(duty);
    }
    Ok(duties)
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidContract, message)
}

#[cfg(test)]
mod tests;
