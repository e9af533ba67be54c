//! evidence: the export of a task's evidence bundle, recorded as an event of the task that
//! lists the digests of its events before it (what the bundle must hold, in order).

use super::{detail, event, locked_task};
use crate::json::s;
use crate::store::{Done, Tx};
use actionseal_core::ledger::EventKind;
use actionseal_core::{Result, Value};

pub(crate) fn exported(tx: &mut dyn Tx, now: i64, task_id: &str, actor: &str) -> Result<Done<()>> {
    let t = locked_task(tx, task_id)?;
    let listed = tx
        .events(Some(task_id))?
        .iter()
        .map(|(_, digest)| s(digest))
        .collect();
    let mut ev = event(&t, now, EventKind::EvidenceExported, actor);
    ev.detail = detail(vec![("events", Value::Array(listed))]);
    tx.append(ev);
    Ok(Done::Ok(()))
}
