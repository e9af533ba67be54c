//! Evidence bundles (issue 26): one document about one task that anyone can verify without
//! this database (core's `evidence::verify_evidence`).
//!
//! An export is recorded first, as an `evidence_exported` event of the task listing its events
//! before it; then a checkpoint sequences that event into the Merkle log (the host may have it
//! cosigned by witnesses); then the bundle is read: the task's events up to the export, each
//! with its inclusion proof in that checkpoint, the documents they fingerprint, and the latest
//! earlier checkpoint a witness cosigned, with the consistency proof from it.

use crate::json::stored;
use crate::store::{storage, Lock, Tx};
use crate::tree::sql::{Access, Arg, Sql};
use crate::tree::stored::{all as checkpoints, Stored};
use crate::tree::Checkpoint;
use crate::Ledger;
use actionseal_core::batch::ItemProof;
use actionseal_core::evidence::{Anchor, Bundle, Entry, Witnessed};
use actionseal_core::ledger::{reattach, DecisionEnvelope, Event, EventKind};
use actionseal_core::tlog::merkle;
use actionseal_core::{Action, Approval, Code, Contract, Digest, Error, OwnedValue, Result, Value};

impl Ledger {
    /// Exports the evidence bundle of task `task_id` for `actor` (who asked, recorded in the
    /// audit), as of a checkpoint made now: see [`Ledger::evidence_with`].
    pub fn evidence(
        &self,
        task_id: &str,
        actor: &str,
        contract: Option<&Value<'_>>,
    ) -> Result<Bundle> {
        self.evidence_with(task_id, actor, contract, Ok)
    }

    /// Records the export of task `task_id`'s evidence (an `evidence_exported` event by
    /// `actor`), makes a checkpoint and hands it to `publish` (which may return it cosigned by
    /// witnesses), and returns the bundle as of that checkpoint. The contract is the one the
    /// ledger kept when the task was proposed; `contract` is needed only for a task proposed
    /// before the ledger kept them (schema version 7). When given it must be the one the
    /// task's proposal names, which is the one the ledger kept:
    /// [`Code::EvidenceMismatch`] at `/contract` otherwise, before anything is recorded.
    /// Needs the ledger's checkpoint key; [`Code::TaskNotFound`] for an unknown task.
    pub fn evidence_with(
        &self,
        task_id: &str,
        actor: &str,
        contract: Option<&Value<'_>>,
        publish: impl FnOnce(Checkpoint) -> Result<Checkpoint>,
    ) -> Result<Bundle> {
        self.export_evidence(task_id, actor, contract, publish, false)
    }

    /// [`Ledger::evidence_with`], the bundle also holding the disclosures of the task's
    /// sensitive values not yet shredded (issue 29), which `verify_evidence` checks against
    /// the decided action's commitments, proving the values. Only where the server's policy
    /// allows it ([`crate::LedgerOptions::disclosure_export`]), else [`Code::InvalidRequest`]
    /// before anything is recorded; the export event names the places disclosed.
    pub fn evidence_disclosing(
        &self,
        task_id: &str,
        actor: &str,
        contract: Option<&Value<'_>>,
        publish: impl FnOnce(Checkpoint) -> Result<Checkpoint>,
    ) -> Result<Bundle> {
        if self.disclosure_export != crate::DisclosureExport::OnRequest {
            return Err(Error::new(
                Code::InvalidRequest,
                "this ledger's policy exports no sensitive value (disclosure_export is \
                 refused): ask for the bundle without disclosures",
            ));
        }
        self.export_evidence(task_id, actor, contract, publish, true)
    }

    fn export_evidence(
        &self,
        task_id: &str,
        actor: &str,
        contract: Option<&Value<'_>>,
        publish: impl FnOnce(Checkpoint) -> Result<Checkpoint>,
        disclose: bool,
    ) -> Result<Bundle> {
        actionseal_core::ledger::check_identity("actor", actor)?;
        if self.signer.is_none() {
            // Refused before anything is recorded: without a checkpoint there is no bundle.
            self.checkpoint()?;
        }
        if let Some(given) = contract {
            self.same_contract(task_id, given)?;
        }
        let disclosures = self
            .write(|tx, now| crate::ops::evidence::exported(tx, now, task_id, actor, disclose))?;
        let checkpoint = publish(self.checkpoint()?)?;
        let (mut entries, contract_doc, witnessed) = self.tree(Access::Read, |sql| {
            let entries = entries(sql, task_id, checkpoint.size)?;
            let witnessed = witnessed(sql, &checkpoint)?;
            let kept = kept_contract(sql, &entries)?;
            Ok((entries, kept, witnessed))
        })?;
        // The last export in the tree, and the task's events before it.
        let at = entries
            .iter()
            .rposition(|e| e.event.kind == EventKind::EvidenceExported)
            .ok_or_else(|| storage("evidence", "the export is not in the checkpoint"))?;
        entries.truncate(at + 1);
        let export = entries
            .pop()
            .ok_or_else(|| storage("evidence", "no export"))?;
        let docs = self.read(|tx| documents(tx, task_id, &entries))?;
        // A given contract was held to the proposal's above.
        let contract =
            match (contract_doc, contract) {
                (Some(doc), _) => doc,
                (None, Some(given)) => given.clone().into_owned(),
                (None, None) => return Err(Error::new(
                    Code::InvalidRequest,
                    "the ledger does not hold this task's contract (it was proposed before the \
                     ledger kept contracts): pass the contract its action names",
                )),
            };
        held_to_proposal(
            docs.actions.first(),
            &contract,
            "the contract is not the one the task's action names",
        )?;
        let keys = crate::json::obj(vec![(
            "ledger",
            Value::Array(
                self.signer
                    .iter()
                    .map(|s| crate::json::s(&s.verifier().to_string()))
                    .collect(),
            ),
        )]);
        Ok(Bundle {
            task: task_id.to_owned(),
            contract,
            actions: docs.actions,
            reasons: docs.reasons,
            decisions: docs.decisions,
            in_batch: docs.in_batch,
            events: entries,
            export,
            checkpoint: Anchor {
                note: checkpoint.cosigned_note(),
                timestamp: checkpoint.timestamp.clone(),
            },
            witnessed,
            keys,
            disclosures,
        })
    }
}

impl Ledger {
    /// Refuses `given` unless it is the contract the task's proposal names, which is the one
    /// the ledger kept for the task when it kept one.
    fn same_contract(&self, task_id: &str, given: &Value<'_>) -> Result<()> {
        let task = self.task(task_id)?;
        let proposal = task.proposed_action.as_ref().unwrap_or(&task.action);
        held_to_proposal(
            Some(proposal.value()),
            given,
            "the contract passed is not the one the task was proposed under (the one the \
             ledger kept for it)",
        )
    }
}

/// Refuses `contract` unless it is the one `proposal` (the task's first action) names, by
/// its digest (RFC 8785): [`Code::EvidenceMismatch`] at `/contract`, saying `why`.
fn held_to_proposal(proposal: Option<&Value<'_>>, contract: &Value<'_>, why: &str) -> Result<()> {
    let named = proposal
        .and_then(Value::as_object)
        .and_then(|o| o.get("contract"))
        .and_then(Value::as_str);
    let digest = Contract::from_value(contract)
        .map_err(|e| e.in_key("contract"))?
        .digest();
    if named == Some(digest.to_string().as_str()) {
        return Ok(());
    }
    Err(Error::new(Code::EvidenceMismatch, why).in_key("contract"))
}

/// The task's events in the tree of `size` leaves, in log order, each with its proof (the
/// tree's one path, [`crate::tree::task_proofs`]); any written since are not in the bundle.
fn entries(sql: &mut dyn Sql, task_id: &str, size: u64) -> Result<Vec<Entry>> {
    let (proofs, _) = crate::tree::task_proofs(sql, task_id, size)?;
    if proofs.is_empty() {
        return Err(Error::new(
            Code::TaskNotFound,
            format!("no task {task_id:?} in the Merkle log"),
        ));
    }
    proofs
        .into_iter()
        .map(|p| {
            Ok(Entry {
                index: p.leaf,
                proof: p.proof,
                event: Event::from_value(&stored(&p.event)?)?,
                text: p.event,
            })
        })
        .collect()
}

/// The latest checkpoint before `checkpoint` that a witness cosigned, with the consistency
/// proof from it.
fn witnessed(sql: &mut dyn Sql, checkpoint: &Checkpoint) -> Result<Vec<Witnessed>> {
    let earlier = checkpoints(sql)?
        .into_iter()
        .rfind(|c| c.size < checkpoint.size && !c.cosignatures.is_empty());
    earlier
        .map(|c| {
            Ok(Witnessed {
                consistency: merkle::consistency_proof(&mut Stored(sql), c.size, checkpoint.size)?,
                note: c.cosigned_note(),
            })
        })
        .into_iter()
        .collect()
}

/// The contract the ledger kept for the task, if it kept one: the one its proposal names.
fn kept_contract(sql: &mut dyn Sql, entries: &[Entry]) -> Result<Option<OwnedValue>> {
    let named = entries
        .first()
        .filter(|e| e.event.kind == EventKind::Proposed)
        .and_then(|e| e.event.detail.as_object()?.get("contract")?.as_str());
    let Some(digest) = named else {
        return Ok(None);
    };
    let rows = sql.rows(
        "SELECT document FROM ledger_contracts WHERE digest = $1",
        &[Arg::Text(digest)],
    )?;
    rows.first()
        .and_then(|r| r.first())
        .map(|c| stored(c.text()?).map(Value::into_owned))
        .transpose()
}

/// What the events fingerprint, read from the task's rows.
struct Documents {
    actions: Vec<OwnedValue>,
    reasons: Vec<String>,
    decisions: Vec<OwnedValue>,
    /// For each decision, the item's inclusion proof when it was a decision over a batch.
    in_batch: Vec<Option<ItemProof>>,
}

fn documents(tx: &mut dyn Tx, task_id: &str, entries: &[Entry]) -> Result<Documents> {
    let t = crate::ops::locked_task(tx, task_id)?;
    let amendments = tx.amendments(task_id)?;
    let proposal = t.proposed_action.as_deref().unwrap_or(&t.action);
    let mut actions = vec![stored(proposal)?.into_owned()];
    for a in &amendments {
        actions.push(stored(&a.action)?.into_owned());
    }
    let parsed: Vec<(Digest, Action)> = actions
        .iter()
        .map(|a| Action::from_value(a).map(|x| (x.digest(), x)))
        .collect::<Result<_>>()?;
    let (mut decisions, mut in_batch) = (Vec::new(), Vec::new());
    for e in entries.iter().map(|e| &e.event) {
        if e.kind != EventKind::Decided {
            continue;
        }
        let (record, proof) = match batch_of(e) {
            Some(batch) => batch_decision(tx, task_id, e, batch)?,
            None => (decision(tx, e, &parsed)?, None),
        };
        decisions.push(record);
        in_batch.push(proof);
    }
    Ok(Documents {
        actions,
        reasons: amendments.into_iter().map(|a| a.reason).collect(),
        decisions,
        in_batch,
    })
}

/// The batch a decided event's decision was about, when it was a batch decision.
fn batch_of(e: &Event) -> Option<&str> {
    e.detail.as_object()?.get("batch_id")?.as_str()
}

/// A batch decision's record as the batch `batch_id` keeps it, with the proof the event holds
/// put back, and the inclusion proof of item `task_id` in that batch, built again from the
/// batch's items: a remainder re-approved later is another batch, with other proofs.
fn batch_decision(
    tx: &mut dyn Tx,
    task_id: &str,
    e: &Event,
    batch_id: &str,
) -> Result<(OwnedValue, Option<ItemProof>)> {
    let b = tx
        .batch(batch_id, Lock::None)?
        .ok_or_else(|| storage("evidence", format!("the batch {batch_id:?} is not kept")))?;
    // The decision that decided the batch is on its row; any other member of its round under a
    // quorum is a row of the round.
    let record = match (&b.record, &b.decision_id) {
        (Some(record), Some(id)) if Some(id) == e.decision_id.as_ref() => record.clone(),
        _ => tx
            .round_decisions(&b.approval_id)?
            .into_iter()
            .find(|r| Some(&r.decision_id) == e.decision_id.as_ref())
            .map(|r| r.record)
            .ok_or_else(|| storage("evidence", "a batch without the decision its item names"))?,
    };
    let record = stored(&record)?;
    let items = crate::ops::batch::ids(&b.items)?
        .iter()
        .map(|id| crate::ops::locked_task(tx, id))
        .collect::<Result<Vec<_>>>()?;
    let contract = Contract::from_value(&stored(&b.contract)?)?;
    let batch = crate::ops::batch::rebuild(&b, &contract, &items)?;
    let index = items
        .iter()
        .position(|t| t.id == task_id)
        .ok_or_else(|| storage("evidence", "an item outside the batch that decided it"))?;
    let proof = batch
        .proof(index as u64)
        .ok_or_else(|| storage("evidence", "an item without its proof"))?;
    let proven = e.detail.as_object().and_then(|o| o.get("proof"));
    let record = match proven {
        Some(p) => reattach(&record, p),
        None => record.into_owned(),
    };
    Ok((record, Some(proof)))
}

/// A decided event's approval record, rebuilt from the envelope the ledger kept and the
/// action the event names, with the proof the event holds put back.
fn decision(tx: &mut dyn Tx, e: &Event, actions: &[(Digest, Action)]) -> Result<OwnedValue> {
    let id = e
        .decision_id
        .as_deref()
        .ok_or_else(|| storage("evidence", "a decided event without its decision"))?;
    let text = tx
        .decision(id)?
        .ok_or_else(|| storage("evidence", format!("the decision {id:?} is not kept")))?;
    let envelope = DecisionEnvelope::from_value(&stored(&text)?)?;
    let at = actions
        .iter()
        .position(|(d, _)| e.action_digest.is_some_and(|a| a.ct_eq(d)))
        .ok_or_else(|| storage("evidence", "a decision about an action the task never had"))?;
    let mut input = envelope.input();
    if at > 0 {
        input.proposed_digest = actions.first().map(|(d, _)| *d);
    }
    let record = Approval::decide(&actions[at].1, &input)?;
    let proof = e.detail.as_object().and_then(|o| o.get("proof"));
    Ok(match proof {
        Some(p) => reattach(record.value(), p),
        None => record.value().clone(),
    })
}
