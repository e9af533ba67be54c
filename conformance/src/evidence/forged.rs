//! Bundles only a ledger that broke its own rules exports: an honest export's history edited,
//! its events chained again, logged in a tree of their own and checkpointed under the vectors'
//! ledger key (a dishonest ledger holds its own key), without witnesses. Every check before
//! the one a vector is about passes, so a verifier refuses it only by re-deriving that rule:
//! an honest ledger refuses such a decision as it arrives, and never records it.

use super::ledger::log_signer;
use super::s;
use crate::decisions::to_core;
use actionseal_core::tlog::checkpoint::Checkpoint;
use actionseal_core::tlog::merkle::{inclusion_proof, leaf_hash, MemoryTree};
use actionseal_core::tlog::note::Note;
use actionseal_core::{canonicalize, Digest};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value as Json};

/// A task's history as a forger edits it: its events before the export, and the bundle's
/// decision records (one per decided event), with their inclusion proofs in their batches
/// when the task is a batch's item (else empty).
pub(super) struct History {
    pub(super) events: Vec<Json>,
    pub(super) decisions: Vec<Json>,
    pub(super) in_batch: Vec<Json>,
}

/// `b` after `edit` changed its history: each event numbered and chained again (`seq`,
/// `prev`), the export listing them, all of them the leaves of a new log whose checkpoint the
/// ledger's key signs. Verify it with a trust without witnesses.
pub(super) fn forged(b: &Json, edit: impl FnOnce(&mut History)) -> Result<Json, String> {
    let events = b["events"].as_array().ok_or("no events")?;
    let mut h = History {
        events: events.iter().map(|e| e["event"].clone()).collect(),
        decisions: b["decisions"].as_array().ok_or("no decisions")?.clone(),
        in_batch: b
            .get("in_batch")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default(),
    };
    edit(&mut h);
    let mut export = b["export"]["event"].clone();
    let mut prev = Json::Null;
    let mut listed = Vec::new();
    let mut tree = MemoryTree::new();
    for (n, e) in h.events.iter_mut().enumerate() {
        e["seq"] = json!(n + 1);
        e["prev"] = prev;
        let text = canonicalize(&to_core(e)?);
        tree.push(leaf_hash(text.as_bytes()));
        prev = json!(Digest::of(text.as_bytes()).to_string());
        listed.push(prev.clone());
    }
    export["seq"] = json!(h.events.len() + 1);
    export["prev"] = prev;
    export["detail"]["events"] = Json::Array(listed);
    tree.push(leaf_hash(canonicalize(&to_core(&export)?).as_bytes()));

    let all: Vec<&Json> = h.events.iter().chain([&export]).collect();
    let size = tree.size();
    let signer = log_signer();
    let checkpoint = Checkpoint::new(signer.name(), size, tree.root()).map_err(s)?;
    let note = Note::signed(&checkpoint.to_string(), &signer).map_err(s)?;
    let mut entries = Vec::with_capacity(all.len());
    for (i, e) in all.iter().enumerate() {
        let path = inclusion_proof(&mut &tree, i as u64, size).map_err(s)?;
        let path: Vec<String> = path.iter().map(|h| STANDARD.encode(h)).collect();
        entries.push(json!({"index": i, "event": e, "proof": path}));
    }
    let export = entries.pop().ok_or("no export")?;

    let mut out = b.clone();
    out["events"] = Json::Array(entries);
    out["export"] = export;
    out["decisions"] = Json::Array(h.decisions);
    if !h.in_batch.is_empty() {
        out["in_batch"] = Json::Array(h.in_batch);
    }
    out["checkpoint"] = json!({"note": note.to_string(), "timestamp": null});
    out["witnessed"] = json!([]);
    Ok(out)
}
