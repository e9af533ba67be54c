//! The sweeper: every claimed task whose lease ran out moves to `unknown` (a batch's item
//! under its lineage's lock, its lapse fed to the breaker).

use super::{expire_if_due, locked_task};
use crate::store::{Done, Tx};
use actionseal_core::Result;

/// Moves every claimed task whose lease ran out to `unknown`; returns their ids.
pub(crate) fn expire_leases(
    tx: &mut dyn Tx,
    now: i64,
    srv: &super::batch::Server<'_>,
) -> Result<Done<Vec<String>>> {
    let mut moved = Vec::new();
    for id in tx.expired_leases(now)? {
        // A batch's item: its lineage first, whose breaker counts the lapse (issue 28).
        if tx.item(&id)?.is_some() {
            if super::batch::outcome::expire_item(tx, now, srv, &id)? {
                moved.push(id);
            }
            continue;
        }
        let mut t = locked_task(tx, &id)?;
        if expire_if_due(tx, &mut t, now)? {
            moved.push(id);
        }
    }
    Ok(Done::Ok(moved))
}
