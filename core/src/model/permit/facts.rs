//! The trusted facts of a context: about approvers (authorized, roles held), the subject,
//! revocations of approvals, decisions and delegation links, who proposed the task and who
//! amended it. Each fact names whom it is about, and at most one fact may be about one
//! identity: two would leave the answer to the order they were read in.

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::Value;
use crate::model::fields::Fields;

/// A trusted fact about one named approver, subject or approval: `authorized` for the
/// first two, `revoked` for the third.
#[derive(Clone, Debug)]
pub(super) struct Fact {
    pub(super) about: String,
    pub(super) flag: bool,
}

/// The facts of one kind, about distinct identities. A context is read on every check, and
/// most hold one fact of a kind: it is kept without allocating a list.
#[derive(Clone, Debug)]
pub(super) enum Facts {
    One(Fact),
    Many(Vec<Fact>),
}

impl std::ops::Deref for Facts {
    type Target = [Fact];

    fn deref(&self) -> &[Fact] {
        match self {
            Facts::One(fact) => std::slice::from_ref(fact),
            Facts::Many(facts) => facts,
        }
    }
}

/// What the facts of one kind say about `who`, if one is about them.
pub(super) fn about<'f>(facts: &'f [Fact], who: &str) -> Option<&'f Fact> {
    facts.iter().find(|f| f.about == who)
}

/// A fact's key, the members naming its subject and its flag, and how messages name it (a
/// literal: a name formatted on every check cost more than reading the fact).
pub(super) type FactKeys = (&'static str, &'static str, &'static str, &'static str);

pub(super) const APPROVER_FACT: FactKeys = (
    "approver_authorized",
    "approver",
    "authorized",
    r#"approver_authorized (a fact {"approver", "authorized"})"#,
);
pub(super) const SUBJECT_FACT: FactKeys = (
    "subject_authorized",
    "subject",
    "authorized",
    r#"subject_authorized (a fact {"subject", "authorized"})"#,
);
pub(super) const REVOKED_FACT: FactKeys = (
    "revoked",
    "approval_id",
    "revoked",
    r#"revoked (a fact {"approval_id", "revoked"})"#,
);

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidContext, message)
}

/// Reads `{"<who>": identifier, "<flag>": boolean}`; errors relative to the fact.
fn read_fact(v: &Value<'_>, (_, who, flag, what): FactKeys) -> Result<Fact> {
    let inner = Fields::new(v, Code::InvalidContext, what, &[who, flag])?;
    Ok(Fact {
        about: inner.identity(who)?.to_owned(),
        flag: inner.boolean(flag)?,
    })
}

/// The fact at `keys.0`, which must be present.
pub(super) fn fact(f: &Fields<'_, '_>, keys: FactKeys) -> Result<Fact> {
    read_fact(f.required(keys.0)?, keys).map_err(|e| e.in_key(keys.0))
}

/// The facts at `keys.0`: `None` for `null`, one fact, or a non-empty array of facts about
/// distinct identities (`null` is the one spelling of "none").
pub(super) fn facts(f: &Fields<'_, '_>, keys: FactKeys) -> Result<Option<Facts>> {
    facts_in(f.required(keys.0)?, keys)
}

/// [`facts`] of the value `v` found at `keys.0`.
fn facts_in(v: &Value<'_>, keys: FactKeys) -> Result<Option<Facts>> {
    let key = keys.0;
    match v {
        Value::Null => Ok(None),
        Value::Array(items) => {
            if items.is_empty() {
                return Err(
                    invalid(format!("{key} lists no facts: null says there are none")).in_key(key),
                );
            }
            let mut out: Vec<Fact> = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let fact = read_fact(item, keys).map_err(|e| e.in_index(i).in_key(key))?;
                if about(&out, &fact.about).is_some() {
                    return Err(
                        invalid(format!("{key} has two facts about {:?}", fact.about))
                            .in_key(keys.1)
                            .in_index(i)
                            .in_key(key),
                    );
                }
                out.push(fact);
            }
            Ok(Some(Facts::Many(out)))
        }
        v => read_fact(v, keys)
            .map(|f| Some(Facts::One(f)))
            .map_err(|e| e.in_key(key)),
    }
}

/// The `revoked` facts: about approvals (`approval_id`, required for every member) and about
/// single decisions (`decision_id`, withdrawing that member when `true`).
#[derive(Clone, Debug)]
pub(super) struct Revocations {
    pub(super) approvals: Facts,
    pub(super) decisions: Vec<Fact>,
}

/// `revoked`: `null`, one approval fact, or a non-empty array of facts each naming
/// `approval_id` or `decision_id`.
pub(super) fn revocations(f: &Fields<'_, '_>) -> Result<Option<Revocations>> {
    let key = REVOKED_FACT.0;
    let v = f.required(key)?;
    let Value::Array(items) = v else {
        return Ok(facts_in(v, REVOKED_FACT)?.map(|approvals| Revocations {
            approvals,
            decisions: Vec::new(),
        }));
    };
    if items.is_empty() {
        return Err(invalid("revoked lists no facts: null says there are none").in_key(key));
    }
    let (mut approvals, mut decisions) = (Vec::new(), Vec::new());
    for (i, item) in items.iter().enumerate() {
        let mut read = || -> Result<()> {
            let inner = Fields::new(
                item,
                Code::InvalidContext,
                r#"a revoked fact {"approval_id" or "decision_id", "revoked"}"#,
                &["approval_id", "decision_id", "revoked"],
            )?;
            let (who, list) = match (inner.get("approval_id"), inner.get("decision_id")) {
                (Some(_), None) => ("approval_id", &mut approvals),
                (None, Some(_)) => ("decision_id", &mut decisions),
                _ => {
                    return Err(invalid(
                        "a revoked fact names either approval_id or decision_id",
                    ))
                }
            };
            let about = inner.identity(who)?.to_owned();
            if self::about(list, &about).is_some() {
                return Err(invalid(format!("revoked has two facts about {about:?}")).in_key(who));
            }
            let flag = inner.boolean("revoked")?;
            list.push(Fact { about, flag });
            Ok(())
        };
        read().map_err(|e| e.in_index(i).in_key(key))?;
    }
    Ok(Some(Revocations {
        approvals: Facts::Many(approvals),
        decisions,
    }))
}

/// A fact that an approver holds (or does not hold) a role.
#[derive(Clone, Debug)]
pub(super) struct RoleFact {
    approver: String,
    role: String,
    holds: bool,
}

/// Whether a fact says `approver` holds `role`.
pub(super) fn holds(facts: &[RoleFact], approver: &str, role: &str) -> bool {
    facts
        .iter()
        .any(|f| f.approver == approver && f.role == role && f.holds)
}

/// `approver_roles`, when present: an array of `{"approver", "role", "holds"}`, one per
/// approver and role.
pub(super) fn roles(f: &Fields<'_, '_>) -> Result<Vec<RoleFact>> {
    let key = "approver_roles";
    list(f, key, |item| {
        let inner = Fields::new(
            item,
            Code::InvalidContext,
            r#"approver_roles (facts {"approver", "role", "holds"})"#,
            &["approver", "role", "holds"],
        )?;
        Ok(RoleFact {
            approver: inner.identity("approver")?.to_owned(),
            role: inner.identity("role")?.to_owned(),
            holds: inner.boolean("holds")?,
        })
    })
    .and_then(|facts| {
        for (i, fact) in facts.iter().enumerate() {
            if facts[..i]
                .iter()
                .any(|g| g.approver == fact.approver && g.role == fact.role)
            {
                return Err(invalid(format!(
                    "approver_roles has two facts about {:?} in {:?}",
                    fact.approver, fact.role
                ))
                .in_index(i)
                .in_key(key));
            }
        }
        Ok(facts)
    })
}

/// A fact about a delegation link, by its digest.
#[derive(Clone, Debug)]
pub(super) struct LinkFact {
    pub(super) delegation: Digest,
    pub(super) revoked: bool,
}

/// `delegations_revoked`, when present: an array of `{"delegation", "revoked"}`, one per link.
pub(super) fn links(f: &Fields<'_, '_>) -> Result<Vec<LinkFact>> {
    let key = "delegations_revoked";
    let facts = list(f, key, |item| {
        let inner = Fields::new(
            item,
            Code::InvalidContext,
            r#"delegations_revoked (facts {"delegation", "revoked"})"#,
            &["delegation", "revoked"],
        )?;
        Ok(LinkFact {
            delegation: inner.digest("delegation")?,
            revoked: inner.boolean("revoked")?,
        })
    })?;
    for (i, fact) in facts.iter().enumerate() {
        if facts[..i].iter().any(|g| g.delegation == fact.delegation) {
            return Err(
                invalid("delegations_revoked has two facts about one delegation")
                    .in_key("delegation")
                    .in_index(i)
                    .in_key(key),
            );
        }
    }
    Ok(facts)
}

/// The array at `key` (absent: empty), each element read by `read`.
fn list<T>(
    f: &Fields<'_, '_>,
    key: &str,
    read: impl Fn(&Value<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    match f.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| read(item).map_err(|e| e.in_index(i).in_key(key)))
            .collect(),
        Some(_) => Err(invalid(format!("{key} must be an array of facts")).in_key(key)),
    }
}

/// Who a duty's fact names: absent (unknown: a duty that needs it fails closed), `null`
/// (no one), or an identifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Named {
    /// The context does not say.
    Unknown,
    /// The context says no one.
    NoOne,
    /// The context names this identity.
    Is(String),
}

/// `proposer` or `amended_by`: absent, `null` or an identifier.
pub(super) fn named(f: &Fields<'_, '_>, key: &str) -> Result<Named> {
    Ok(match f.get(key) {
        None => Named::Unknown,
        Some(Value::Null) => Named::NoOne,
        Some(_) => Named::Is(f.identity(key)?.to_owned()),
    })
}
