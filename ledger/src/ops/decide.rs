//! decide: record a reviewer's decision, bare or proven, once per decision_id.
//!
//! Under a quorum (issue 25) each member's decision is a row of its round, recorded under the
//! task's lock: the task becomes `approved` once, by the decision that meets the quorum (a
//! `decided` event, then `quorum_met`), or `rejected` by a veto; until then it awaits the rest
//! of the round.

use super::quorum::{check_separate, contract_of, state_of};
use super::{amended_from, detail, detail_of, event, refuse, save, snapshot, view};
use crate::contracts::Contracts;
use crate::json::{canon, n, obj, opt_s, s, stored};
use crate::model::Decided;
use crate::store::{storage, Done, RoundDecisionRow, Tx};
use actionseal_core::ledger::{
    next, DecisionEnvelope, Envelope, Event, EventKind, Op, Presented, ProvenDecision,
};
use actionseal_core::{
    base64url_encode, Action, Approval, Code, Decision, Error, OwnedValue, QuorumState, Result,
    Signer, Value, Veto,
};

/// What a decision under a quorum did to its round.
enum Round {
    /// The quorum is not met yet: the task still awaits the rest of the round.
    Pending(QuorumState),
    /// This decision met the quorum: the task is approved.
    Met(QuorumState),
    /// This decision vetoed the round: the task is rejected.
    Vetoed(QuorumState),
}

/// An RFC 3161 token from `tsa` for a proven decision, over the RFC 8785 canonical text of
/// its proof as the decided event keeps it (`detail.proof`: the signed envelope without its
/// payload, `{"payloadType", "signatures"}`, or the passkey assertion). That text holds the
/// signature(s), so the token proves they existed at its genTime; it is the one every
/// verifier already holds and canonicalises, with no choice among an envelope's signatures.
/// `None` for a bare decision, without a TSA, or when the TSA gave no verified token (logged:
/// the decision is recorded without one, see [`crate::Ledger::decide`]). A batch's decision
/// is stamped the same way.
pub(crate) fn stamp<E: Envelope>(tsa: Option<&crate::Tsa>, p: &Presented<E>) -> Option<Vec<u8>> {
    let (tsa, proven) = (tsa?, p.proven()?);
    match tsa.stamp(canon(proven.proof()).as_bytes()) {
        Ok(token) => Some(token),
        Err(e) => {
            log::warn!(
                "a proven decision is recorded without a time-stamp from {}: {}",
                tsa.url(),
                e.code()
            );
            None
        }
    }
}

pub(crate) fn run(
    tx: &mut dyn Tx,
    now: i64,
    p: &Presented,
    token: Option<&[u8]>,
    contracts: &Contracts,
) -> Result<Done<Decided>> {
    let d = p.envelope();
    // Who signed, for every event about a proven delivery (names only, never key material).
    let signer = p.proven().map(|v| v.signer().to_value());
    let not_found = || {
        Error::new(
            Code::ApprovalNotFound,
            format!("no approval {:?}", d.approval_id),
        )
        .in_key("approval_id")
    };
    let mut t = tx.task_of_approval(&d.approval_id)?.ok_or_else(not_found)?;
    // Re-read under the task's lock: every change to a round happens under it.
    let (approval, recorded) = tx.approval_and_decision(&d.approval_id, &d.decision_id)?;
    let approval = approval.ok_or_else(not_found)?;
    let envelope = canon(&d.to_value());

    let mut ev = event(&t, now, EventKind::DecisionRefused, &d.approver);
    ev.decision_id = Some(d.decision_id.clone());
    ev.action_digest = Some(d.action_digest);
    ev.approved_digest = Some(t.action_digest);
    let mut refused = vec![
        ("approval_id", s(&d.approval_id)),
        ("decision", s(d.decision.as_str())),
    ];
    refused.extend(signer.clone().map(|v| ("signer", v)));
    ev.detail = detail(refused);

    if let Some(recorded) = recorded {
        if recorded != envelope {
            return refuse(
                tx,
                ev,
                Error::new(
                    Code::DecisionConflict,
                    format!(
                        "decision {:?} was already recorded with other content",
                        d.decision_id
                    ),
                )
                .in_key("decision_id"),
            );
        }
        // A repeated delivery: record that it came, change nothing.
        ev.kind = EventKind::DecisionDuplicate;
        tx.append(ev);
        let recorded = DecisionEnvelope::from_value(&stored(&recorded)?)?;
        return Ok(Done::Ok(Decided {
            task: view(t)?,
            decision: recorded,
            duplicate: true,
            signer,
        }));
    }
    if let Err(e) = d.check_task(&t.job_id, &t.request_id, &t.action_digest) {
        return refuse(tx, ev, e);
    }
    let before = snapshot(&t);
    let state = match next(&before, Op::Decide(d.decision), now) {
        Ok(state) if approval.round == t.round && approval.decision_id.is_none() => state,
        Ok(_) => {
            return refuse(
                tx,
                ev,
                Error::new(
                    Code::TaskNotAwaitingDecision,
                    format!(
                        "the task is {}: approval {:?} belongs to an earlier round, the task awaits a decision on {:?}",
                        t.state.as_str(),
                        d.approval_id,
                        t.approval_id.as_deref().unwrap_or("")
                    ),
                )
                .in_key("approval_id"),
            )
        }
        Err(e) => return refuse(tx, ev, e),
    };
    if let Err(e) = d.check_time(t.round_started_at, now) {
        return refuse(tx, ev, e);
    }
    let action = Action::from_value(&stored(&t.action)?)?;
    // A delegation chain is judged as the decision arrives; its links' proofs came with it.
    let delegates = match d.check_chain(action.value(), now) {
        Ok(delegates) => delegates,
        Err(e) => return refuse(tx, ev, e),
    };
    // An amended action's record keeps the model's proposal beside it.
    let mut input = d.input();
    input.proposed_digest = amended_from(&t);
    let record = Approval::decide(&action, &input)?;
    if let Some(proven) = p.proven() {
        if let Err(e) = proven.check_built(&record) {
            return refuse(tx, ev, e);
        }
        if let Err(e) = sign_count(tx, now, proven) {
            return refuse(tx, ev, e);
        }
    }
    // Under a kept contract: the separation of duties, and the round's other members.
    let kept = contract_of(&t, contracts)?;
    let mut members = None;
    if let Some(contract) = &kept {
        if let Err(e) = check_separate(tx, &t, &action, d, &delegates, contract) {
            return refuse(tx, ev, e);
        }
        if contract.quorum().is_some() {
            let rows = tx.round_decisions(&d.approval_id)?;
            if rows.iter().any(|r| r.counted_as == d.counting_identity()) {
                let e = Error::new(
                    Code::ApproverAlreadyDecided,
                    format!(
                        "{:?} already decided in round {:?}: each approver counts once",
                        d.counting_identity(),
                        d.approval_id
                    ),
                )
                .in_key(if d.on_behalf_of.is_some() {
                    "on_behalf_of"
                } else {
                    "approver"
                });
                return refuse(tx, ev, e);
            }
            members = Some(rows);
        }
    }
    if !tx.insert_decision(&d.decision_id, &d.approval_id, &envelope, now)? {
        // The id was taken by a decision for another task committed meanwhile.
        return refuse(
            tx,
            ev,
            Error::new(
                Code::DecisionConflict,
                format!("decision {:?} was already recorded", d.decision_id),
            )
            .in_key("decision_id"),
        );
    }
    let proof = p.proven().map(kept_proof);
    let round = match (members, &kept) {
        (Some(mut rows), Some(contract)) => {
            let row = RoundDecisionRow {
                approval_id: d.approval_id.clone(),
                n: i64::try_from(rows.len())
                    .unwrap_or(i64::MAX)
                    .saturating_add(1),
                decision_id: d.decision_id.clone(),
                counted_as: d.counting_identity().to_owned(),
                role: d.role.clone(),
                decision: d.decision.as_str().to_owned(),
                record: canon(record.value()),
                proof: proof.clone(),
                decided_at: d.decided_at,
                recorded_at: now,
            };
            tx.insert_round_decision(&row)?;
            rows.push(row);
            let q = state_of(contract, &rows)?
                .ok_or_else(|| storage("quorum", "the contract lost its quorum"))?;
            let veto = contract.quorum().map(|q| q.veto);
            Some(match d.decision {
                Decision::Rejected if veto == Some(Veto::AnyRejection) => Round::Vetoed(q),
                Decision::Approved if q.missing == 0 => Round::Met(q),
                _ => Round::Pending(q),
            })
        }
        _ => None,
    };
    if let Some(Round::Pending(_)) = round {
        // The round goes on: the task and its round stay as they are.
    } else {
        let mut approval = approval;
        approval.decision_id = Some(d.decision_id.clone());
        tx.put_approval(&approval)?;
        t.approval = Some(canon(record.value()));
        t.proof = proof;
        t.state = state;
        t.updated_at = now;
        save(tx, &t, &before)?;
    }
    ev.kind = EventKind::Decided;
    // The member that meets the quorum leaves the task as it found it: its quorum_met event,
    // next, approves it.
    ev.state = Some(match round {
        Some(Round::Met(_)) => before.state,
        _ => t.state,
    });
    ev.outcome = Some(d.decision.as_str().to_owned());
    let mut entries = vec![
        ("approval_id", s(&d.approval_id)),
        ("decision", s(d.decision.as_str())),
        ("approver", s(&d.approver)),
        ("decided_at", n(d.decided_at)),
        ("expires_at", n(d.expires_at)),
    ];
    if round.is_some() {
        entries.push(("counted_as", s(d.counting_identity())));
        entries.push(("role", opt_s(d.role.as_deref())));
    }
    entries.extend(proven_entries(p, token));
    ev.detail = detail_of(&t, entries);
    let met = match &round {
        Some(Round::Met(q)) => Some(quorum_met(&ev, &t, q)),
        _ => None,
    };
    tx.append(ev);
    if let Some(met) = met {
        tx.append(met);
    }
    // A rejection finishes the task: its values go now where its tenant shreds them then.
    super::shred::at_finish(tx, now, &t, super::LEDGER_ACTOR)?;
    // The action was parsed above, the approval record written from its value.
    let parsed = super::Parsed {
        action: true,
        approval: true,
        result: false,
    };
    let mut task = super::view_parsed(t, parsed)?;
    let pending = matches!(round, Some(Round::Pending(_)));
    task.quorum = round.map(|(Round::Pending(q) | Round::Met(q) | Round::Vetoed(q))| q);
    let decided = Decided {
        task,
        decision: d.clone(),
        duplicate: false,
        signer,
    };
    if decided.task.approval.is_none() && !pending {
        return Err(storage("decision", "the approval record was not kept"));
    }
    Ok(Done::Ok(decided))
}

/// The event of a quorum met by the decision whose `decided` event is `decided`: the task is
/// approved; the detail names the round and each counted member, never an argument value.
pub(crate) fn quorum_met(decided: &Event, t: &crate::store::TaskRow, q: &QuorumState) -> Event {
    let mut ev = decided.clone();
    ev.kind = EventKind::QuorumMet;
    ev.state = Some(t.state);
    ev.outcome = Some(Decision::Approved.as_str().to_owned());
    ev.detail = detail_of(
        t,
        vec![
            ("approval_id", opt_s(t.approval_id.as_deref())),
            ("quorum", q.to_value()),
        ],
    );
    ev
}

/// A proven decision's proof as a task or batch row keeps it: canonical `{"proof", "signer",
/// "verified_at"}` (what the audit's replay rebuilds from the decided event).
pub(crate) fn kept_proof<E: Envelope>(proven: &ProvenDecision<E>) -> String {
    canon(&obj(vec![
        ("proof", proven.proof().clone()),
        ("signer", proven.signer().to_value()),
        ("verified_at", n(proven.verified_at())),
    ]))
}

/// What a decided event's detail adds for a decision made through a delegation (whom for,
/// and its links' digests) and for a proven one: the signature or assertion, without the
/// record (which holds argument values and is rebuilt byte for byte from the event and the
/// ledger's rows), so the audit lets anyone verify who signed; its RFC 3161 `token`, if any.
pub(crate) fn proven_entries<E: Envelope>(
    p: &Presented<E>,
    token: Option<&[u8]>,
) -> Vec<(&'static str, OwnedValue)> {
    let d = p.envelope();
    let mut entries = Vec::new();
    if let Some(on_behalf_of) = d.on_behalf_of() {
        entries.push(("on_behalf_of", s(on_behalf_of)));
        entries.push(("delegations", digests(&d.delegation_digests())));
    }
    if let Some(proven) = p.proven() {
        entries.push(("signer", proven.signer().to_value()));
        entries.push(("proof", proven.proof().clone()));
        entries.push(("verified_at", n(proven.verified_at())));
        if let Some(token) = token {
            // The DER TimeStampToken, base64url like the proof's own bytes.
            entries.push(("timestamp", s(&base64url_encode(token))));
        }
    }
    entries
}

/// Digests as a JSON array of their texts.
fn digests(ds: &[actionseal_core::Digest]) -> OwnedValue {
    Value::Array(ds.iter().map(|d| s(&d.to_string())).collect())
}

/// A passkey decision's signature counter, checked against the credential's last one and
/// recorded in the same transaction (a service signature has none).
pub(crate) fn sign_count<E: Envelope>(
    tx: &mut dyn Tx,
    now: i64,
    proven: &ProvenDecision<E>,
) -> Result<()> {
    let (Some(count), Signer::Passkey { credential_id, .. }) =
        (proven.sign_count(), proven.signer())
    else {
        return Ok(());
    };
    proven.check_sign_count(tx.sign_count(credential_id)?)?;
    if tx.put_sign_count(credential_id, i64::from(count), now)? {
        return Ok(());
    }
    // Another decision with this credential recorded its counter meanwhile: read it.
    proven.check_sign_count(tx.sign_count(credential_id)?)?;
    Err(storage("passkey counter", "the counter moved while locked"))
}
