//! Batches (issue 28) as their events record them, and the ledger's batch and lineage rows
//! held to those events.
//!
//! A batch's events are about the batch, not a task (chain 0): `batch_proposed` creates it
//! (and, for a first batch, its lineage), `batch_amended` replaces its digest and items,
//! `batch_decided` decides it. A lineage's caps totals and breaker change with its items'
//! claims and outcomes and with the breaker's transitions: every event that changes one names
//! the lineage (`detail.lineage`) and the digest of what it left (`detail.totals_digest`,
//! `detail.breaker_digest`). Events hold digests, never argument values; a row holds the texts
//! whose digests they are, so a row edited, rewound or deleted, or one no event made, is found.

use super::{detail_digest, detail_int, detail_str, proof_of, same, Mismatch, Place};
use crate::json::digest::Digest;
use crate::model::approval::Decision;
use crate::model::ledger::event::{Event, EventKind};
use crate::model::ledger::state::{next, Op, Snapshot, State};
use std::collections::{HashMap, HashSet};

/// A batch's row as a ledger stores it. Texts are the canonical JSON the ledger stored.
#[derive(Clone, Copy, Debug)]
pub struct StoredBatch<'a> {
    pub id: &'a str,
    pub lineage: &'a str,
    /// `awaiting_approval`, `approved` or `rejected`.
    pub state: State,
    /// The batch document; its fingerprint is the batch's digest.
    pub header: &'a str,
    pub digest: Digest,
    pub proposed_digest: Digest,
    /// The selected items' task ids (JSON array).
    pub items: &'a str,
    pub amendments: i64,
    /// The decision record, once decided.
    pub record: Option<&'a str>,
    /// How it was proven, as a task row's `proof` keeps it.
    pub proof: Option<&'a str>,
}

/// A lineage's row as a ledger stores it.
#[derive(Clone, Copy, Debug)]
pub struct StoredLineage<'a> {
    pub id: &'a str,
    /// The batch whose items may be claimed now.
    pub current: &'a str,
    pub generation: i64,
    /// The caps' running totals (core's JSON, canonical).
    pub totals: &'a str,
    /// The breaker (core's JSON, canonical).
    pub breaker: &'a str,
}

#[derive(Clone, Debug)]
struct Batch {
    lineage: String,
    state: State,
    digest: Digest,
    proposed_digest: Digest,
    items: Digest,
    amendments: i64,
    /// The record's digest and how it was proven, once decided.
    record: Option<Digest>,
    proof: Option<String>,
    at: Place,
}

#[derive(Clone, Debug)]
struct Lineage {
    current: String,
    generation: i64,
    totals: Digest,
    breaker: Digest,
    at: Place,
}

/// Every batch and lineage the replay has seen.
#[derive(Default)]
pub(super) struct Batches {
    batches: HashMap<String, Batch>,
    lineages: HashMap<String, Lineage>,
}

/// Whether events of this kind are about a batch or its lineage rather than a task.
pub(super) fn is_about_a_batch(kind: EventKind) -> bool {
    use EventKind::*;
    matches!(
        kind,
        BatchProposed
            | BatchProposeDuplicate
            | BatchAmended
            | BatchAmendRefused
            | BatchDecided
            | BatchDecisionDuplicate
            | BatchDecisionRefused
            | BatchClaimRefused
            | BreakerTripped
            | BreakerHalfOpened
            | BreakerClosed
    )
}

impl Batches {
    /// Takes an event about a batch or a lineage: an error names the member where it does
    /// not follow from the events before it (with the batch's id as the mismatch's subject).
    pub(super) fn apply(&mut self, e: &Event, at: Place) -> Result<(), Mismatch> {
        let id = detail_str(e, "batch_id").map(str::to_owned);
        let bad = |field| Mismatch {
            task: id.clone(),
            field,
        };
        let id = id.as_deref().ok_or(bad("detail/batch_id"))?;
        use EventKind::*;
        match e.kind {
            BatchProposed => self.proposed(e, id, at).map_err(bad),
            BreakerTripped | BreakerHalfOpened | BreakerClosed => {
                self.lineage_changed(e, at).map_err(bad)
            }
            _ => {
                let b = self.batches.get_mut(id).ok_or(bad("detail/batch_id"))?;
                step(b, e).map_err(bad)?;
                b.at = at;
                Ok(())
            }
        }
    }

    fn proposed(&mut self, e: &Event, id: &str, at: Place) -> Result<(), &'static str> {
        if self.batches.contains_key(id) {
            return Err("detail/batch_id");
        }
        if e.state != Some(State::AwaitingApproval) {
            return Err("state");
        }
        let lineage = detail_str(e, "lineage").ok_or("detail/lineage")?;
        let generation = detail_int(e, "generation").ok_or("detail/generation")?;
        let digest = e.action_digest.ok_or("action_digest")?;
        match self.lineages.get_mut(lineage) {
            None if lineage == id && generation == 1 => {
                let l = Lineage {
                    current: id.to_owned(),
                    generation,
                    totals: detail_digest(e, "totals_digest").ok_or("detail/totals_digest")?,
                    breaker: detail_digest(e, "breaker_digest").ok_or("detail/breaker_digest")?,
                    at,
                };
                self.lineages.insert(lineage.to_owned(), l);
            }
            Some(l) if lineage != id && generation == l.generation + 1 => {
                l.current = id.to_owned();
                l.generation = generation;
                l.at = at;
            }
            _ => return Err("detail/generation"),
        }
        let b = Batch {
            lineage: lineage.to_owned(),
            state: State::AwaitingApproval,
            digest,
            proposed_digest: digest,
            items: detail_digest(e, "items_digest").ok_or("detail/items_digest")?,
            amendments: 0,
            record: None,
            proof: None,
            at,
        };
        self.batches.insert(id.to_owned(), b);
        Ok(())
    }

    /// Takes an event that names a lineage's new totals or breaker (a breaker transition, or
    /// an item's claim or outcome).
    pub(super) fn lineage_changed(&mut self, e: &Event, at: Place) -> Result<(), &'static str> {
        let Some(id) = detail_str(e, "lineage") else {
            return Ok(());
        };
        let l = self.lineages.get_mut(id).ok_or("detail/lineage")?;
        if let Some(d) = detail_digest(e, "totals_digest") {
            l.totals = d;
        }
        if let Some(d) = detail_digest(e, "breaker_digest") {
            l.breaker = d;
        }
        l.at = at;
        Ok(())
    }

    /// Holds every batch and lineage row to the replay: the first mismatch in line order. A
    /// row no event made is a mismatch at `batches/id` or `lineages/id`, reported past the
    /// last line; a batch or lineage without its row, there too.
    pub(super) fn compare(
        &self,
        batches: &[StoredBatch<'_>],
        lineages: &[StoredLineage<'_>],
    ) -> Option<(Mismatch, Place)> {
        let mut first: Option<(Mismatch, Place)> = None;
        let mut keep = |id: &str, field, at: Place| {
            if first.as_ref().is_none_or(|(_, f)| at.0 < f.0) {
                let task = Some(id.to_owned());
                first = Some((Mismatch { task, field }, at));
            }
        };
        const NOWHERE: Place = (i64::MAX, 0, 0);
        for row in batches {
            match self.batches.get(row.id) {
                Some(b) => {
                    if let Some(field) = batch_differs(b, row) {
                        keep(row.id, field, b.at);
                    }
                }
                None => keep(row.id, "batches/id", NOWHERE),
            }
        }
        for row in lineages {
            match self.lineages.get(row.id) {
                Some(l) => {
                    if let Some(field) = lineage_differs(l, row) {
                        keep(row.id, field, l.at);
                    }
                }
                None => keep(row.id, "lineages/id", NOWHERE),
            }
        }
        let ids: HashSet<&str> = batches.iter().map(|b| b.id).collect();
        for (id, b) in &self.batches {
            if !ids.contains(id.as_str()) {
                keep(id, "batches/id", b.at);
            }
        }
        let ids: HashSet<&str> = lineages.iter().map(|l| l.id).collect();
        for (id, l) in &self.lineages {
            if !ids.contains(id.as_str()) {
                keep(id, "lineages/id", l.at);
            }
        }
        first
    }
}

/// A batch event after its proposal, checked against the batch so far and applied.
fn step(b: &mut Batch, e: &Event) -> Result<(), &'static str> {
    use EventKind::*;
    let snapshot = Snapshot {
        state: b.state,
        fence: 0,
        lease_until: None,
    };
    let moved = |op: Op| match next(&snapshot, op, e.at) {
        Ok(s) if e.state == Some(s) => Ok(s),
        _ => Err("state"),
    };
    match e.kind {
        BatchProposeDuplicate
        | BatchAmendRefused
        | BatchDecisionDuplicate
        | BatchDecisionRefused
        | BatchClaimRefused => {
            if e.state != Some(b.state) {
                return Err("state");
            }
        }
        BatchAmended => {
            moved(Op::Amend)?;
            if !same(detail_digest(e, "amends"), Some(b.digest)) {
                return Err("detail/amends");
            }
            b.digest = e.action_digest.ok_or("action_digest")?;
            b.items = detail_digest(e, "items_digest").ok_or("detail/items_digest")?;
            b.amendments += 1;
        }
        BatchDecided => {
            let outcome = e.outcome.as_deref().unwrap_or("");
            let decision = Decision::parse(outcome).map_err(|_| "outcome")?;
            if !same(e.approved_digest, Some(b.digest)) {
                return Err("approved_digest");
            }
            // Under a quorum, a member's decision that neither meets the quorum nor vetoes
            // the round leaves the batch awaiting the rest of it.
            let member = super::member(&e.detail, "counted_as").is_some();
            if member && b.state == State::AwaitingApproval && e.state == Some(b.state) {
                return Ok(());
            }
            b.state = moved(Op::Decide(decision))?;
            b.record = Some(detail_digest(e, "record_digest").ok_or("detail/record_digest")?);
            b.proof = proof_of(e);
        }
        _ => return Err("kind"),
    }
    Ok(())
}

fn text_is(text: Option<&str>, d: Option<Digest>) -> bool {
    same(text.map(|s| Digest::of(s.as_bytes())), d)
}

fn batch_differs(b: &Batch, row: &StoredBatch<'_>) -> Option<&'static str> {
    let checks: [(&'static str, bool); 9] = [
        ("batches/lineage", row.lineage == b.lineage),
        ("batches/state", row.state == b.state),
        ("batches/digest", row.digest.ct_eq(&b.digest)),
        ("batches/header", text_is(Some(row.header), Some(b.digest))),
        (
            "batches/proposed_digest",
            row.proposed_digest.ct_eq(&b.proposed_digest),
        ),
        ("batches/items", text_is(Some(row.items), Some(b.items))),
        ("batches/amendments", row.amendments == b.amendments),
        ("batches/record", text_is(row.record, b.record)),
        ("batches/proof", row.proof == b.proof.as_deref()),
    ];
    checks.iter().find(|(_, ok)| !ok).map(|(field, _)| *field)
}

fn lineage_differs(l: &Lineage, row: &StoredLineage<'_>) -> Option<&'static str> {
    let checks: [(&'static str, bool); 4] = [
        ("lineages/current", row.current == l.current),
        ("lineages/generation", row.generation == l.generation),
        ("lineages/totals", text_is(Some(row.totals), Some(l.totals))),
        (
            "lineages/breaker",
            text_is(Some(row.breaker), Some(l.breaker)),
        ),
    ];
    checks.iter().find(|(_, ok)| !ok).map(|(field, _)| *field)
}
