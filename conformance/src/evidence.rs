//! The evidence vectors (`vectors/evidence/`): bundles exported by a real ledger (SQLite in
//! memory, a manual clock, fixed keys, so every byte is the same on every run), each with the
//! trust a verifier gives and what `verify_evidence` says: the timeline, or the error's code
//! and path. The `n_` vectors are those bundles or trusts broken one way each; every
//! expectation is written here by hand and checked against the core before a file is written.
//!
//! A vector whose checkpoint carries an RFC 3161 token over the checkpoint's own text needs a
//! time-stamping authority: [`Tokens`] gives the stored token back while the checkpoint's text
//! is unchanged, and only asks `testing/tsa/` (openssl) for a new one when it is not.

mod forged;
mod ledger;
mod tokens;

use crate::decisions::{from_core, to_core};
use actionseal_core::evidence::verify_evidence;
use actionseal_core::ledger::Reported;
use actionseal_core::tlog::note::SignerKey;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ledger::{
    approval_key_window, approval_keys, log_verifier, passkey_keys, s, trust, witness, Decided,
    Fixture, HOUR, MINUTE, T0, WITNESSED,
};
use serde_json::{json, Value as Json};
pub use tokens::{Kept, Tokens};

/// One vector: its name and file.
pub type Built = (String, Json);

/// The code and path an `n_` vector is refused with.
type Want = (&'static str, &'static str);

/// What the core says of `bundle` under `trust`, as a vector's `expected`, and the error's
/// message (for a vector that does not say what its name says).
fn expected(bundle: &Json, trust: &Json) -> Result<(Json, String), String> {
    Ok(match verify_evidence(&to_core(bundle)?, &to_core(trust)?) {
        Ok(t) => (
            json!({"timeline": from_core(&t.to_value())?}),
            String::new(),
        ),
        Err(e) => (
            json!({"error": {"code": e.code().as_str(), "path": e.path()}}),
            e.to_string(),
        ),
    })
}

/// The vectors being built, and the problems found on the way.
#[derive(Default)]
struct Out {
    built: Vec<Built>,
    problems: Vec<String>,
}

impl Out {
    /// A vector the core must accept (`want` None) or refuse with `(code, path)`.
    fn add(
        &mut self,
        name: &str,
        description: &str,
        bundle: Json,
        trust: Json,
        want: Option<Want>,
    ) {
        let (expected, message) = match expected(&bundle, &trust) {
            Ok(e) => e,
            Err(e) => return self.problems.push(format!("evidence/{name}: {e}")),
        };
        let got = expected.get("error").map(|e| {
            (
                e["code"].as_str().unwrap_or(""),
                e["path"].as_str().unwrap_or(""),
            )
        });
        let named = match (name.split_once('_'), got) {
            (Some(("y", _)), None) => true,
            (Some(("n", rest)), Some((code, _))) => rest.starts_with(code),
            _ => false,
        };
        if got != want || !named {
            self.problems.push(format!(
                "evidence/{name}: expected {want:?}, the core says {} {message}",
                expected.get("error").unwrap_or(&json!("a timeline"))
            ));
        }
        let doc = json!({"description": description, "bundle": bundle, "trust": trust,
                         "expected": expected});
        self.built.push((name.to_owned(), doc));
    }
}

/// `v` with the member at JSON pointer `at` replaced by `to`, or added (to an object, or at
/// the end of an array).
fn with(v: &Json, at: &str, to: Json) -> Json {
    let mut v = v.clone();
    if let Some(slot) = v.pointer_mut(at) {
        *slot = to;
    } else if let Some((parent, key)) = at.rsplit_once('/') {
        match v.pointer_mut(parent) {
            Some(Json::Object(o)) => {
                o.insert(key.to_owned(), to);
            }
            Some(Json::Array(a)) if key == a.len().to_string() => a.push(to),
            _ => {}
        }
    }
    v
}

/// `trust` without its witnesses.
fn without_witnesses(trust: &Json) -> Json {
    let mut t = trust.clone();
    if let Json::Object(o) = &mut t {
        o.remove("witnesses");
    }
    t
}

fn at(v: &Json, pointer: &str) -> Json {
    v.pointer(pointer).cloned().unwrap_or(Json::Null)
}

/// Every evidence vector, as `(name, file)` pairs, or the problems found.
pub fn evidence_vectors(tokens: &mut dyn Tokens) -> Result<Vec<Built>, Vec<String>> {
    let mut out = Out::default();
    if let Err(e) = build(&mut out, tokens) {
        out.problems.push(format!("evidence: {e}"));
    }
    if out.problems.is_empty() {
        Ok(out.built)
    } else {
        Err(out.problems)
    }
}

fn build(out: &mut Out, tokens: &mut dyn Tokens) -> Result<(), String> {
    let w = witness(9, "witness.example");
    let mut f = Fixture::new()?;
    let other = f.task("job-other", Decided::Signed, Reported::Succeeded)?;
    let refund = f.task("job-1", Decided::Signed, Reported::Succeeded)?;
    let bare = f.task("job-3", Decided::Bare, Reported::Succeeded)?;
    let rejected = f.task("job-4", Decided::Rejected, Reported::Succeeded)?;
    let doubt = f.task("job-5", Decided::Signed, Reported::Unknown)?;
    let delegated = f.task("job-6", Decided::Delegated, Reported::Succeeded)?;
    let quorum = f.task("job-7", Decided::Quorum, Reported::Succeeded)?;
    let amended = f.task("job-2", Decided::Amended, Reported::Succeeded)?;

    let b = f.export(&refund, &w)?;
    let trust = trust();
    out.add(
        "y_signed_refund",
        "A refund proposed, approved with a signed record, claimed and completed; the \
         checkpoint signed by the ledger and cosigned by the trusted witness.",
        b.clone(),
        trust.clone(),
        None,
    );
    let other_b = f.export(&other, &w)?;
    out.add(
        "y_earlier_witnessed_checkpoint",
        "A bundle that also carries an earlier witnessed checkpoint (the previous export's) \
         and the consistency proof from it to the bundle's checkpoint.",
        other_b.clone(),
        trust.clone(),
        None,
    );
    out.add(
        "y_bare_decision",
        "A decision without a proof (an unsigned envelope): the timeline has no signer.",
        f.export(&bare, &w)?,
        trust.clone(),
        None,
    );
    out.add(
        "y_rejected_before_dispatch",
        "A task rejected by its approver: never claimed.",
        f.export(&rejected, &w)?,
        trust.clone(),
        None,
    );
    out.add(
        "y_reconciled_outcome_in_doubt",
        "A task whose executor could not tell the outcome (unknown), reconciled as succeeded.",
        f.export(&doubt, &w)?,
        trust.clone(),
        None,
    );

    out.add(
        "y_delegated_decision",
        "A decision by user:bob on behalf of user:carol, through the delegation link she \
         signed: the timeline names both.",
        f.export(&delegated, &w)?,
        trust.clone(),
        None,
    );
    out.add(
        "y_amended_refund",
        "A refund amended by a reviewer before approval (two actions, one reason); the signed \
         decision is about the amended action and records the proposal's digest.",
        f.export(&amended, &w)?,
        trust.clone(),
        None,
    );
    let quorum_b = f.export(&quorum, &w)?;
    out.add(
        "y_quorum_two_approvers",
        "A contract that needs two approvers: two signed approvals, by user:bob and user:dave.",
        quorum_b.clone(),
        trust.clone(),
        None,
    );

    let witnessed_ms = (WITNESSED * 1000) as i64;
    let new_ledger_key = SignerKey::from_seed("PeterNeumann", &[5; 32])
        .map_err(s)?
        .verifier()
        .to_string();
    out.add(
        "y_ledger_key_rotated",
        "The ledger's key was retired after the witness saw the checkpoint (valid_until after \
         the cosignature's time) and a new key took over: the old bundle still verifies.",
        b.clone(),
        with(
            &trust,
            "/ledger_keys",
            json!([{"key": log_verifier(), "valid_until": witnessed_ms + 1},
                   {"key": new_ledger_key, "valid_from": witnessed_ms + 1}]),
        ),
        None,
    );
    out.add(
        "y_approval_key_rotated",
        "The approval key was retired an hour after the ledger recorded the decision: the \
         decision still verifies.",
        b.clone(),
        with(
            &trust,
            "/approval_keys",
            approval_keys(Some(T0 + 10 * HOUR)),
        ),
        None,
    );

    negatives(out, &b, &other_b, &trust)?;
    dishonest(out, &quorum_b, &b, &trust)?;
    forked(out, &other_b, &trust)?;
    stamps(out, &b, &trust, tokens)?;
    stamped_decision(out, &trust, tokens)?;
    passkey(out, &trust)?;
    verified_ahead(out, &trust)?;
    batch(out, &trust)?;
    Ok(())
}

/// An item of a batch (issue 28), in a ledger of its own: its decision is the batch's, which
/// speaks about this task through the item's inclusion proof.
fn batch(out: &mut Out, trust: &Json) -> Result<(), String> {
    let mut f = Fixture::new()?;
    let item = f.batch_item("job-11", Decided::Bare)?;
    let b = f.export(&item, &witness(9, "witness.example"))?;
    out.add(
        "y_batch_item",
        "Item 1 of a three-refund batch approved with one decision: the bundle holds the \
         batch's decision record and item 1's inclusion proof in its tree, and nothing of \
         items 0 and 2.",
        b.clone(),
        trust.clone(),
        None,
    );
    out.add(
        "n_not_in_batch_proof_moved",
        "Item 1's inclusion proof presented for item 0's place in the batch.",
        with(&b, "/in_batch/0/index", json!(0)),
        trust.clone(),
        Some(("not_in_batch", "/in_batch/0")),
    );
    let mut without = b.clone();
    if let Some(o) = without.as_object_mut() {
        o.remove("in_batch");
    }
    out.add(
        "n_evidence_mismatch_inclusion_proof_removed",
        "The bundle of a batch item without its inclusion proof: the batch's decision alone \
         says nothing about this task.",
        without,
        trust.clone(),
        Some(("evidence_mismatch", "/in_batch/0")),
    );
    out.add(
        "n_evidence_mismatch_batch_header_edited",
        "The decision's batch header with another Merkle root: no longer the batch its \
         batch_digest fingerprints.",
        with(
            &b,
            "/decisions/0/batch/root",
            json!("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="),
        ),
        trust.clone(),
        Some(("evidence_mismatch", "/decisions/0/batch")),
    );
    out.add(
        "n_evidence_mismatch_lone_task_decided_by_a_batch",
        "The item's history forged as a task proposed alone (its proposed event without a \
         batch_id) and decided by the batch's decision: only an item is decided by its batch.",
        forged::forged(&b, |h| {
            if let Some(d) = h.events[0]["detail"].as_object_mut() {
                d.remove("batch_id");
            }
        })?,
        without_witnesses(trust),
        Some(("evidence_mismatch", "/in_batch/0")),
    );
    let mut f = Fixture::new()?;
    let item = f.batch_item("job-12", Decided::Signed)?;
    out.add(
        "y_signed_batch_item",
        "Item 1 of a three-refund batch whose decision record was signed with the service \
         key: the item's decided event holds the proof, and the timeline names the signer.",
        f.export(&item, &witness(9, "witness.example"))?,
        trust.clone(),
        None,
    );
    batch_quorum(out, trust)
}

/// An item of a batch decided by a quorum of two, in a ledger of its own: the item's events
/// record each member's batch decision as a task's do, so its round is re-tallied offline.
fn batch_quorum(out: &mut Out, trust: &Json) -> Result<(), String> {
    let mut f = Fixture::new()?;
    let item = f.batch_item("job-13", Decided::Quorum)?;
    let b = f.export(&item, &witness(9, "witness.example"))?;
    out.add(
        "y_batch_item_quorum",
        "Item 1 of a three-refund batch under a quorum of two: user:bob's and user:dave's \
         batch decisions are each a decided event of the item (counted in the batch's round, \
         each with the item's inclusion proof), then quorum_met approves it.",
        b.clone(),
        trust.clone(),
        None,
    );
    out.add(
        "n_quorum_not_met_batch_item_one_approval",
        "user:bob's batch decision left out of the item's history: quorum_met after one \
         approval of the two the contract asks for.",
        forged::forged(&b, |h| {
            h.events.remove(1);
            h.decisions.remove(0);
            h.in_batch.remove(0);
        })?,
        without_witnesses(trust),
        Some(("quorum_not_met", "/events/2/event")),
    );
    out.add(
        "n_evidence_mismatch_batch_item_round_answered_again",
        "The item sent back for re-approval after its round was met, and its second round \
         answered by the same two batch decisions again (each batch answers the round it was \
         proposed for: a re-approval is over a new batch).",
        forged::forged(&b, reanswered)?,
        without_witnesses(trust),
        Some((
            "evidence_mismatch",
            "/events/5/event/detail/batch_approval_id",
        )),
    );
    Ok(())
}

/// The quorum batch item's history (proposed; decided by user:bob, then user:dave; quorum_met;
/// claimed; completed) with a re-approval after quorum_met, whose round the same two batch
/// decisions answer again.
fn reanswered(h: &mut forged::History) {
    let task = h.events[0]["task"].as_str().unwrap_or_default().to_owned();
    let second = actionseal_core::ledger::approval_id(&task, 2);
    let met_at = h.events[3]["at"].as_i64().unwrap_or_default();
    let mut sent = h.events[3].clone();
    sent["kind"] = json!("sent_to_reapproval");
    sent["state"] = json!("awaiting_reapproval");
    sent["outcome"] = json!("reapprove");
    sent["reasons"] = json!(["breaker_open"]);
    sent["approved_digest"] = Json::Null;
    sent["decision_id"] = Json::Null;
    sent["detail"] = json!({"approval_id": second, "batch_id": h.events[1]["detail"]["batch_id"],
                            "lineage": h.events[1]["detail"]["batch_id"]});
    let mut again = vec![sent];
    for i in [1, 2, 3] {
        let mut e = h.events[i].clone();
        e["detail"]["approval_id"] = json!(second);
        if i != 3 {
            e["state"] = json!("awaiting_reapproval");
        }
        again.push(e);
    }
    for (n, e) in again.iter_mut().enumerate() {
        e["at"] = json!(met_at + 1 + n as i64);
    }
    h.events.splice(4..4, again);
    let (decisions, proofs) = (h.decisions.clone(), h.in_batch.clone());
    h.decisions.extend(decisions);
    h.in_batch.extend(proofs);
}

/// A decision verified after its event was recorded, in a ledger of its own whose clock read
/// a minute ahead as the decision arrived: a ledger verifies, then records.
fn verified_ahead(out: &mut Out, trust: &Json) -> Result<(), String> {
    let mut f = Fixture::new()?;
    let task = f.task("job-10", Decided::VerifiedAhead, Reported::Succeeded)?;
    out.add(
        "n_evidence_mismatch_verified_after_recorded",
        "A decision whose verified_at (when the ledger verified it) is a minute after its \
         event's at (when the ledger recorded it): a ledger verifies a decision before it \
         records it.",
        f.export(&task, &witness(9, "witness.example"))?,
        trust.clone(),
        Some(("evidence_mismatch", "/events/1/event/detail/verified_at")),
    );
    Ok(())
}

/// A decision approved with a passkey (WebAuthn), in a ledger of its own that trusts it.
fn passkey(out: &mut Out, trust: &Json) -> Result<(), String> {
    let keys = passkey_keys();
    let mut f = Fixture::with(None, &keys)?;
    let task = f.task("job-9", Decided::Passkey, Reported::Succeeded)?;
    out.add(
        "y_passkey_decision",
        "A refund approved with user:bob's passkey (an EdDSA credential; the assertion a \
         browser would make over the record's fingerprint): the timeline names the passkey \
         as the signer.",
        f.export(&task, &witness(9, "witness.example"))?,
        with(trust, "/approval_keys", keys),
        None,
    );
    Ok(())
}

/// The vector whose file keeps the tokens of [`stamped_decision`]'s ledger.
const STAMPED: &str = "y_decision_token_inside_key_window";

/// A ledger whose TSA stamps its proven decisions and checkpoints as they are made: its
/// bundle of a signed refund, with the tokens the stored vector keeps (by the data they
/// time-stamp), or new ones when a token it needs is not kept (never with `--check`).
/// Returns the bundle and the TSA's root (standard base64).
fn stamped_bundle(tokens: &mut dyn Tokens) -> Result<(Json, String), String> {
    for fresh in [false, true] {
        let Some(tokens::Answering { tsa, stamps, root }) = tokens.stamps(STAMPED, fresh)?.tsa()?
        else {
            continue;
        };
        let mut f = Fixture::with(Some(tsa), &approval_keys(None))?;
        let task = f.task("job-8", Decided::Signed, Reported::Succeeded);
        let bundle = task.and_then(|t| f.export(&t, &witness(9, "witness.example")));
        let missed = stamps.lock().map_err(s)?.missed().map(str::to_owned);
        match (missed, bundle) {
            (None, Ok(b)) => return Ok((b, root)),
            (None, Err(e)) => return Err(e),
            (Some(why), _) if fresh => return Err(why),
            (Some(_), _) => {}
        }
    }
    Err(format!("{STAMPED}: no token kept and none made"))
}

/// A decision time-stamped (RFC 3161) as the ledger recorded it: with the TSA's root trusted,
/// its approval key is judged at the token's time, not at `verified_at`. The tokens are made
/// by a TSA when the vector is (their genTime is far later than the ledger's manual clock),
/// so the key's window is put between the two: from, or until, ten hours after `T0`.
fn stamped_decision(out: &mut Out, trust: &Json, tokens: &mut dyn Tokens) -> Result<(), String> {
    let (b, root) = stamped_bundle(tokens)?;
    let stamped = with(trust, "/tsa_roots", json!([root]));
    let later = T0 + 10 * HOUR;
    out.add(
        STAMPED,
        "A decision time-stamped by the ledger's TSA over its proof as it arrived, the TSA's \
         root trusted: its approval key, valid only from ten hours after the ledger recorded \
         the decision, is judged at the token's genTime (when the vector was made), inside \
         its window.",
        b.clone(),
        with(
            &stamped,
            "/approval_keys",
            approval_key_window(Some(later), None),
        ),
        None,
    );
    out.add(
        "n_key_outside_window_decision_token_after_retirement",
        "The same decision with its approval key retired ten hours after the ledger recorded \
         it: valid at verified_at, but the token's genTime, which the key is judged at, is \
         after its retirement.",
        b.clone(),
        with(&stamped, "/approval_keys", approval_keys(Some(later))),
        Some(("key_outside_window", "/decisions/0")),
    );
    out.add(
        "y_decision_token_unread_without_tsa_roots",
        "The same decision and retired key, for a verifier that trusts no TSA: the token is \
         left unread and the key judged at verified_at, inside its window.",
        b,
        with(trust, "/approval_keys", approval_keys(Some(later))),
        None,
    );
    Ok(())
}

/// The signed refund's bundle broken one way each.
fn negatives(out: &mut Out, b: &Json, other: &Json, trust: &Json) -> Result<(), String> {
    let events = b["events"].as_array().ok_or("no events")?.clone();
    let mut removed = events.clone();
    removed.remove(2);
    let mut reordered = events.clone();
    reordered.swap(1, 2);
    let cases: [(&str, &str, Json, Want); 13] = [
        (
            "n_inclusion_proof_invalid_event_edited",
            "An event's actor edited: its leaf is not in the checkpoint.",
            with(b, "/events/2/event/actor", json!("worker-2")),
            ("inclusion_proof_invalid", "/events/2/proof"),
        ),
        (
            "n_evidence_incomplete_event_removed",
            "An event of the task removed.",
            with(b, "/events", Json::Array(removed)),
            ("evidence_incomplete", "/events/2"),
        ),
        (
            "n_evidence_incomplete_events_reordered",
            "Two events swapped.",
            with(b, "/events", Json::Array(reordered)),
            ("evidence_incomplete", "/events/2/index"),
        ),
        (
            "n_evidence_other_task_event_moved",
            "An event of another task, with its own valid proof, in place of one of this task's.",
            with(b, "/events/1", at(other, "/events/1")),
            ("evidence_other_task", "/events/1/event/task"),
        ),
        (
            "n_inclusion_proof_invalid_other_checkpoint",
            "An event's inclusion proof taken from another bundle, for another checkpoint.",
            with(b, "/events/1/proof", at(other, "/events/1/proof")),
            ("inclusion_proof_invalid", "/events/1/proof"),
        ),
        (
            "n_inclusion_proof_invalid_hash_changed",
            "One hash of an inclusion proof replaced.",
            with(
                b,
                "/events/0/proof/0",
                json!("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="),
            ),
            ("inclusion_proof_invalid", "/events/0/proof"),
        ),
        (
            "n_evidence_mismatch_amount_edited",
            "The approved action's amount edited: no longer the action the events fingerprint.",
            with(b, "/actions/0/args/amount_minor", json!(250000)),
            ("evidence_mismatch", "/actions/0"),
        ),
        (
            "n_evidence_other_task_action",
            "Another task's action in place of this task's.",
            with(b, "/actions/0", at(other, "/actions/0")),
            ("evidence_other_task", "/actions/0"),
        ),
        (
            "n_evidence_mismatch_extra_decision",
            "Another task's decision added after this task's.",
            with(b, "/decisions/1", at(other, "/decisions/0")),
            ("evidence_mismatch", "/decisions"),
        ),
        (
            "n_evidence_other_task_extra_event",
            "Another task's event (with its valid proof) added after this task's.",
            with(
                b,
                &format!("/events/{}", events.len()),
                at(other, "/events/1"),
            ),
            ("evidence_other_task", "/events/4/event/task"),
        ),
        (
            "n_checkpoint_invalid_no_signatures",
            "A checkpoint note without its blank line and signatures.",
            with(b, "/checkpoint/note", json!(note_text(b)?)),
            ("checkpoint_invalid", "/checkpoint/note"),
        ),
        (
            "n_evidence_mismatch_other_task_decision",
            "A decision of another task in place of this task's.",
            with(b, "/decisions/0", at(other, "/decisions/0")),
            ("evidence_mismatch", "/decisions/0"),
        ),
        (
            "n_checkpoint_untrusted_signature_altered",
            "The ledger's signature on the checkpoint altered.",
            with(
                b,
                "/checkpoint/note",
                json!(alter_signature(&b["checkpoint"]["note"])?),
            ),
            ("checkpoint_untrusted", "/checkpoint/note/signatures/0"),
        ),
    ];
    for (name, description, bundle, want) in cases {
        out.add(name, description, bundle, trust.clone(), Some(want));
    }

    let witnessed_ms = (WITNESSED * 1000) as i64;
    let stranger = SignerKey::from_seed("PeterNeumann", &[3; 32])
        .map_err(s)?
        .verifier()
        .to_string();
    let second = witness(10, "witness2.example").verifier().to_string();
    let alias = witness(9, "witness-two.example").verifier().to_string();
    let trusts: [(&str, &str, Json, Want); 7] = [
        (
            "n_checkpoint_untrusted_other_ledger_key",
            "Verified with another ledger's key (same name, other key).",
            with(trust, "/ledger_keys", json!([{"key": stranger}])),
            ("checkpoint_untrusted", "/checkpoint/note"),
        ),
        (
            "n_checkpoint_untrusted_ledger_key_retired",
            "The ledger's key retired at the witness's cosignature time: it cannot vouch for a \
             checkpoint the bundle only proves existed then.",
            with(
                trust,
                "/ledger_keys",
                json!([{"key": log_verifier(), "valid_until": witnessed_ms}]),
            ),
            ("checkpoint_untrusted", "/checkpoint/note"),
        ),
        (
            "n_key_outside_window_approval_key_retired",
            "The approval key retired before the ledger recorded the decision.",
            with(trust, "/approval_keys", approval_keys(Some(T0))),
            ("key_outside_window", "/decisions/0"),
        ),
        (
            "n_checkpoint_untrusted_witness_quorum",
            "The trust needs two witnesses; only one of them cosigned.",
            with(
                trust,
                "/witnesses",
                json!({"keys": [at(trust, "/witnesses/keys/0"), second], "quorum": 2}),
            ),
            ("checkpoint_untrusted", "/checkpoint/note"),
        ),
        (
            "n_invalid_evidence_trust_witness_quorum_past_32_bits",
            "A witness quorum of 2^32, which no two keys can meet: wasm's 32-bit usize must not \
             wrap it to 0.",
            with(trust, "/witnesses/quorum", json!(1u64 << 32)),
            ("invalid_evidence_trust", "/witnesses/quorum"),
        ),
        (
            "n_invalid_evidence_trust_witness_key_twice",
            "The one witness listed again under another name, for a quorum of 2: its one \
             cosignature (which names no witness) would count twice.",
            with(
                trust,
                "/witnesses",
                json!({"keys": [at(trust, "/witnesses/keys/0"), alias], "quorum": 2}),
            ),
            ("invalid_evidence_trust", "/witnesses/keys/1"),
        ),
        (
            "n_invalid_evidence_trust_witness_key_type",
            "A witness key that is a note signing key (0x01), not a cosignature key (0x04).",
            with(trust, "/witnesses/keys/0", json!(log_verifier())),
            ("invalid_evidence_trust", "/witnesses/keys/0"),
        ),
    ];
    for (name, description, t, want) in trusts {
        out.add(name, description, b.clone(), t, Some(want));
    }

    let mut unknown = b.clone();
    unknown["signature"] = json!("trust me");
    let shapes: [(&str, &str, Json, Want); 3] = [
        (
            "n_invalid_evidence_version_2",
            "A bundle of version 2, which this verifier does not read.",
            with(b, "/version", json!(2)),
            ("invalid_evidence", "/version"),
        ),
        (
            "n_invalid_evidence_hash_31_bytes",
            "A proof hash of 31 bytes.",
            with(
                b,
                "/events/0/proof/0",
                json!("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="),
            ),
            ("invalid_evidence", "/events/0/proof/0"),
        ),
        (
            "n_invalid_evidence_unknown_member",
            "A member the format does not have.",
            unknown,
            ("invalid_evidence", "/signature"),
        ),
    ];
    for (name, description, bundle, want) in shapes {
        out.add(name, description, bundle, trust.clone(), Some(want));
    }
    Ok(())
}

/// What only a ledger that broke the contract's approval rules records, in the quorum
/// task's history (`q`: proposed; decided by user:bob, then user:dave, each a member of the
/// round; quorum_met; claimed; completed) or the signed refund's (`s`: proposed, decided,
/// claimed, completed), forged and signed with the ledger's own key: a verifier refuses these
/// only by re-deriving the rule.
fn dishonest(out: &mut Out, q: &Json, s: &Json, trust: &Json) -> Result<(), String> {
    let trust = without_witnesses(trust);
    out.add(
        "y_quorum_forged_log_as_recorded",
        "The quorum task's history as the ledger recorded it, in a log of its own under the \
         ledger's key without witnesses: what the forgeries below start from verifies.",
        forged::forged(q, |_| {})?,
        trust.clone(),
        None,
    );
    // The decisions and quorum_met left out, the task recorded as needing no approval.
    let unasked = |b: &Json, decided: &[usize]| {
        forged::forged(b, |h| {
            for &i in decided.iter().rev() {
                h.events.remove(i);
            }
            h.decisions.clear();
            h.events[0]["state"] = json!("approved");
            h.events[0]["detail"]["approval_required"] = json!(false);
            h.events[0]["detail"]["approval_id"] = Json::Null;
        })
    };
    // The claim (and what follows it) moved to when the approval ran out.
    let late = |b: &Json, claimed: usize, expires_at: &str| {
        let until = b.pointer(expires_at).cloned().unwrap_or(Json::Null);
        forged::forged(b, |h| {
            let until = until.as_i64().unwrap_or_default();
            for (n, e) in h.events.iter_mut().skip(claimed).enumerate() {
                e["at"] = json!(until + n as i64);
            }
        })
    };
    // The proposal moved to a minute after the signed decision, the rest a minute later.
    let backdated = forged::forged(s, |h| {
        let decided_at = h.events[1]["detail"]["decided_at"]
            .as_i64()
            .unwrap_or_default();
        for (n, e) in h.events.iter_mut().enumerate() {
            e["at"] = json!(decided_at + MINUTE * (n as i64 + 1));
        }
    })?;
    let cases: [(&str, &str, Json, Want); 9] = [
        (
            "n_decided_outside_round_before_the_proposal",
            "The refund's signed approval made a minute before the task was proposed (its \
             decided_at before the round began), and recorded: the ledger refuses a decision \
             made outside its round.",
            backdated,
            ("decided_outside_round", "/decisions/0/decided_at"),
        ),
        (
            "n_evidence_mismatch_claimed_after_the_approval_expired",
            "The refund claimed the millisecond its signed approval expired.",
            late(s, 2, "/events/1/event/detail/expires_at")?,
            ("evidence_mismatch", "/events/2/event"),
        ),
        (
            "n_evidence_mismatch_claimed_after_a_member_expired",
            "The quorum task claimed once user:bob's approval, the first of the round's to \
             expire, ran out.",
            late(q, 4, "/events/1/event/detail/expires_at")?,
            ("evidence_mismatch", "/events/4/event"),
        ),
        (
            "n_evidence_mismatch_quorum_task_recorded_as_unasked",
            "The quorum task recorded as needing no approval (its contract's rule is \
             \"always\") and claimed without a decision.",
            unasked(q, &[1, 2, 3])?,
            (
                "evidence_mismatch",
                "/events/0/event/detail/approval_required",
            ),
        ),
        (
            "n_evidence_mismatch_refund_recorded_as_unasked",
            "A refund of 2500 recorded as needing no approval (its contract asks a person \
             above 1000) and claimed without a decision.",
            unasked(s, &[1])?,
            (
                "evidence_mismatch",
                "/events/0/event/detail/approval_required",
            ),
        ),
        (
            "n_quorum_not_met_one_approval",
            "user:bob's decision left out of the history: quorum_met after one approval of \
             the two the contract asks for.",
            forged::forged(q, |h| {
                h.events.remove(1);
                h.decisions.remove(0);
            })?,
            ("quorum_not_met", "/events/2/event"),
        ),
        (
            "n_quorum_not_met_counted_otherwise",
            "quorum_met counts user:mallory where the round's record is user:bob's.",
            forged::forged(q, |h| {
                h.events[3]["detail"]["quorum"]["counted"][0]["approver"] = json!("user:mallory");
            })?,
            ("quorum_not_met", "/events/3/event/detail/quorum"),
        ),
        (
            "n_quorum_not_met_decided_alone",
            "user:dave's decision approves the task by itself, counted in no round: no \
             quorum_met, and user:bob's decision left out.",
            forged::forged(q, |h| {
                h.events.remove(3);
                h.events.remove(1);
                h.decisions.remove(0);
                let d = &mut h.events[1];
                d["state"] = json!("approved");
                if let Some(detail) = d["detail"].as_object_mut() {
                    detail.remove("counted_as");
                    detail.remove("role");
                }
            })?,
            ("quorum_not_met", "/events/1/event/detail"),
        ),
        (
            "n_approver_not_separate_proposer",
            "The task proposed by user:bob, who then approved it: a quorum's separation of \
             duties excludes the proposer.",
            forged::forged(q, |h| h.events[0]["actor"] = json!("user:bob"))?,
            ("approver_not_separate", "/decisions/0/approver"),
        ),
    ];
    for (name, description, bundle, want) in cases {
        out.add(name, description, bundle, trust.clone(), Some(want));
    }
    Ok(())
}

/// The text of the bundle's checkpoint note, before its signatures.
fn note_text(b: &Json) -> Result<String, String> {
    let note = b["checkpoint"]["note"].as_str().ok_or("no note")?;
    note.split_once("\n\n")
        .map(|(t, _)| format!("{t}\n"))
        .ok_or_else(|| "no note text".to_owned())
}

/// The note with the first byte of its first signature's Ed25519 signature flipped.
fn alter_signature(note: &Json) -> Result<String, String> {
    let note = note.as_str().ok_or("no note")?;
    let start = note.find("\n\n— ").ok_or("no signature line")?;
    let line_end = note[start + 2..]
        .find('\n')
        .ok_or("no signature line end")?
        + start
        + 2;
    let line = &note[start + 2..line_end];
    let (head, sig) = line.rsplit_once(' ').ok_or("no signature")?;
    let mut bytes = STANDARD.decode(sig).map_err(s)?;
    let byte = bytes.get_mut(4).ok_or("short signature")?;
    *byte ^= 1;
    let sig = STANDARD.encode(&bytes);
    Ok(format!(
        "{}{head} {sig}{}",
        &note[..start + 2],
        &note[line_end..]
    ))
}

/// A checkpoint of a second ledger with the same key and other events, cosigned by the
/// witness, in place of the bundle's earlier witnessed checkpoint: the two histories fork.
fn forked(out: &mut Out, b: &Json, trust: &Json) -> Result<(), String> {
    let mut fork = Fixture::new()?;
    let job = fork.task("job-fork", Decided::Signed, Reported::Succeeded)?;
    let fb = fork.export(&job, &witness(9, "witness.example"))?;
    out.add(
        "n_consistency_proof_invalid_forked_ledger",
        "The earlier witnessed checkpoint is from a fork: a ledger with the same key and other \
         events, cosigned by the same witness. The bundle's checkpoint does not extend it.",
        with(b, "/witnessed/0/note", at(&fb, "/checkpoint/note")),
        trust.clone(),
        Some(("consistency_proof_invalid", "/witnessed/0/consistency")),
    );
    Ok(())
}

/// Time-stamp tokens on the checkpoint: the fixtures of `core/tests/timestamp/` (tokens over
/// other data, from other roots, by an expired certificate) and a token over the checkpoint.
fn stamps(out: &mut Out, b: &Json, trust: &Json, tokens: &mut dyn Tokens) -> Result<(), String> {
    let fixture = |name: &str| -> Result<String, String> {
        let path = crate::dir().join("../core/tests/timestamp").join(name);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(STANDARD.encode(&bytes))
    };
    let stamped = |token: String| with(b, "/checkpoint/timestamp", json!(token));
    let roots = |root: String| with(trust, "/tsa_roots", json!([root]));
    let cases: [(&str, &str, &str, &str, Want); 4] = [
        (
            "n_timestamp_mismatch_other_data",
            "A valid token from a trusted TSA over other data than the checkpoint's text.",
            "rsa.tsr",
            "root.der",
            (
                "timestamp_mismatch",
                "/checkpoint/timestamp/message_imprint",
            ),
        ),
        (
            "n_timestamp_untrusted_other_root",
            "A token whose TSA does not chain to the trusted root.",
            "rsa.tsr",
            "other-root.der",
            ("timestamp_untrusted", "/checkpoint/timestamp"),
        ),
        (
            "n_timestamp_untrusted_expired_certificate",
            "A token by a TSA certificate whose validity ended before the token's time.",
            "expired.tsr",
            "root.der",
            ("timestamp_untrusted", "/checkpoint/timestamp"),
        ),
        (
            "n_timestamp_invalid_bad_signature",
            "A token whose signature does not verify.",
            "bad-signature.tsr",
            "root.der",
            (
                "timestamp_invalid",
                "/checkpoint/timestamp/signer_infos/0/signature",
            ),
        ),
    ];
    for (name, description, token, root, want) in cases {
        out.add(
            name,
            description,
            stamped(fixture(token)?),
            roots(fixture(root)?),
            Some(want),
        );
    }

    // The text the token must time-stamp: the note's text, before its signatures.
    let text = note_text(b)?;
    let (token, root) = tokens.token("y_timestamped_checkpoint", &text)?;
    out.add(
        "y_timestamped_checkpoint",
        "The checkpoint with an RFC 3161 token over its text from a TSA the trust lists (made \
         once by testing/tsa/ and kept while the checkpoint's text is unchanged); the trust \
         names no witness, so the token's time is the checkpoint's.",
        stamped(token),
        without_witnesses(&roots(root)),
        None,
    );
    Ok(())
}
