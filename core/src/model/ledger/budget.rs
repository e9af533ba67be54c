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
        Some(total) if total <= limit => reserved.checked_add(cost).ok_or_else(|| {
            out_of_range(format!("reserved {reserved} plus {cost}"))
        }),
        _ => Err(Error::new(
            Code::BudgetExceeded,
            format!(
                "reserving {cost} on top of {spent} spent and {reserved} reserved would pass the limit of {limit}"
            ),
        )),
    }
}

/// The account's `(spent, reserved)` once a claim's `amount` is settled: moved from reserved
/// to spent (`commit`: the call succeeded) or released. Stored amounts altered to the ends of
/// the range are [`Code::LedgerValueOutOfRange`], never a wrap.
pub fn settle(spent: i64, reserved: i64, amount: i64, commit: bool) -> Result<(i64, i64)> {
    let reserved = reserved
        .checked_sub(amount)
        .ok_or_else(|| out_of_range(format!("reserved {reserved} less {amount}")))?;
    let spent = if commit {
        spent
            .checked_add(amount)
            .ok_or_else(|| out_of_range(format!("spent {spent} plus {amount}")))?
    } else {
        spent
    };
    Ok((spent, reserved))
}

fn out_of_range(what: String) -> Error {
    Error::new(
        Code::LedgerValueOutOfRange,
        format!("a budget's {what} passes the range of its minor units"),
    )
}
