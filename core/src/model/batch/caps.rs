//! A batch's running totals under its caps: how many items, the sum at the sum cap's
//! pointer, and the distinct values at the distinct cap's pointer, kept as fingerprints so
//! that stored totals hold no argument value.

use super::policy::Caps;
use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{OwnedValue, Value};
use crate::model::fields::Fields;
use crate::model::ledger::values::{int, object, string};

/// Totals of the items admitted so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Items admitted.
    pub count: u64,
    /// The sum of their integers at the sum cap's pointer (0 without that cap).
    pub sum: i64,
    /// The fingerprints of the distinct values at the distinct cap's pointer, sorted.
    pub targets: Vec<Digest>,
}

impl Caps {
    /// The totals with `item` (an action) admitted, or [`Code::BatchCapExceeded`] at the
    /// item's pointer when a cap would be passed. An item without an integer at the sum
    /// cap's pointer, or without a value at the distinct cap's, is [`Code::InvalidBatch`].
    pub fn admit(&self, totals: &Totals, item: &Value<'_>) -> Result<Totals> {
        let mut next = totals.clone();
        next.count += 1;
        if let Some(max) = self.count {
            if next.count > max {
                return Err(Error::new(
                    Code::BatchCapExceeded,
                    format!("the batch's count cap is {max} items"),
                ));
            }
        }
        if let Some(cap) = &self.sum {
            let n = match item.pointer(&cap.pointer) {
                Some(Value::Number(n)) => n.as_safe_integer(),
                _ => None,
            }
            .ok_or_else(|| {
                at(
                    Error::new(
                        Code::InvalidBatch,
                        "the sum cap's pointer names no integer in this item",
                    ),
                    &cap.pointer,
                )
            })?;
            next.sum = totals
                .sum
                .checked_add(n)
                .filter(|s| *s <= cap.max && *s >= -crate::MAX_SAFE_INTEGER)
                .ok_or_else(|| {
                    at(
                        Error::new(
                            Code::BatchCapExceeded,
                            format!(
                                "the sum at {} would be over the batch's cap of {}",
                                cap.pointer, cap.max
                            ),
                        ),
                        &cap.pointer,
                    )
                })?;
        }
        if let Some(cap) = &self.distinct {
            let v = item.pointer(&cap.pointer).ok_or_else(|| {
                at(
                    Error::new(
                        Code::InvalidBatch,
                        "the distinct cap's pointer names no value in this item",
                    ),
                    &cap.pointer,
                )
            })?;
            let d = crate::fingerprint(v);
            if let Err(i) = next
                .targets
                .binary_search_by(|t| t.as_bytes().cmp(d.as_bytes()))
            {
                if next.targets.len() as u64 >= cap.max {
                    return Err(at(
                        Error::new(
                            Code::BatchCapExceeded,
                            format!(
                                "the batch may name at most {} distinct values at {}",
                                cap.max, cap.pointer
                            ),
                        ),
                        &cap.pointer,
                    ));
                }
                next.targets.insert(i, d);
            }
        }
        Ok(next)
    }

    /// The caps as JSON, as the contract writes them.
    pub fn to_value(&self) -> OwnedValue {
        let mut e = Vec::new();
        if let Some(n) = self.count {
            e.push(("count", int(n as i64)));
        }
        if let Some(d) = &self.distinct {
            let cap = object(vec![
                ("max", int(d.max as i64)),
                ("pointer", string(&d.pointer)),
            ]);
            e.push(("distinct", cap));
        }
        if let Some(s) = &self.sum {
            e.push((
                "sum",
                object(vec![("max", int(s.max)), ("pointer", string(&s.pointer))]),
            ));
        }
        object(e)
    }
}

/// `e` about the value at `pointer` in an item.
fn at(e: Error, pointer: &str) -> Error {
    crate::parse_pointer(pointer)
        .unwrap_or_default()
        .iter()
        .rev()
        .fold(e, |e, token| e.in_key(token))
}

impl Totals {
    /// What a reviewer compares with the caps: `{"count", "sum", "distinct"}`, each only
    /// under its cap.
    pub fn summary(&self, caps: &Caps) -> OwnedValue {
        let mut e = vec![("count", int(self.count as i64))];
        if caps.distinct.is_some() {
            e.push(("distinct", int(self.targets.len() as i64)));
        }
        if caps.sum.is_some() {
            e.push(("sum", int(self.sum)));
        }
        object(e)
    }

    /// The totals as a ledger stores them: `{"count", "sum", "targets": [digest, ...]}`.
    pub fn to_value(&self) -> OwnedValue {
        let targets = self
            .targets
            .iter()
            .map(|d| string(&d.to_string()))
            .collect();
        object(vec![
            ("count", int(self.count as i64)),
            ("sum", int(self.sum)),
            ("targets", Value::Array(targets)),
        ])
    }

    /// Reads stored totals; problems are [`Code::InvalidBatch`].
    pub fn from_value(v: &Value<'_>) -> Result<Totals> {
        let f = Fields::new(
            v,
            Code::InvalidBatch,
            "totals",
            &["count", "sum", "targets"],
        )?;
        let Value::Array(list) = f.required("targets")? else {
            return Err(Error::new(Code::InvalidBatch, "targets must be a list").in_key("targets"));
        };
        let mut targets = list
            .iter()
            .map(|t| {
                t.as_str()
                    .ok_or_else(|| Error::new(Code::InvalidBatch, "a target is a digest"))?
                    .parse::<Digest>()
                    .map_err(|e| e.with_code(Code::InvalidBatch))
            })
            .collect::<Result<Vec<_>>>()
            .map_err(|e| e.in_key("targets"))?;
        targets.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        targets.dedup();
        Ok(Totals {
            count: f.integer("count", 0)? as u64,
            sum: f.integer("sum", -crate::MAX_SAFE_INTEGER)?,
            targets,
        })
    }
}
