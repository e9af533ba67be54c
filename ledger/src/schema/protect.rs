//! What opening a ledger checks before it writes: that the schema version it records is one
//! actionseal wrote, and that the triggers keeping its events append-only are there, enabled
//! and as the ledger made them.
//!
//! Triggers found missing, disabled or altered are restored, in the transaction that opens
//! the ledger, together with an `append_only_restored` event in chain 0 that names what was
//! found, so that the audit says when its protection was found gone. Refusing instead would
//! stop every executor while changing nothing about the evidence: restoring touches no event,
//! and whether any event changed while the triggers were gone is for the chains and the
//! exported heads to say (`audit verify --heads`). A role that cannot restore them (on
//! PostgreSQL, any but the table's owner) is refused with [`Code::LedgerUnprotected`].

use super::SCHEMA_VERSION;
use crate::ops::LEDGER_ACTOR;
use crate::store::{seal, Head, Sealed};
use actionseal_core::ledger::{Event, EventKind};
use actionseal_core::{Code, Error, OwnedValue, Result, Value};
use std::borrow::Cow;

/// The schema version recorded (`None`: no row), checked: one this build can open.
pub(crate) fn version(found: Option<i64>) -> Result<i64> {
    match found {
        Some(v) if v > SCHEMA_VERSION => Err(Error::new(
            Code::LedgerSchemaTooNew,
            format!(
                "the ledger's schema is version {v}, written by a newer actionseal; this one \
                 knows version {SCHEMA_VERSION} and will not touch it"
            ),
        )),
        Some(v) if v >= 1 => Ok(v),
        other => Err(Error::new(
            Code::LedgerSchemaInvalid,
            format!(
                "the ledger records schema version {}, which no actionseal wrote: its schema \
                 table was changed by hand, and it is not opened",
                other.map_or_else(|| "none".to_owned(), |v| v.to_string())
            ),
        )),
    }
}

/// The refusal of a ledger whose triggers the opening role could not restore.
pub(crate) fn unprotected(problems: &[String], why: impl std::fmt::Display) -> Error {
    Error::new(
        Code::LedgerUnprotected,
        format!(
            "the triggers that keep the ledger's events append-only are not intact ({}), and \
             restoring them failed ({why}): open the ledger once as the owner of its tables, \
             which restores them and records it in the audit, then verify the audit against \
             your exported heads",
            problems.join(", ")
        ),
    )
}

/// The event recording that the triggers were restored, sealed after chain 0's `head`: the
/// sealed row and the chain's new head.
pub(crate) fn restored(now: i64, problems: &[String], head: Head) -> Result<(Sealed, Head)> {
    let detail: OwnedValue = Value::Object(
        actionseal_core::Object::from_entries(vec![(
            Cow::Borrowed("problems"),
            Value::Array(
                problems
                    .iter()
                    .map(|p| Value::String(Cow::Owned(p.clone())))
                    .collect(),
            ),
        )])
        .unwrap_or_default(),
    );
    let mut events = [Event {
        chain: 0,
        seq: 0,
        at: now,
        tenant: LEDGER_ACTOR.to_owned(),
        task: None,
        kind: EventKind::AppendOnlyRestored,
        actor: LEDGER_ACTOR.to_owned(),
        action_digest: None,
        approved_digest: None,
        decision_id: None,
        fence: None,
        outcome: None,
        reasons: Vec::new(),
        drift: Vec::new(),
        state: None,
        detail,
        prev: None,
    }];
    let (mut sealed, head) = seal(&mut events, head)?;
    Ok((sealed.remove(0), head))
}
