//! What a waiting task's quorum still needs, as the gate tells it (issue 25): a task whose
//! contract needs several approvers stays `awaiting_approval` after the first decision, and
//! the model and the person asked must read how many approvals, and of which roles, are still
//! missing instead of a bare "waiting".

use crate::error::{Code, Error, Result};
use crate::json::value::{OwnedValue, Value};
use crate::model::ledger::values::{int, object, string};

/// The part of a task's `quorum` (the ledger's task view: `{"required", "counted",
/// "missing", "missing_roles"}`) the gate reads; `null` or absent is a task with no quorum.
pub(super) struct Needed {
    required: i64,
    given: i64,
    missing: i64,
    /// `(role, count)` in the contract's order.
    roles: Vec<(String, i64)>,
}

impl Needed {
    /// The quorum of `task`, or `None` for a task with no quorum. A malformed one is an
    /// error: a count the model reads is never guessed.
    pub(super) fn read(task: &Value<'_>) -> Result<Option<Needed>> {
        let q = match task.pointer("/quorum") {
            None | Some(Value::Null) => return Ok(None),
            Some(q) => q,
        };
        let bad = |what: &str| {
            Error::new(
                Code::InvalidRequest,
                format!("a task's quorum needs {what}"),
            )
            .in_key("quorum")
        };
        let count = |p: &str, min: i64| match q.pointer(p) {
            Some(Value::Number(n)) => n.as_safe_integer().filter(|n| *n >= min),
            _ => None,
        };
        let required =
            count("/required", 1).ok_or_else(|| bad("an integer required of at least 1"))?;
        let missing = count("/missing", 0)
            .filter(|m| *m <= required)
            .ok_or_else(|| bad("an integer missing from 0 to required"))?;
        let Some(Value::Array(counted)) = q.pointer("/counted") else {
            return Err(bad("a counted array"));
        };
        let Some(Value::Array(missing_roles)) = q.pointer("/missing_roles") else {
            return Err(bad("a missing_roles array"));
        };
        let roles = missing_roles
            .iter()
            .map(|r| {
                let role = r.pointer("/role").and_then(Value::as_str);
                let n = match r.pointer("/count") {
                    Some(Value::Number(n)) => n.as_safe_integer().filter(|n| *n >= 1),
                    _ => None,
                };
                role.zip(n).map(|(role, n)| (role.to_owned(), n))
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                bad("missing_roles of {\"role\", \"count\"} with a count of at least 1")
            })?;
        Ok(Some(Needed {
            required,
            given: i64::try_from(counted.len()).unwrap_or(i64::MAX),
            missing,
            roles,
        }))
    }

    /// Whether approvals are still missing (a met quorum adds nothing to what is said).
    pub(super) fn waits(&self) -> bool {
        self.missing > 0
    }

    /// "1 of 2 approvals given; roles still needed: risk, finance (2)".
    fn state(&self) -> String {
        let mut s = format!("{} of {} approvals given", self.given, self.required);
        if !self.roles.is_empty() {
            let roles: Vec<String> = self
                .roles
                .iter()
                .map(|(role, n)| match n {
                    1 => role.clone(),
                    n => format!("{role} ({n})"),
                })
                .collect();
            s.push_str(&format!("; roles still needed: {}", roles.join(", ")));
        }
        s
    }

    /// What the model reads while the task waits: "refund_create is waiting for 1 more
    /// approval (awaiting_approval: 1 of 2 approvals given; roles still needed: risk); nothing
    /// ran."
    pub(super) fn message(&self, tool: &str, state: &str) -> String {
        let plural = if self.missing == 1 { "" } else { "s" };
        format!(
            "{tool} is waiting for {} more approval{plural} ({state}: {}); nothing ran.",
            self.missing,
            self.state()
        )
    }

    /// The clause an elicitation adds after the task's state: "; 1 of 2 approvals given;
    /// roles still needed: risk".
    pub(super) fn clause(&self) -> String {
        format!("; {}", self.state())
    }

    /// `{"required", "given", "missing", "missing_roles"}`: the counts, for a program reading
    /// the refusal (who approved is the reviewer's to see, in the pause's `request`).
    pub(super) fn to_value(&self) -> OwnedValue {
        let roles = self
            .roles
            .iter()
            .map(|(role, n)| object(vec![("role", string(role)), ("count", int(*n))]))
            .collect();
        object(vec![
            ("required", int(self.required)),
            ("given", int(self.given)),
            ("missing", int(self.missing)),
            ("missing_roles", Value::Array(roles)),
        ])
    }
}
