//! evidence: the export of a task's evidence bundle, recorded as an event of the task that
//! lists the digests of its events before it (what the bundle must hold, in order).

use super::{detail, event, locked_task};
use crate::json::s;
use crate::store::{Done, Tx};
use actionseal_core::ledger::EventKind;
use actionseal_core::{Result, Value};

/// Records the export; with `disclose` (issue 29), also reads the task's disclosures not yet
/// shredded, which the event names by place (never by value), and returns them.
pub(crate) fn exported(
    tx: &mut dyn Tx,
    now: i64,
    task_id: &str,
    actor: &str,
    disclose: bool,
) -> Result<Done<Vec<String>>> {
    let t = locked_task(tx, task_id)?;
    let listed = tx
        .events(Some(task_id))?
        .iter()
        .map(|(_, digest)| s(digest))
        .collect();
    let held = match disclose {
        true => tx.disclosures(task_id)?,
        false => Vec::new(),
    };
    let held: Vec<_> = held
        .into_iter()
        .filter(|r| r.disclosure.is_some())
        .collect();
    let mut entries = vec![("events", Value::Array(listed))];
    if disclose {
        let places = held.iter().map(|r| s(&r.pointer)).collect();
        entries.push(("disclosed", Value::Array(places)));
    }
    let mut ev = event(&t, now, EventKind::EvidenceExported, actor);
    ev.detail = detail(entries);
    tx.append(ev);
    Ok(Done::Ok(
        held.into_iter().filter_map(|r| r.disclosure).collect(),
    ))
}
