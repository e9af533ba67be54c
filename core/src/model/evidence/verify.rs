//! [`verify_evidence`]: a bundle checked against a verifier's trust, member by member, in the
//! order that reports the most specific failure first.

use super::bundle::{Bundle, Entry};
use super::timeline::{Step, Timeline};
use super::trust::Trust;
use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::Value;
use crate::model::action::Action;
use crate::model::approval::{Approval, Subject};
use crate::model::batch::tree::verify_known;
use crate::model::batch::{BatchDecision, Header, ItemProof};
use crate::model::contract::Contract;
use crate::model::delegation::{verify_chain, Chain};
use crate::model::ledger::link_digest;
use crate::model::ledger::values::string;
use crate::model::ledger::{
    task_id, Arrival, BatchEnvelope, DecisionEnvelope, Envelope, EventKind, Presented, Replay,
};
use crate::model::proof::{carries_proof, ProofRequirement};
use crate::tlog::merkle::{leaf_hash, verify_inclusion};
use rounds::Judged;

mod anchor;
pub(crate) mod disclosed;
mod rounds;
#[cfg(test)]
mod tests;

/// Verifies an evidence bundle against `trust` (see [`super::Trust`] for its shape) without
/// any database: the verified timeline, or the first failure with its code and the JSON
/// Pointer of the member that broke (in the bundle; a malformed trust is
/// [`Code::InvalidEvidenceTrust`] at its own member).
pub fn verify_evidence(bundle: &Value<'_>, trust: &Value<'_>) -> Result<Timeline> {
    let trust = Trust::from_value(trust)?;
    let bundle = Bundle::from_value(bundle)?;
    let log = anchor::verify(&bundle, &trust)?;
    included(&bundle, log.size, &log.root_hash)?;
    complete(&bundle)?;
    replayed(&bundle)?;
    let (contract, actions) = documents(&bundle)?;
    let (proofs, judged) = decisions(&bundle, &trust, &actions)?;
    let in_force = Contract::from_value(&bundle.contract)
        .map_err(|e| e.with_code(Code::InvalidEvidence).in_key("contract"))?;
    rounds::required(&bundle, &in_force, &actions)?;
    rounds::one_batch_a_round(&bundle)?;
    rounds::decided_in_round(&bundle, &judged)?;
    rounds::separated(&bundle, &in_force, &judged, &actions)?;
    rounds::tallied(&bundle, &in_force, &judged)?;
    rounds::claimed_in_time(&bundle, &judged)?;
    let decided = &actions[actions.len() - 1].1;
    let values = disclosed::disclosed(&bundle, &in_force, decided)?;
    let mut timeline = timeline(&bundle, contract, &actions[0].1, proofs, log.view);
    timeline.disclosed = values;
    Ok(timeline)
}

fn at_event(i: usize, member: &str) -> impl Fn(Error) -> Error + '_ {
    move |e| {
        let e = if member.is_empty() {
            e
        } else {
            e.in_key(member)
        };
        e.in_index(i).in_key("events")
    }
}

/// Each event is about this task, in log order, and in the checkpoint at its index.
fn included(b: &Bundle, size: u64, root: &crate::tlog::merkle::Hash) -> Result<()> {
    let mut last: Option<u64> = None;
    for (i, entry) in b.events.iter().enumerate() {
        if entry.event.task.as_deref() != Some(b.task.as_str()) {
            return Err(at_event(i, "event")(
                Error::new(
                    Code::EvidenceOtherTask,
                    format!("an event about another task than {:?}", b.task),
                )
                .in_key("task"),
            ));
        }
        if last.is_some_and(|l| entry.index <= l) {
            return Err(at_event(i, "index")(Error::new(
                Code::EvidenceIncomplete,
                "the events are not in log order",
            )));
        }
        last = Some(entry.index);
        inclusion(entry, size, root).map_err(at_event(i, "proof"))?;
    }
    let export = &b.export;
    inclusion(export, size, root).map_err(|e| e.in_key("proof").in_key("export"))?;
    if last.is_some_and(|l| export.index <= l) {
        return Err(Error::new(
            Code::EvidenceIncomplete,
            "the export must come after every event it lists",
        )
        .in_key("index")
        .in_key("export"));
    }
    Ok(())
}

fn inclusion(entry: &Entry, size: u64, root: &crate::tlog::merkle::Hash) -> Result<()> {
    let leaf = leaf_hash(entry.text.as_bytes());
    verify_inclusion(&leaf, entry.index, size, &entry.proof, root)
}

/// The export event lists exactly the bundle's events: none removed, added or reordered.
fn complete(b: &Bundle) -> Result<()> {
    let e = &b.export.event;
    let at = |e: Error| e.in_key("event").in_key("export");
    let member = |k: &str| e.detail.as_object().and_then(|o| o.get(k));
    if e.kind != EventKind::EvidenceExported {
        return Err(at(Error::new(
            Code::InvalidEvidence,
            "the export entry must be an evidence_exported event",
        )
        .in_key("kind")));
    }
    if e.task.as_deref() != Some(b.task.as_str()) {
        return Err(at(Error::new(
            Code::EvidenceOtherTask,
            format!("the export is about another task than {:?}", b.task),
        )
        .in_key("task")));
    }
    let Some(Value::Array(listed)) = member("events") else {
        return Err(at(Error::new(
            Code::InvalidEvidence,
            "the export lists no events",
        )
        .in_key("events")
        .in_key("detail")));
    };
    for (i, entry) in b.events.iter().enumerate() {
        let digest = Digest::of(entry.text.as_bytes());
        let named = listed.get(i).and_then(Value::as_str);
        if named != Some(digest.to_string().as_str()) {
            return Err(Error::new(
                Code::EvidenceIncomplete,
                format!(
                    "event {i} is not the one the export lists there: an event was removed, \
                     added or moved"
                ),
            )
            .in_index(i)
            .in_key("events"));
        }
    }
    if listed.len() != b.events.len() {
        return Err(Error::new(
            Code::EvidenceIncomplete,
            format!(
                "the export lists {} events and the bundle holds {}: an event was removed",
                listed.len(),
                b.events.len()
            ),
        )
        .in_key("events"));
    }
    Ok(())
}

/// The events, the export last, follow one another by the ledger's rules.
fn replayed(b: &Bundle) -> Result<()> {
    let mut replay = Replay::of_task();
    let entries = b.events.iter().chain(std::iter::once(&b.export));
    for (i, entry) in entries.enumerate() {
        let e = &entry.event;
        let digest = Digest::of(entry.text.as_bytes());
        replay
            .apply(e, digest, (i as i64, e.chain, e.seq))
            .map_err(|m| {
                let mut err = Error::new(
                    Code::AuditChainBroken,
                    format!(
                        "the {} event does not follow from the task's events before it by the \
                     ledger's rules ({})",
                        e.kind.as_str(),
                        m.field
                    ),
                );
                for key in m.field.rsplit('/') {
                    err = err.in_key(key);
                }
                match i.checked_sub(b.events.len()) {
                    Some(_) => err.in_key("event").in_key("export"),
                    None => at_event(i, "event")(err),
                }
            })?;
    }
    Ok(())
}

/// The task's proposed event, with its index in the bundle's events.
fn proposed(b: &Bundle) -> Option<(usize, &Entry)> {
    b.events
        .iter()
        .enumerate()
        .find(|(_, e)| e.event.kind == EventKind::Proposed)
}

/// A string member of an event's detail.
fn detail<'e>(e: &'e crate::model::ledger::Event, key: &str) -> Option<&'e Value<'static>> {
    e.detail.as_object().and_then(|o| o.get(key))
}

fn mismatch(message: impl Into<String>) -> Error {
    Error::new(Code::EvidenceMismatch, message)
}

/// The contract, the actions and the reasons are the ones the events fingerprint, and about
/// this task. Returns the contract's digest and the actions (the proposal first), each with
/// its digest.
fn documents(b: &Bundle) -> Result<(Digest, Vec<(Digest, Action)>)> {
    let contract = Contract::from_value(&b.contract)
        .map_err(|e| e.with_code(Code::InvalidEvidence).in_key("contract"))?;
    let mut actions = Vec::with_capacity(b.actions.len());
    for (i, a) in b.actions.iter().enumerate() {
        let at = |e: Error| e.in_index(i).in_key("actions");
        let action = Action::from_value(a).map_err(|e| at(e.with_code(Code::InvalidEvidence)))?;
        let ids = (
            action.field("tenant"),
            action.field("job_id"),
            action.field("request_id"),
        );
        if task_id(ids.0, ids.1, ids.2) != b.task {
            return Err(at(Error::new(
                Code::EvidenceOtherTask,
                "an action of another task (its tenant, job and request name another)",
            )));
        }
        if action.field("contract") != contract.digest_text() {
            return Err(at(mismatch(
                "the action names another contract than the bundle's",
            )
            .in_key("contract")));
        }
        actions.push((action.digest(), action));
    }
    // The action as proposed, then one per amendment, each the digest its event names.
    let named: Vec<(usize, &Entry)> = b
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.event.kind, EventKind::Proposed | EventKind::Amended))
        .collect();
    if named.len() != actions.len() {
        return Err(mismatch(format!(
            "the events name {} actions (the proposal and each amendment) and the bundle holds {}",
            named.len(),
            actions.len()
        ))
        .in_key("actions"));
    }
    for (k, ((i, entry), (digest, _))) in named.iter().zip(&actions).enumerate() {
        if !entry.event.action_digest.is_some_and(|d| d.ct_eq(digest)) {
            return Err(mismatch(format!(
                "action {k} is not the one event {i} fingerprints: it was altered"
            ))
            .in_index(k)
            .in_key("actions"));
        }
    }
    let amended: Vec<&Entry> = b
        .events
        .iter()
        .filter(|e| e.event.kind == EventKind::Amended)
        .collect();
    if amended.len() != b.reasons.len() {
        return Err(mismatch(format!(
            "{} amendments and {} reasons",
            amended.len(),
            b.reasons.len()
        ))
        .in_key("reasons"));
    }
    for (k, (entry, reason)) in amended.iter().zip(&b.reasons).enumerate() {
        let digest = Digest::of(crate::canonicalize(&string(reason)).as_bytes());
        let named = detail(&entry.event, "reason_digest").and_then(Value::as_str);
        if named != Some(digest.to_string().as_str()) {
            return Err(
                mismatch("the reason is not the one its amendment fingerprints")
                    .in_index(k)
                    .in_key("reasons"),
            );
        }
    }
    if actions.is_empty() {
        return Err(mismatch("the bundle holds no action").in_key("actions"));
    }
    Ok((contract.digest(), actions))
}

/// How each decided event was proven: (signer, the time its key was judged at, where that time
/// comes from), `None` for a bare decision.
type Proofs = Vec<Option<Proven>>;

/// Each decided event's record is in the bundle, holds what the event says, and its proof
/// (when the event has one, verified no later than the event was recorded) verifies under the
/// trusted approval keys at the time the ledger verified it, or its RFC 3161 token's time when
/// it carries one and the verifier trusts time-stamping roots. A decision over a batch also
/// holds this task's action, by the inclusion proof `in_batch` gives for it. Returns each
/// decision's proof and what the bundle proves of it.
fn decisions(
    b: &Bundle,
    trust: &Trust,
    actions: &[(Digest, Action)],
) -> Result<(Proofs, Vec<Judged>)> {
    // Each with its index in the bundle's events, for a failure in the event itself.
    let decided: Vec<(usize, &Entry)> = b
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.event.kind == EventKind::Decided)
        .collect();
    if decided.len() != b.decisions.len() {
        return Err(mismatch(format!(
            "{} decisions were recorded and the bundle holds {}",
            decided.len(),
            b.decisions.len()
        ))
        .in_key("decisions"));
    }
    if !b.in_batch.is_empty() && b.in_batch.len() != b.decisions.len() {
        return Err(mismatch(format!(
            "{} decisions and {} inclusion proofs",
            b.decisions.len(),
            b.in_batch.len()
        ))
        .in_key("in_batch"));
    }
    // Only an item is decided by its batch: a task proposed alone is not one.
    let proposed_in_batch =
        proposed(b).is_some_and(|(_, e)| detail(&e.event, "batch_id").is_some());
    let mut proofs = Vec::with_capacity(decided.len());
    let mut judged = Vec::with_capacity(decided.len());
    for (k, ((i, entry), given)) in decided.iter().zip(&b.decisions).enumerate() {
        let at = |e: Error| e.in_index(k).in_key("decisions");
        let e = &entry.event;
        let item = b.in_batch.get(k).and_then(Option::as_ref);
        if detail(e, "batch_id").is_some() != item.is_some() {
            return Err(mismatch(match item {
                None => {
                    "the decision was over a batch and the bundle holds no proof that \
                         this task is in it"
                }
                Some(_) => {
                    "the decision was about this task alone and the bundle holds a \
                            batch's inclusion proof for it"
                }
            })
            .in_index(k)
            .in_key("in_batch"));
        }
        if item.is_some() && !proposed_in_batch {
            return Err(mismatch(
                "the decision was over a batch and the task was proposed alone, not as an item",
            )
            .in_index(k)
            .in_key("in_batch"));
        }
        let proven = detail(e, "proof").is_some();
        if proven != carries_proof(given) {
            return Err(at(mismatch(if proven {
                "the decision was proven and the bundle's record carries no proof"
            } else {
                "the decision was recorded bare and the bundle's record carries a proof"
            })));
        }
        let (proof, decision) = match item {
            None => single(given, e, (k, *i), (trust, actions))?,
            Some(item) => over_batch(given, e, (k, *i), item, (trust, actions))?,
        };
        proofs.push(proof);
        judged.push(decision);
    }
    Ok((proofs, judged))
}

/// Who proved a decision, and what the bundle proves of it.
type Read = (Option<Proven>, Judged);

/// Who proved a decision: (signer, the time its key was judged at, where that time comes from).
type Proven = (crate::model::proof::Signer, i64, &'static str);

/// A decision about this task alone, decision `k` of the bundle: its record, read or verified,
/// holds what event `i` says.
fn single(
    given: &Value<'_>,
    e: &crate::model::ledger::Event,
    (k, i): (usize, usize),
    (trust, actions): (&Trust, &[(Digest, Action)]),
) -> Result<Read> {
    let at = |e: Error| e.in_index(k).in_key("decisions");
    let (record, proof) = if detail(e, "proof").is_some() {
        let (record, proof) = proven::<DecisionEnvelope>(given, e, (k, i), trust)?;
        (record, Some(proof))
    } else {
        let record =
            Approval::from_value(given).map_err(|e| at(e.with_code(Code::InvalidEvidence)))?;
        (record, None)
    };
    holds(record.value(), e, Subject::Action).map_err(at)?;
    if !record.is_sealed() {
        // A signed record is sealed by its verifier; a bare one must be too, or its action
        // could be another than the one its digest (held to the event) names.
        return Err(at(mismatch(
            "the record's action is not the one its action_digest fingerprints",
        )
        .in_key("action")));
    }
    let chain = delegated(record.value(), e, actions).map_err(at)?;
    let judged = Judged::of(i, record.value(), Subject::Action, chain).map_err(at)?;
    Ok((proof, judged))
}

/// A decision over a batch holding this task, decision `k` of the bundle: its record, read or
/// verified, holds what event `i` says, and the task's action is in its batch by `item`.
fn over_batch(
    given: &Value<'_>,
    e: &crate::model::ledger::Event,
    (k, i): (usize, usize),
    item: &ItemProof,
    (trust, actions): (&Trust, &[(Digest, Action)]),
) -> Result<Read> {
    let at = |e: Error| e.in_index(k).in_key("decisions");
    let (record, proof) = if detail(e, "proof").is_some() {
        let (record, proof) = proven::<BatchEnvelope>(given, e, (k, i), trust)?;
        (record, Some(proof))
    } else {
        let record =
            BatchDecision::from_value(given).map_err(|e| at(e.with_code(Code::InvalidEvidence)))?;
        (record, None)
    };
    holds(record.value(), e, Subject::Batch).map_err(at)?;
    if !record.is_sealed() {
        return Err(at(mismatch(
            "the record's batch is not the one its batch_digest fingerprints",
        )
        .in_key("batch")));
    }
    in_batch(record.header(), e, item, actions).map_err(|e| e.in_index(k).in_key("in_batch"))?;
    let chain = delegated(record.value(), e, actions).map_err(at)?;
    let judged = Judged::of(i, record.value(), Subject::Batch, chain).map_err(at)?;
    Ok((proof, judged))
}

/// A decision made through a delegation (`on_behalf_of` and `delegation`, held to its event
/// by [`holds`]): its chain holds for the action the event names, as the ledger had to judge
/// it when the decision arrived, at the event's time (steps 1 to 7 of `delegation::chain`;
/// revocation is a claim's fact, which no bundle states). A proven decision's links had their
/// proofs verified with it; this checks that they connect, stay within each other, were in
/// force and cover the action, which the links' signatures alone do not say. A chain that
/// does not hold is [`Code::DelegationRefused`] at `delegation`: only a ledger that broke its
/// own rules records one. Returns the chain (empty without a delegation).
fn delegated(
    record: &Value<'_>,
    e: &crate::model::ledger::Event,
    actions: &[(Digest, Action)],
) -> Result<Chain> {
    let member = |k: &str| record.as_object().and_then(|o| o.get(k));
    let (Some(Value::Array(links)), Some(root)) = (
        member("delegation"),
        member("on_behalf_of").and_then(Value::as_str),
    ) else {
        return Ok(Chain::default());
    };
    let approver = member("approver")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let decided_at = match member("decided_at") {
        Some(Value::Number(n)) => n.as_safe_integer().unwrap_or_default(),
        _ => 0,
    };
    let (_, action) = named_action(e, actions)?;
    verify_chain(
        links,
        root,
        approver,
        decided_at,
        action.value(),
        &Arrival(e.at),
    )
    .map_err(|reason| {
        Error::new(
            Code::DelegationRefused,
            format!(
                "the delegation chain the decision was made through does not hold for \
                     its action when the ledger recorded it: {}",
                reason.as_str()
            ),
        )
        .in_key("delegation")
    })
}

/// Decision `k`'s proof, as event `i` recorded it: verified no later than the event was
/// recorded, under the trusted approval keys at the time the ledger verified it (or its
/// RFC 3161 token's), and the very proof the event holds. Returns the verified record.
fn proven<E: Envelope>(
    given: &Value<'_>,
    e: &crate::model::ledger::Event,
    (k, i): (usize, usize),
    trust: &Trust,
) -> Result<(E::Record, Proven)> {
    let at = |e: Error| e.in_index(k).in_key("decisions");
    let in_detail = |e: Error| at_event(i, "event")(e.in_key("detail"));
    let verified_at = detail(e, "verified_at")
        .and_then(|v| match v {
            Value::Number(n) => n.as_safe_integer(),
            _ => None,
        })
        .ok_or_else(|| at(mismatch("a proven decision's event has no verified_at")))?;
    if verified_at > e.at {
        // The ledger verifies a decision as it arrives, then records it: never the other way
        // round.
        return Err(in_detail(
            mismatch(format!(
                "the decision was verified at {verified_at}, after the ledger recorded it at {}",
                e.at
            ))
            .in_key("verified_at"),
        ));
    }
    let (judged_at, source) = super::stamp::decision_time(&e.detail, verified_at, trust)
        .map_err(|err| in_detail(err.in_key("timestamp")))?;
    let p = Presented::<E>::read(
        given,
        &trust.approval_keys,
        ProofRequirement::Optional,
        judged_at,
    )
    .map_err(at)?;
    let Presented::Proven(p) = p else {
        return Err(at(mismatch("the decision's proof did not verify")));
    };
    if detail(e, "proof").map(crate::canonicalize) != Some(crate::canonicalize(p.proof())) {
        return Err(at(mismatch(
            "the record's proof is not the one the ledger verified and recorded",
        )));
    }
    let signer = p.signer().clone();
    Ok((p.record().clone(), (signer, judged_at, source)))
}

/// This task's action, the one decided event `e` names, is in the batch `header` describes, at
/// the place `proof` says: [`Code::NotInBatch`] otherwise.
fn in_batch(
    header: &Header,
    e: &crate::model::ledger::Event,
    proof: &ItemProof,
    actions: &[(Digest, Action)],
) -> Result<()> {
    let (digest, action) = named_action(e, actions)?;
    verify_known(header, action.value(), digest, proof)
}

/// The bundle's action that decided event `e` names.
fn named_action<'b>(
    e: &crate::model::ledger::Event,
    actions: &'b [(Digest, Action)],
) -> Result<&'b (Digest, Action)> {
    actions
        .iter()
        .find(|(d, _)| e.action_digest.is_some_and(|a| a.ct_eq(d)))
        .ok_or_else(|| mismatch("the decision is about an action the bundle does not hold"))
}

/// The record says what its decided event says: round, decision, approver, times, subject,
/// the model's proposal, delegation.
fn holds(v: &Value<'_>, e: &crate::model::ledger::Event, subject: Subject) -> Result<()> {
    let text = |k: &str| detail(e, k).and_then(Value::as_str);
    let int = |k: &str| match detail(e, k) {
        Some(Value::Number(n)) => n.as_safe_integer(),
        _ => None,
    };
    let member = |k: &str| v.as_object().and_then(|o| o.get(k));
    let rec = |k: &str| member(k).and_then(Value::as_str);
    let rec_int = |k: &str| match member(k) {
        Some(Value::Number(n)) => n.as_safe_integer(),
        _ => None,
    };
    let digest = |k: &str| rec(k).and_then(|d| d.parse::<Digest>().ok());
    let links: Vec<String> = match member("delegation") {
        Some(Value::Array(links)) => links.iter().map(|l| link_digest(l).to_string()).collect(),
        _ => Vec::new(),
    };
    let named: Vec<String> = match detail(e, "delegations") {
        Some(Value::Array(ds)) => ds
            .iter()
            .filter_map(|d| d.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let (approval_id, subject_key, subject_digest) = match subject {
        // This task's action: `approval_id` and `action_digest` are the task's.
        Subject::Action => ("approval_id", "action_digest", e.action_digest),
        // A batch holding it: `approval_id` and `batch_digest` are the batch's, which the
        // item's decided event names as `batch_approval_id` and `batch_digest` (and its
        // approved digest).
        Subject::Batch => (
            "batch_approval_id",
            "batch_digest",
            e.approved_digest
                .filter(|d| text("batch_digest") == Some(d.to_string().as_str())),
        ),
    };
    let checks = [
        ("approval_id", rec("approval_id") == text(approval_id)),
        (
            "decision_id",
            rec("decision_id") == e.decision_id.as_deref(),
        ),
        ("decision", rec("decision") == text("decision")),
        ("approver", rec("approver") == text("approver")),
        ("decided_at", rec_int("decided_at") == int("decided_at")),
        ("expires_at", rec_int("expires_at") == int("expires_at")),
        (
            subject_key,
            subject_digest.is_some_and(|d| digest(subject_key).is_some_and(|r| r.ct_eq(&d))),
        ),
        (
            "proposed_digest",
            rec("proposed_digest") == text("proposed_digest"),
        ),
        ("on_behalf_of", rec("on_behalf_of") == text("on_behalf_of")),
        ("delegation", links == named),
        // A round's member counts as whom its record decided for, in the role it names.
        (
            "counted_as",
            text("counted_as").is_none_or(|c| Some(c) == rec("on_behalf_of").or(rec("approver"))),
        ),
        (
            "role",
            text("counted_as").is_none() || rec("role") == text("role"),
        ),
    ];
    match checks.iter().find(|(_, ok)| !ok) {
        None => Ok(()),
        Some((member, _)) => Err(mismatch(format!(
            "the record's {member} is not what the ledger recorded"
        ))
        .in_key(member)),
    }
}

fn timeline(
    b: &Bundle,
    contract: Digest,
    proposal: &Action,
    proofs: Proofs,
    log: super::timeline::LogView,
) -> Timeline {
    let mut proofs = proofs.into_iter();
    let steps = b
        .events
        .iter()
        .map(|entry| {
            let e = &entry.event;
            let proof = match e.kind {
                EventKind::Decided => proofs.next().flatten(),
                _ => None,
            };
            Step {
                index: entry.index,
                at: e.at,
                kind: e.kind,
                actor: e.actor.clone(),
                state: e.state,
                outcome: e.outcome.clone(),
                action_digest: e.action_digest,
                proof,
                on_behalf_of: detail(e, "on_behalf_of")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                drift: e.drift.clone(),
                fence: e.fence,
            }
        })
        .collect::<Vec<_>>();
    let name = |k: &str| proposal.field(k).to_owned();
    Timeline {
        task: b.task.clone(),
        tenant: name("tenant"),
        tool: name("tool"),
        subject: name("subject"),
        contract,
        state: b.events.last().and_then(|e| e.event.state),
        steps,
        log,
        exported_at: b.export.event.at,
        exported_by: b.export.event.actor.clone(),
        disclosed: Vec::new(),
    }
}
