//! A tenant's retention policies (issue 29): set in the database, every change of one an
//! audited event, so that a policy that kept values longer, or shredded them sooner, is on the
//! record with who set it.

use super::detail;
use crate::json::{obj, opt_n, s};
use crate::store::{RetentionRow, Tx};
use actionseal_core::ledger::{chain_of, Event, EventKind};
use actionseal_core::{OwnedValue, Result, Value};

/// Sets `row`'s policy for its tenant and class; the policy the class already has changes
/// nothing and records nothing (the row keeps who set it and when).
pub(crate) fn set(tx: &mut dyn Tx, now: i64, row: RetentionRow) -> Result<RetentionRow> {
    let current = tx
        .retention()?
        .into_iter()
        .find(|r| r.tenant == row.tenant && r.class == row.class);
    if let Some(c) = current.as_ref().filter(|c| same(c, &row)) {
        return Ok(c.clone());
    }
    tx.put_retention(&row)?;
    tx.append(event(now, current.as_ref(), &row));
    Ok(row)
}

fn same(a: &RetentionRow, b: &RetentionRow) -> bool {
    a.keep_ms == b.keep_ms && a.at_finish == b.at_finish
}

/// `{keep_ms, at_finish}` of a policy.
fn policy(r: &RetentionRow) -> OwnedValue {
    obj(vec![
        ("keep_ms", opt_n(r.keep_ms)),
        ("at_finish", s(&r.at_finish)),
    ])
}

/// The audit event of a change: about no task, so on the chain of ledger-wide events.
fn event(now: i64, from: Option<&RetentionRow>, to: &RetentionRow) -> Event {
    let entries: Vec<(&'static str, OwnedValue)> = vec![
        ("class", s(&to.class)),
        ("from", from.map_or(Value::Null, policy)),
        ("to", policy(to)),
    ];
    Event {
        chain: chain_of(None),
        seq: 0,
        at: now,
        tenant: to.tenant.clone(),
        task: None,
        kind: EventKind::RetentionChanged,
        actor: to.changed_by.clone(),
        action_digest: None,
        approved_digest: None,
        decision_id: None,
        fence: None,
        outcome: Some(to.at_finish.clone()),
        reasons: Vec::new(),
        drift: Vec::new(),
        state: None,
        detail: detail(entries),
        prev: None,
    }
}
