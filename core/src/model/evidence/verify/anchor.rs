//! The bundle's checkpoint: the ledger signed it with a key valid at a time the ledger does
//! not choose, the trusted witnesses cosigned it, and it extends every earlier witnessed
//! checkpoint the bundle carries.
//!
//! That time is the earliest the bundle proves the checkpoint existed by: an RFC 3161
//! token's `genTime` or a trusted witness's cosignature timestamp (C2SP tlog-cosignature).
//! It is an upper bound on when the ledger signed, so a key retired (`valid_until`) before it
//! cannot vouch for the checkpoint: a retired key cannot sign by backdating.

use super::super::bundle::Bundle;
use super::super::timeline::LogView;
use super::super::trust::Trust;
use crate::base64::standard as b64;
use crate::error::{Code, Error, Result};
use crate::tlog::checkpoint::Checkpoint;
use crate::tlog::merkle::{verify_consistency, Hash};
use crate::tlog::note::Note;

/// The verified checkpoint.
pub(in crate::model::evidence) struct Log {
    pub(in crate::model::evidence) size: u64,
    pub(in crate::model::evidence) root_hash: Hash,
    pub(in crate::model::evidence) view: LogView,
}

fn untrusted(message: impl Into<String>) -> Error {
    Error::new(Code::CheckpointUntrusted, message)
}

/// A checkpoint note, signed by a trusted ledger key at an independent time where the key
/// has a window, and cosigned by the trusted witnesses' quorum.
struct Signed {
    checkpoint: Checkpoint,
    time: Option<(i64, &'static str)>,
    witnesses: Vec<String>,
}

fn signed(note_text: &str, token: Option<&[u8]>, trust: &Trust) -> Result<Signed> {
    let note = Note::parse(note_text.as_bytes()).map_err(|e| e.in_key("note"))?;
    let checkpoint = Checkpoint::parse(note.text()).map_err(|e| e.in_key("note"))?;
    let mut time: Option<(i64, &'static str)> = None;
    // A verifier that trusts no time-stamping authority cannot use a token: it is left
    // unread, and the time comes from the witnesses (the timeline says which).
    if let Some(token) = token.filter(|_| !trust.tsa_roots.is_empty()) {
        let at = super::super::stamp::checkpoint_time(token, note.text(), trust)
            .map_err(|e| e.in_key("timestamp"))?;
        time = Some((at, "rfc3161"));
    }
    let mut witnesses = Vec::new();
    if !trust.witnesses.is_empty() {
        let cosigned = note.verify(&trust.witnesses).map_err(|e| {
            let e = if e.code() == Code::CheckpointUntrusted && e.path().is_empty() {
                untrusted("no trusted witness cosigned the checkpoint")
            } else {
                e
            };
            e.in_key("note")
        })?;
        for v in &cosigned {
            if !witnesses.iter().any(|w| w == v.key.name()) {
                witnesses.push(v.key.name().to_owned());
            }
            // Seconds since the epoch, as the cosignature carries them.
            let Some(ms) = v
                .timestamp
                .and_then(|s| i64::try_from(s).ok()?.checked_mul(1000))
            else {
                continue;
            };
            if time.is_none_or(|(t, _)| ms < t) {
                time = Some((ms, "witness"));
            }
        }
        if witnesses.len() < trust.witness_quorum {
            return Err(untrusted(format!(
                "{} trusted witnesses cosigned the checkpoint; the trust needs {}",
                witnesses.len(),
                trust.witness_quorum
            ))
            .in_key("note"));
        }
    }
    let keys: Vec<_> = trust.ledger_keys.iter().map(|k| k.key.clone()).collect();
    let by = note.verify(&keys).map_err(|e| e.in_key("note"))?;
    // C2SP: a log signs with the key named as its origin; a trusted key of another name
    // signing it does not make it this log's checkpoint.
    let holds = by
        .iter()
        .filter(|v| v.key.name() == checkpoint.origin())
        .any(|v| {
            trust
                .ledger_keys
                .iter()
                .filter(|k| &k.key == v.key)
                .any(|k| match time {
                    Some((at, _)) => k.holds_at(at),
                    None => !k.has_window(),
                })
        });
    if !holds {
        let why = match time {
            Some(_) => "the ledger key that signed it was not valid when the checkpoint existed",
            None => {
                "the ledger key that signed it has a window, and the checkpoint carries no time \
                 the ledger does not choose (no time-stamp token, no witness cosignature)"
            }
        };
        return Err(untrusted(why).in_key("note"));
    }
    Ok(Signed {
        checkpoint,
        time,
        witnesses,
    })
}

/// Verifies the bundle's checkpoint and the earlier witnessed ones it extends.
pub(super) fn verify(b: &Bundle, trust: &Trust) -> Result<Log> {
    let at = |e: Error| e.in_key("checkpoint");
    let s = signed(&b.checkpoint.note, b.checkpoint.timestamp.as_deref(), trust).map_err(at)?;
    let cp = &s.checkpoint;
    for (i, w) in b.witnessed.iter().enumerate() {
        let at = |e: Error| e.in_index(i).in_key("witnessed");
        let old = signed(&w.note, None, trust).map_err(at)?.checkpoint;
        if old.origin() != cp.origin() {
            return Err(at(Error::new(
                Code::ConsistencyProofInvalid,
                "a witnessed checkpoint of another log",
            )
            .in_key("note")));
        }
        verify_consistency(old.size(), cp.size(), &w.consistency, old.root(), cp.root())
            .map_err(|e| at(e.in_key("consistency")))?;
    }
    Ok(Log {
        size: cp.size(),
        root_hash: *cp.root(),
        view: LogView {
            origin: cp.origin().to_owned(),
            size: cp.size(),
            root: b64::encode(cp.root()),
            time: s.time,
            witnesses: s.witnesses,
        },
    })
}
