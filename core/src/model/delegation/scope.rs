//! A delegation's scope: which actions it covers, and whether one scope is within another.
//!
//! A scope covers an action when the action's tenant is the scope's, its tool is listed and
//! every condition holds for the whole envelope (a condition holds only when its pointer
//! resolves and its test is true).
//!
//! Attenuation: a child scope is within its parent's when it has the same tenant, its tools are
//! a subset, and every parent condition is implied by some child condition, judged by these
//! rules only (same pointer unless identical):
//!
//! - identical conditions (the same canonical form);
//! - upper bounds: parent `lte p` by child `lte c` or `lt c` with `c <= p`; parent `lt p` by
//!   child `lt c` with `c <= p` or `lte c` with `c < p`; lower bounds (`gte`, `gt`) likewise;
//! - child `eq v` implies a parent `lte`, `lt`, `gte`, `gt`, `in` or `eq` that `v` passes;
//! - child `in S'` implies parent `in S` when every member of `S'` is in `S`.
//!
//! This is sound, not complete: a child the rules cannot show to be narrower is refused as
//! widening even when it is not (two conditions that together imply a parent's, `any`/`all`,
//! `ne`, `not_in`, `contains`, a bound on another pointer). Write the child's conditions in
//! the parent's terms.

use super::invalid;
use crate::error::{Code, Result};
use crate::json::value::Value;
use crate::model::action::field;
use crate::model::fields::{check_identity, Fields};
use crate::model::rule::{Condition, Op};

/// Tenant, tools and conditions.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    tenant: String,
    tools: Vec<String>,
    when: Vec<Bound>,
}

/// A scope condition, with its canonical text (identical conditions have the same).
#[derive(Clone, Debug)]
struct Bound {
    condition: Condition,
    canonical: String,
}

impl Scope {
    /// Reads `tenant`, `tools` and `when` of a delegation document.
    pub(crate) fn read(f: &Fields<'_, '_>) -> Result<Scope> {
        let tenant = f.identity("tenant")?.to_owned();
        let tools = tools(f.required("tools")?).map_err(|e| e.in_key("tools"))?;
        let when = match f.get("when") {
            None => Vec::new(),
            Some(w) => conditions(w).map_err(|e| e.in_key("when"))?,
        };
        Ok(Scope {
            tenant,
            tools,
            when,
        })
    }

    /// Whether the action envelope is within this scope.
    pub(crate) fn covers(&self, action: &Value<'_>) -> bool {
        field(action, "tenant") == self.tenant
            && self.tools.iter().any(|t| t == field(action, "tool"))
            && self.when.iter().all(|b| b.condition.holds(action))
    }

    /// Whether every action this scope covers is covered by `parent`, as far as the rules
    /// above can show.
    pub(crate) fn within(&self, parent: &Scope) -> bool {
        self.tenant == parent.tenant
            && self.tools.iter().all(|t| parent.tools.contains(t))
            && parent
                .when
                .iter()
                .all(|p| self.when.iter().any(|c| implies(c, p)))
    }
}

/// Whether `child` holding shows that `parent` holds.
fn implies(child: &Bound, parent: &Bound) -> bool {
    if child.canonical == parent.canonical {
        return true;
    }
    let (c, p) = (&child.condition, &parent.condition);
    if c.tokens() != p.tokens() {
        return false;
    }
    let (Some((cop, Some(cv))), Some((pop, Some(pv)))) = (c.operator(), p.operator()) else {
        return false;
    };
    let number = |v: &Value<'_>| match v {
        Value::Number(n) => Some(n.as_f64()),
        _ => None,
    };
    match (cop, pop) {
        (Op::Eq, Op::Lte | Op::Lt | Op::Gte | Op::Gt | Op::In | Op::Eq) => p.accepts(cv),
        (Op::In, Op::In) => match (cv, pv) {
            (Value::Array(sub), Value::Array(set)) => sub.iter().all(|x| set.contains(x)),
            _ => false,
        },
        (Op::Lt | Op::Lte, Op::Lt | Op::Lte) | (Op::Gt | Op::Gte, Op::Gt | Op::Gte) => {
            let (Some(c), Some(p)) = (number(cv), number(pv)) else {
                return false;
            };
            // An inclusive child bound under an exclusive parent bound must be strictly
            // inside it; otherwise at or inside.
            let strict = matches!((cop, pop), (Op::Lte, Op::Lt) | (Op::Gte, Op::Gt));
            match (pop, strict) {
                (Op::Lt | Op::Lte, true) => c < p,
                (Op::Lt | Op::Lte, false) => c <= p,
                (_, true) => c > p,
                (_, false) => c >= p,
            }
        }
        _ => false,
    }
}

/// A non-empty array of distinct tool names (identifiers).
fn tools(v: &Value<'_>) -> Result<Vec<String>> {
    let Value::Array(items) = v else {
        return Err(invalid(format!(
            "tools must be an array of tool names, not {}",
            v.type_name()
        )));
    };
    if items.is_empty() {
        return Err(invalid("tools must list at least one tool"));
    }
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let name = item
            .as_str()
            .ok_or_else(|| invalid(format!("a tool is a string, not {}", item.type_name())))
            .and_then(|s| {
                check_identity(s)
                    .map(|()| s)
                    .map_err(|why| invalid(format!("tool {why}")))
            })
            .map_err(|e| e.in_index(i))?;
        if out.iter().any(|t| t == name) {
            return Err(invalid(format!("{name:?} is listed twice")).in_index(i));
        }
        out.push(name.to_owned());
    }
    Ok(out)
}

/// A non-empty array of conditions (an absent `when` is the one spelling of "no conditions").
fn conditions(v: &Value<'_>) -> Result<Vec<Bound>> {
    let Value::Array(items) = v else {
        return Err(invalid("when must be an array of conditions"));
    };
    if items.is_empty() {
        return Err(invalid(
            "when must list at least one condition: leave it out for none",
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, c)| {
            Condition::scope_condition(c)
                .map(|condition| Bound {
                    condition,
                    canonical: crate::canonicalize(c),
                })
                .map_err(|e| e.recode(Code::InvalidDelegation).in_index(i))
        })
        .collect()
}
