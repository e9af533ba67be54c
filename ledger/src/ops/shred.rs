//! Sensitive values (issue 29): keeping a task's disclosures apart when it is proposed, reading
//! them back for a claim, and shredding them (redaction, retention, a finished task), each
//! shredding an audited `shredded` event that names places and classes, never a value.

use super::{detail, event, locked_task};
use crate::json::{obj, s};
use crate::model::Shredded;
use crate::store::{storage, DisclosureRow, Done, TaskRow, Tx};
use actionseal_core::ledger::{AtFinish, EventKind};
use actionseal_core::sensitive::{recommit, reveal, Coverage, Disclosure};
use actionseal_core::{fingerprint, Action, Code, Contract, Error, Result, Value};

/// Why a task's disclosures were shredded, as its `shredded` event says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShredReason {
    /// Someone asked for it ([`crate::Ledger::redact`]).
    Redact,
    /// The tenant's retention policy for the class ran out.
    Retention,
    /// The task finished and the tenant's policy shreds the class then.
    Finished,
}

impl ShredReason {
    /// The stable name in the audit.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ShredReason::Redact => "redact",
            ShredReason::Retention => "retention",
            ShredReason::Finished => "finished",
        }
    }
}

/// Stores a new task's disclosures, each with the class the contract gives its place.
pub(crate) fn keep(
    tx: &mut dyn Tx,
    now: i64,
    t: &TaskRow,
    contract: &Contract,
    disclosures: &[Disclosure],
) -> Result<()> {
    tx.insert_disclosures(&rows(t, contract, disclosures, now)?)
}

/// Replaces an amended task's disclosures with those of its amended action (those of the
/// values the reviewer left alone are the same bytes). Retention still counts from the
/// proposal: `proposed_at`, the oldest row's.
pub(crate) fn replace(
    tx: &mut dyn Tx,
    t: &TaskRow,
    contract: &Contract,
    disclosures: &[Disclosure],
    proposed_at: i64,
) -> Result<()> {
    tx.replace_disclosures(&t.id, &rows(t, contract, disclosures, proposed_at)?)
}

fn rows(
    t: &TaskRow,
    contract: &Contract,
    disclosures: &[Disclosure],
    created_at: i64,
) -> Result<Vec<DisclosureRow>> {
    let sensitive = contract
        .sensitive()
        .ok_or_else(|| storage("disclosures", "a contract without sensitive places"))?;
    disclosures
        .iter()
        .map(|d| {
            let class = sensitive
                .class_of(d.pointer())
                .ok_or_else(|| storage("disclosures", "a disclosure of no sensitive place"))?;
            Ok(DisclosureRow {
                task_id: t.id.clone(),
                pointer: d.pointer().to_owned(),
                tenant: t.tenant.clone(),
                class: class.to_owned(),
                disclosure: Some(d.encoded().to_owned()),
                created_at,
                shredded_at: None,
            })
        })
        .collect()
}

/// A task's disclosures as stored: `Err` with [`Code::DisclosuresShredded`] when any was
/// shredded (the values to run with are gone), empty when it has none.
pub(crate) fn held(
    tx: &mut dyn Tx,
    t: &TaskRow,
) -> Result<std::result::Result<Vec<Disclosure>, Error>> {
    let rows = tx.disclosures(&t.id)?;
    if let Some(r) = rows.iter().find(|r| r.disclosure.is_none()) {
        return Ok(Err(Error::new(
            Code::DisclosuresShredded,
            format!(
                "task {} had its {} value at {} shredded before it ran: it cannot run \
                 (running the call needs a new proposal, under a new request id, and a new \
                 decision: this task's identity stays with its shredded values)",
                t.id, r.class, r.pointer
            ),
        )));
    }
    rows.iter()
        .map(|r| {
            let text = r.disclosure.as_deref().unwrap_or_default();
            Disclosure::parse(text).map_err(|e| storage("disclosures", e.code()))
        })
        .collect::<Result<Vec<_>>>()
        .map(Ok)
}

/// Whether a proposal (`committed`, with fresh salts, and its `disclosures`) is the action
/// task `t` holds or was proposed with: its values in the clear committed again with `t`'s
/// own salts give `t`'s action or its proposal. `false` when `t`'s disclosures were shredded
/// (nothing to compare with), and for the model's proposal once an amendment changed one of
/// its sensitive values: that value's salt went with it.
pub(crate) fn recognised(
    tx: &mut dyn Tx,
    t: &TaskRow,
    contract: &Contract,
    committed: &Action,
    disclosures: &[Disclosure],
) -> Result<bool> {
    let (Ok(held), Some(sensitive)) = (held(tx, t)?, contract.sensitive()) else {
        return Ok(false);
    };
    let Ok(clear) = reveal(sensitive, committed.value(), disclosures, Coverage::Every) else {
        return Ok(false);
    };
    let again = fingerprint(&recommit(sensitive, &clear, &held));
    Ok(again.ct_eq(&t.action_digest) || t.proposed_digest.is_some_and(|d| d.ct_eq(&again)))
}

/// Whether a stored action holds a commitment: only such a task has disclosures to read or
/// shred, so every other one costs no statement. (A canonical action spells one exactly so;
/// an argument that merely looks like one only costs a read.)
pub(crate) fn may_hold(t: &TaskRow) -> bool {
    t.action.contains("{\"_sd\":\"sha256:")
}

/// Shreds the disclosures of the locked task `t` that `which` selects, and records it in the
/// audit (nothing when none was held). Returns the places shredded, with their classes.
pub(crate) fn shred(
    tx: &mut dyn Tx,
    now: i64,
    t: &TaskRow,
    which: &dyn Fn(&DisclosureRow) -> bool,
    why: ShredReason,
    actor: &str,
) -> Result<Vec<(String, String)>> {
    let mut gone = Vec::new();
    for r in tx.disclosures(&t.id)? {
        if r.disclosure.is_some() && which(&r) && tx.shred(&t.id, &r.pointer, now)? {
            gone.push((r.pointer, r.class));
        }
    }
    if !gone.is_empty() {
        let places = gone
            .iter()
            .map(|(p, c)| obj(vec![("pointer", s(p)), ("class", s(c))]))
            .collect();
        let mut ev = event(t, now, EventKind::Shredded, actor);
        ev.outcome = Some(why.as_str().to_owned());
        ev.detail = detail(vec![("places", Value::Array(places))]);
        tx.append(ev);
    }
    Ok(gone)
}

/// redact(task) by `actor`: every disclosure of the task shredded.
pub(crate) fn redact(
    tx: &mut dyn Tx,
    now: i64,
    task_id: &str,
    actor: &str,
) -> Result<Done<Shredded>> {
    let t = locked_task(tx, task_id)?;
    let places = shred(tx, now, &t, &|_| true, ShredReason::Redact, actor)?;
    Ok(Done::Ok(Shredded {
        task_id: t.id,
        places,
    }))
}

/// Retention of `class` for the locked task `task_id`: its disclosures of that class shredded.
pub(crate) fn expire(
    tx: &mut dyn Tx,
    now: i64,
    task_id: &str,
    class: &str,
    actor: &str,
) -> Result<Done<Shredded>> {
    let t = locked_task(tx, task_id)?;
    let places = shred(
        tx,
        now,
        &t,
        &|r| r.class == class,
        ShredReason::Retention,
        actor,
    )?;
    Ok(Done::Ok(Shredded {
        task_id: t.id,
        places,
    }))
}

/// What a task that just finished shreds: the classes its tenant's policies shred then.
pub(crate) fn at_finish(tx: &mut dyn Tx, now: i64, t: &TaskRow, actor: &str) -> Result<()> {
    if !t.state.is_final() || !may_hold(t) {
        return Ok(());
    }
    let classes: Vec<String> = tx
        .retention()?
        .into_iter()
        .filter(|p| p.tenant == t.tenant && p.at_finish == AtFinish::Shred.as_str())
        .map(|p| p.class)
        .collect();
    if !classes.is_empty() {
        let which = |r: &DisclosureRow| classes.contains(&r.class);
        shred(tx, now, t, &which, ShredReason::Finished, actor)?;
    }
    Ok(())
}
