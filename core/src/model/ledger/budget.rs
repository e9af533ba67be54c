//! Reserving a claim's cost against a named budget account.

use crate::error::{Code, Error, Result};

/// The new `reserved_minor` after reserving `cost` on an account with `limit`, `spent` and
/// `reserved` (all minor units): [`Code::BudgetExceeded`] when spent + reserved + cost would
/// pass the limit (reaching it exactly is allowed), [`Code::InvalidBudget`] for a negative
/// cost. A success later moves the reservation to spent; a failure or `not_executed` releases
/// it; an unknown outcome holds it until reconciled.
pub fn reserve(limit: i64, spent: i64, reserved: i64, cost: i64) -> Result<i64> {
    if cost < 0 {
        return Err(Error::new(
            Code::InvalidBudget,
            format!("a cost is a non-negative number of minor units, not {cost}"),
        ));
    }
    let committed = spent.saturating_add(reserved);
    match committed.checked_add(cost) {
        Some(total) if total <= limit => Ok(reserved + cost),
        _ => Err(Error::new(
            Code::BudgetExceeded,
            format!(
                "reserving {cost} on top of {spent} spent and {reserved} reserved would pass the limit of {limit}"
            ),
        )),
    }
}
