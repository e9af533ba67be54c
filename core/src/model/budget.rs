//! Cumulative budgets: `{"limit_minor", "spent_minor"}` in integer minor units.

use crate::error::{Code, Error, Result};
use crate::json::number::Number;
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::fields::Fields;
use std::borrow::Cow;

/// Charges `cost_minor` to `budget` and returns the budget with the new spending.
///
/// The budget must be `{"limit_minor", "spent_minor"}` with non-negative safe integers, and
/// the cost a non-negative safe integer (`true`, `"300"` and `2.5` are not costs): otherwise
/// [`Code::InvalidBudget`]. Spending beyond the limit is [`Code::BudgetExceeded`], and the
/// budget is left as it was. Reaching the limit exactly is allowed.
pub fn charge(budget: &Value<'_>, cost_minor: &Value<'_>) -> Result<OwnedValue> {
    let f = Fields::new(
        budget,
        Code::InvalidBudget,
        "budget",
        &["limit_minor", "spent_minor"],
    )?;
    let limit = f.integer("limit_minor", 0)?;
    let spent = f.integer("spent_minor", 0)?;
    let cost = match cost_minor {
        Value::Number(n) => n.as_safe_integer().filter(|c| *c >= 0),
        _ => None,
    }
    .ok_or_else(|| {
        Error::new(
            Code::InvalidBudget,
            format!(
                "a cost is a non-negative integer number of minor units, not {}",
                crate::model::fields::describe(cost_minor)
            ),
        )
    })?;
    let total = spent + cost; // both at most 2^53 - 1: no overflow in i64
    if total > limit {
        return Err(Error::new(
            Code::BudgetExceeded,
            format!("spending {cost} would bring {spent} to {total}, over the limit of {limit}"),
        ));
    }
    // total <= limit <= 2^53 - 1, so both are exact.
    let int = |n: i64| Number::from_i64(n, crate::Profile::Strict).map(Value::Number);
    Object::from_entries(vec![
        (Cow::Borrowed("limit_minor"), int(limit)?),
        (Cow::Borrowed("spent_minor"), int(total)?),
    ])
    .map(Value::Object)
}
