//! The requests that wait for the ledger: a task's state, and the change feed.

use super::{fields, optional};
use crate::error::{Code, Error, Result};
use crate::json::value::Value;
use crate::model::ledger::state::State;

/// The most changes one read of the feed returns, and how many it returns when not told.
pub const MAX_CHANGES: i64 = 1000;
pub const DEFAULT_CHANGES: i64 = 100;

/// `{"task_id", "states", "timeout_ms"}`: wait until the task is in one of `states` (a
/// non-empty list of state names), for at most `timeout_ms` (0: read once).
#[derive(Clone, Debug)]
pub struct Wait<'v> {
    pub task_id: &'v str,
    pub states: Vec<State>,
    pub timeout_ms: i64,
}

impl<'v> Wait<'v> {
    /// Reads a wait request.
    pub fn from_value(v: &'v Value<'_>) -> Result<Wait<'v>> {
        let f = fields(v, "a wait", &["task_id", "states", "timeout_ms"])?;
        let states = match f.required("states")? {
            Value::Array(items) if !items.is_empty() => items
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    match s {
                        Value::String(s) => State::parse(s),
                        _ => Err(Error::new(Code::InvalidRequest, "a state is a name")),
                    }
                    .map_err(|e| e.in_index(i))
                })
                .collect::<Result<Vec<_>>>()
                .map_err(|e| e.in_key("states"))?,
            _ => {
                return Err(Error::new(
                    Code::InvalidRequest,
                    "states must be a non-empty list of state names",
                )
                .in_key("states"))
            }
        };
        Ok(Wait {
            task_id: f.identity("task_id")?,
            states,
            timeout_ms: f.integer("timeout_ms", 0)?,
        })
    }
}

/// `{"after"?, "limit"?, "timeout_ms"?}`: a read of the change feed after a cursor (the text
/// a previous read returned; absent or `null`: the beginning), at most `limit` changes (1 to
/// [`MAX_CHANGES`], [`DEFAULT_CHANGES`] when absent), waiting up to `timeout_ms` for one when
/// given (absent or `null`: not waiting).
#[derive(Clone, Copy, Debug)]
pub struct Changes<'v> {
    pub after: &'v str,
    pub limit: i64,
    pub timeout_ms: Option<i64>,
}

impl<'v> Changes<'v> {
    /// Reads a read of the change feed.
    pub fn from_value(v: &'v Value<'_>) -> Result<Changes<'v>> {
        let f = fields(
            v,
            "a read of the change feed",
            &["after", "limit", "timeout_ms"],
        )?;
        let limit = match optional(&f, "limit") {
            Some(_) => f.integer("limit", 1)?,
            None => DEFAULT_CHANGES,
        };
        if limit > MAX_CHANGES {
            return Err(Error::new(
                Code::InvalidRequest,
                format!("a read returns at most {MAX_CHANGES} changes, not {limit}"),
            )
            .in_key("limit"));
        }
        Ok(Changes {
            after: match optional(&f, "after") {
                Some(_) => f.string("after")?,
                None => "",
            },
            limit,
            timeout_ms: optional(&f, "timeout_ms")
                .map(|_| f.integer("timeout_ms", 0))
                .transpose()?,
        })
    }
}
