//! The contract's `batch` member: whether a tool's calls may be decided as a batch, and the
//! limits on one.
//!
//! ```json
//! "batch": {"max_items": 50,
//!           "caps": {"count": 50, "sum": {"pointer": "/args/amount_minor", "max": 500000},
//!                    "distinct": {"pointer": "/args/order_id", "max": 50}},
//!           "breaker": {"max_failures": 3, "window_ms": 600000,
//!                       "max_claims_per_minute": 120, "close_after": 5}}
//! ```
//!
//! `max_items` is required; `caps`, each cap and `breaker` are optional. Pointers are JSON
//! Pointers into the action (`/args/...`).

use crate::error::{Code, Error, Result};
use crate::json::value::Value;
use crate::model::fields::Fields;

/// Limits on batches of one tool's calls, from its contract (narrowed by a server's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The most items one decision may cover.
    pub max_items: u64,
    /// Caps on the whole batch, and on what is claimed under its decisions.
    pub caps: Caps,
    /// When to stop the batch: none means it never trips.
    pub breaker: Option<BreakerPolicy>,
}

/// Caps on a batch: on its items, and on the items claimed under its decisions (a batch
/// and the remainders re-approved after a trip share one set of totals).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Caps {
    /// The most items.
    pub count: Option<u64>,
    /// The largest sum of the integers at a pointer.
    pub sum: Option<SumCap>,
    /// The most distinct values at a pointer.
    pub distinct: Option<DistinctCap>,
}

/// A cap on the sum of the integers at `pointer`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SumCap {
    /// A JSON Pointer into each action, to an integer.
    pub pointer: String,
    /// The largest sum.
    pub max: i64,
}

/// A cap on how many distinct values `pointer` takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistinctCap {
    /// A JSON Pointer into each action.
    pub pointer: String,
    /// The most distinct values.
    pub max: u64,
}

/// The circuit breaker's thresholds (see [`super::Breaker`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BreakerPolicy {
    /// Failed or unknown outcomes within `window_ms` that trip it.
    pub max_failures: u32,
    /// The window failures are counted over, in ms.
    pub window_ms: i64,
    /// Claims within any 60 s that trip it (a runaway executor), if limited.
    pub max_claims_per_minute: Option<u32>,
    /// Successes after a half-open that close it.
    pub close_after: u32,
}

/// The largest `max_items` a contract may set: a reviewer is shown every item, and a page of
/// more than this many rows is not reviewed, only scrolled.
pub const MAX_ITEMS_LIMIT: u64 = 1000;

/// The largest threshold the breaker keeps times for (its stored state holds one time per
/// counted failure or claim, so this bounds the row).
pub const MAX_BREAKER_THRESHOLD: i64 = 10_000;

impl Policy {
    /// Reads the `batch` member; problems are [`Code::InvalidContract`] at the field.
    pub fn from_value(v: &Value<'_>) -> Result<Policy> {
        let f = Fields::new(
            v,
            Code::InvalidContract,
            "batch",
            &["max_items", "caps", "breaker"],
        )?;
        let max_items = f.integer("max_items", 1)?;
        if max_items as u64 > MAX_ITEMS_LIMIT {
            return Err(Error::new(
                Code::InvalidContract,
                format!("max_items may be at most {MAX_ITEMS_LIMIT}"),
            )
            .in_key("max_items"));
        }
        let caps = match f.get("caps") {
            Some(c) => Caps::from_value(c).map_err(|e| e.in_key("caps"))?,
            None => Caps::default(),
        };
        let breaker = match f.get("breaker") {
            Some(b) => Some(BreakerPolicy::from_value(b).map_err(|e| e.in_key("breaker"))?),
            None => None,
        };
        Ok(Policy {
            max_items: max_items as u64,
            caps,
            breaker,
        })
    }

    /// This policy under a server's: the smaller of each limit, every cap of either, and the
    /// stricter breaker threshold of each (a server only narrows a contract).
    pub fn narrow(&self, server: &Policy) -> Policy {
        let breaker = match (&self.breaker, &server.breaker) {
            (Some(a), Some(b)) => Some(BreakerPolicy {
                max_failures: a.max_failures.min(b.max_failures),
                window_ms: a.window_ms.max(b.window_ms),
                max_claims_per_minute: min_of(a.max_claims_per_minute, b.max_claims_per_minute),
                close_after: a.close_after.max(b.close_after),
            }),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        Policy {
            max_items: self.max_items.min(server.max_items),
            caps: self.caps.narrow(&server.caps),
            breaker,
        }
    }
}

fn min_of<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl Caps {
    /// Whether no cap is set: then nothing needs running totals (a ledger keeps none).
    pub fn is_empty(&self) -> bool {
        self.count.is_none() && self.sum.is_none() && self.distinct.is_none()
    }

    /// Reads `{"count", "sum", "distinct"}` (each optional).
    pub fn from_value(v: &Value<'_>) -> Result<Caps> {
        let f = Fields::new(
            v,
            Code::InvalidContract,
            "caps",
            &["count", "sum", "distinct"],
        )?;
        let count = match f.get("count") {
            Some(_) => Some(f.integer("count", 1)? as u64),
            None => None,
        };
        let sum = match f.get("sum") {
            Some(s) => {
                let (pointer, max) = pointed(s, "sum", 0).map_err(|e| e.in_key("sum"))?;
                Some(SumCap { pointer, max })
            }
            None => None,
        };
        let distinct = match f.get("distinct") {
            Some(d) => {
                let (pointer, max) = pointed(d, "distinct", 1).map_err(|e| e.in_key("distinct"))?;
                Some(DistinctCap {
                    pointer,
                    max: max as u64,
                })
            }
            None => None,
        };
        Ok(Caps {
            count,
            sum,
            distinct,
        })
    }

    /// The narrower of two sets of caps: the smaller limit where both cap the same thing. Two
    /// caps over different pointers cannot both be kept in one member: the server's wins,
    /// since it is the one in force.
    pub fn narrow(&self, server: &Caps) -> Caps {
        let sum = match (&self.sum, &server.sum) {
            (Some(a), Some(b)) if a.pointer == b.pointer => Some(SumCap {
                pointer: a.pointer.clone(),
                max: a.max.min(b.max),
            }),
            (a, b) => b.clone().or_else(|| a.clone()),
        };
        let distinct = match (&self.distinct, &server.distinct) {
            (Some(a), Some(b)) if a.pointer == b.pointer => Some(DistinctCap {
                pointer: a.pointer.clone(),
                max: a.max.min(b.max),
            }),
            (a, b) => b.clone().or_else(|| a.clone()),
        };
        Caps {
            count: min_of(self.count, server.count),
            sum,
            distinct,
        }
    }
}

/// `{"pointer", "max"}`: a JSON Pointer and an integer of at least `min`.
fn pointed(v: &Value<'_>, what: &str, min: i64) -> Result<(String, i64)> {
    let f = Fields::new(v, Code::InvalidContract, what, &["pointer", "max"])?;
    let pointer = f.string("pointer")?;
    if crate::parse_pointer(pointer).is_none_or(|t| t.is_empty()) {
        return Err(Error::new(
            Code::InvalidContract,
            format!("pointer must be a JSON Pointer into the action, not {pointer:?}"),
        )
        .in_key("pointer"));
    }
    Ok((pointer.to_owned(), f.integer("max", min)?))
}

impl BreakerPolicy {
    /// Reads `{"max_failures", "window_ms", "max_claims_per_minute", "close_after"}`
    /// (`max_claims_per_minute` optional).
    pub fn from_value(v: &Value<'_>) -> Result<BreakerPolicy> {
        let f = Fields::new(
            v,
            Code::InvalidContract,
            "breaker",
            &[
                "max_failures",
                "window_ms",
                "max_claims_per_minute",
                "close_after",
            ],
        )?;
        let threshold = |key: &str| -> Result<u32> {
            let n = f.integer(key, 1)?;
            if n > MAX_BREAKER_THRESHOLD {
                return Err(Error::new(
                    Code::InvalidContract,
                    format!("{key} may be at most {MAX_BREAKER_THRESHOLD}"),
                )
                .in_key(key));
            }
            Ok(n as u32)
        };
        Ok(BreakerPolicy {
            max_failures: threshold("max_failures")?,
            window_ms: f.integer("window_ms", 1)?,
            max_claims_per_minute: match f.get("max_claims_per_minute") {
                Some(_) => Some(threshold("max_claims_per_minute")?),
                None => None,
            },
            close_after: threshold("close_after")?,
        })
    }
}
