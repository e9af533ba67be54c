//! The ledger's requests about sensitive values (issue 29): a redaction, and a tenant's
//! retention policy for a class.

use super::{fields, optional};
use crate::error::{Code, Error, Result};
use crate::json::value::Value;
use crate::model::ledger::retention::{check_class, AtFinish};

/// `{"task_id", "actor"}`: shred every disclosure of a task.
#[derive(Clone, Copy, Debug)]
pub struct Redact<'v> {
    pub task_id: &'v str,
    /// Who asks (kept in the audit).
    pub actor: &'v str,
}

impl<'v> Redact<'v> {
    /// Reads a redaction request.
    pub fn from_value(v: &'v Value<'_>) -> Result<Redact<'v>> {
        let f = fields(v, "a redaction", &["task_id", "actor"])?;
        Ok(Redact {
            task_id: f.identity("task_id")?,
            actor: f.identity("actor")?,
        })
    }
}

/// `{"tenant", "class", "keep_ms", "at_finish", "actor"}`: how long `tenant` keeps its
/// disclosures of `class` after their proposal (`keep_ms`, a non-negative integer; `null`:
/// until redacted) and what happens to them when their task finishes (`"keep"` or
/// `"shred"`, see [`AtFinish`]).
#[derive(Clone, Copy, Debug)]
pub struct SetRetention<'v> {
    pub tenant: &'v str,
    pub class: &'v str,
    pub keep_ms: Option<i64>,
    pub at_finish: AtFinish,
    /// Who sets it.
    pub actor: &'v str,
}

impl<'v> SetRetention<'v> {
    /// Reads a retention policy; `keep_ms` must be given (`null` to keep until redacted), so
    /// that a policy never keeps values forever by omission.
    pub fn from_value(v: &'v Value<'_>) -> Result<SetRetention<'v>> {
        let f = fields(
            v,
            "a retention policy",
            &["tenant", "class", "keep_ms", "at_finish", "actor"],
        )?;
        let class = f.string("class")?;
        check_class(class)?;
        f.required("keep_ms")?;
        let keep_ms = match optional(&f, "keep_ms") {
            Some(_) => Some(f.integer("keep_ms", 0)?),
            None => None,
        };
        let names: Vec<&'static str> = AtFinish::ALL.iter().map(|m| m.as_str()).collect();
        let at_finish = AtFinish::from_name(f.one_of("at_finish", &names)?).ok_or_else(|| {
            Error::new(Code::InvalidRequest, "at_finish is keep or shred").in_key("at_finish")
        })?;
        Ok(SetRetention {
            tenant: f.identity("tenant")?,
            class,
            keep_ms,
            at_finish,
            actor: f.identity("actor")?,
        })
    }
}
