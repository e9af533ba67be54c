//! The bundle's format: one canonical JSON object (RFC 8785), read strictly.
//!
//! ```json
//! {
//!   "version": 1,
//!   "task": "<task id>",
//!   "contract": {<the contract document>},
//!   "actions": [{<the action as proposed>}, {<each amendment's action, in order>}],
//!   "reasons": ["<each amendment's reason, in order>"],
//!   "decisions": [{<each decided event's approval record, its proof put back>}],
//!   "in_batch": [null | {"index", "path"}],
//!   "events": [{"index": <leaf index>, "event": {<audit event>}, "proof": ["<base64 hash>"]}],
//!   "export": {"index", "event": {<the evidence_exported event>}, "proof"},
//!   "checkpoint": {"note": "<signed checkpoint note>", "timestamp": "<base64 DER token>" | null},
//!   "witnessed": [{"note": "<an earlier cosigned checkpoint>", "consistency": ["<base64>"]}],
//!   "keys": {<the public keys and windows the ledger knew; informational, never trusted>}
//! }
//! ```
//!
//! `disclosures` (`["<base64url disclosure>"]`) is there only when the exporter asked for the
//! sensitive values of the decided action and the ledger's policy allowed it (issue 29).
//!
//! `in_batch` is there only when a decision was over a batch (issue 28): for each decision,
//! null, or the task's inclusion proof in the batch that decision's record freezes, which is
//! how the record speaks about this one action.
//!
//! Hashes are standard base64, as in the checkpoint's own text (C2SP tlog-checkpoint); an
//! event is the object an exported audit line holds, without its `digest` (its leaf is its
//! canonical text).

use crate::base64::standard as b64;
use crate::error::{Code, Error, Result};
use crate::json::value::{OwnedValue, Value};
use crate::model::batch::ItemProof;
use crate::model::fields::Fields;
use crate::model::ledger::values::{int, object, string};
use crate::model::ledger::Event;
use crate::tlog::merkle::Hash;

/// The version of the bundle this build writes and reads.
pub const EVIDENCE_VERSION: i64 = 1;

/// Room for a task's history: far more events than any task has (a task with this many is
/// one a bundle is not the way to show).
const MAX_EVENTS: usize = 10_000;

/// An audit event with where it is in the log.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its leaf index.
    pub index: u64,
    /// The event.
    pub event: Event,
    /// Its canonical text: the leaf's data.
    pub text: String,
    /// Its inclusion proof in the bundle's checkpoint.
    pub proof: Vec<Hash>,
}

/// A signed checkpoint with its time-stamp token.
#[derive(Clone, Debug)]
pub struct Anchor {
    /// The signed note: the checkpoint, the ledger's signature and the witnesses'.
    pub note: String,
    /// An RFC 3161 token over the checkpoint's text, when the server has a time-stamping
    /// authority.
    pub timestamp: Option<Vec<u8>>,
}

/// An earlier checkpoint a witness cosigned, with the proof that the bundle's extends it.
#[derive(Clone, Debug)]
pub struct Witnessed {
    /// The signed note.
    pub note: String,
    /// The consistency proof from it to the bundle's checkpoint.
    pub consistency: Vec<Hash>,
}

/// An evidence bundle (see the module documentation).
#[derive(Clone, Debug)]
pub struct Bundle {
    /// The task it is about.
    pub task: String,
    /// The contract in force.
    pub contract: OwnedValue,
    /// The action as proposed, then as each amendment left it.
    pub actions: Vec<OwnedValue>,
    /// Each amendment's reason.
    pub reasons: Vec<String>,
    /// Each decision's approval record, with its proof.
    pub decisions: Vec<OwnedValue>,
    /// For each decision, the task's inclusion proof in the batch the decision is about, when
    /// it is a batch decision (empty when none is).
    pub in_batch: Vec<Option<ItemProof>>,
    /// The task's events, in log order.
    pub events: Vec<Entry>,
    /// The event that recorded the export.
    pub export: Entry,
    /// The checkpoint every proof is against.
    pub checkpoint: Anchor,
    /// Earlier witnessed checkpoints.
    pub witnessed: Vec<Witnessed>,
    /// The keys as the ledger knew them (informational).
    pub keys: OwnedValue,
    /// Disclosures (base64url) of sensitive values of the decided action (issue 29): none
    /// unless the exporter asked for them and the ledger's policy allowed it.
    pub disclosures: Vec<String>,
}

fn bad(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidEvidence, message)
}

fn list<'v, 'a>(f: &Fields<'v, 'a>, key: &str) -> Result<&'v [Value<'a>]> {
    match f.required(key)? {
        Value::Array(items) => Ok(items),
        _ => Err(bad(format!("{key} must be a list")).in_key(key)),
    }
}

fn hashes(v: &Value<'_>) -> Result<Vec<Hash>> {
    crate::tlog::hashes::read_list(v, Code::InvalidEvidence)
}

impl Entry {
    fn from_value(v: &Value<'_>) -> Result<Entry> {
        let f = Fields::new(
            v,
            Code::InvalidEvidence,
            "an entry",
            &["index", "event", "proof"],
        )?;
        let index = f.integer("index", 0)?;
        let event = f.required("event")?;
        let parsed = Event::from_value(event)
            .map_err(|e| e.with_code(Code::InvalidEvidence).in_key("event"))?;
        Ok(Entry {
            index: index as u64,
            text: parsed.canonical(),
            event: parsed,
            proof: hashes(f.required("proof")?).map_err(|e| e.in_key("proof"))?,
        })
    }

    /// `{"index", "event", "proof"}`.
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("index", int(self.index as i64)),
            ("event", self.event.to_value()),
            ("proof", crate::tlog::hashes::write_list(&self.proof)),
        ])
    }
}

impl Bundle {
    /// Reads a bundle; anything malformed is [`Code::InvalidEvidence`] at the member.
    pub fn from_value(v: &Value<'_>) -> Result<Bundle> {
        let f = Fields::new(
            v,
            Code::InvalidEvidence,
            "an evidence bundle",
            &[
                "version",
                "task",
                "contract",
                "actions",
                "reasons",
                "decisions",
                "in_batch",
                "events",
                "export",
                "checkpoint",
                "witnessed",
                "keys",
                "disclosures",
            ],
        )?;
        let version = f.integer("version", 1)?;
        if version != EVIDENCE_VERSION {
            return Err(bad(format!(
                "bundle version {version}: this build reads version {EVIDENCE_VERSION}"
            ))
            .in_key("version"));
        }
        let owned = |key: &str| -> Result<Vec<OwnedValue>> {
            Ok(list(&f, key)?
                .iter()
                .map(|x| x.clone().into_owned())
                .collect())
        };
        let reasons = list(&f, "reasons")?
            .iter()
            .enumerate()
            .map(|(i, r)| {
                r.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| bad("a reason is a string").in_index(i).in_key("reasons"))
            })
            .collect::<Result<Vec<_>>>()?;
        let events = list(&f, "events")?;
        if events.len() > MAX_EVENTS {
            return Err(bad(format!("at most {MAX_EVENTS} events")).in_key("events"));
        }
        let events = events
            .iter()
            .enumerate()
            .map(|(i, e)| Entry::from_value(e).map_err(|e| e.in_index(i).in_key("events")))
            .collect::<Result<Vec<_>>>()?;
        let witnessed = list(&f, "witnessed")?
            .iter()
            .enumerate()
            .map(|(i, w)| witnessed(w).map_err(|e| e.in_index(i).in_key("witnessed")))
            .collect::<Result<Vec<_>>>()?;
        Ok(Bundle {
            task: f.identity("task")?.to_owned(),
            contract: f.required("contract")?.clone().into_owned(),
            actions: owned("actions")?,
            reasons,
            decisions: owned("decisions")?,
            in_batch: in_batch(&f)?,
            events,
            export: Entry::from_value(f.required("export")?).map_err(|e| e.in_key("export"))?,
            checkpoint: anchor(f.required("checkpoint")?).map_err(|e| e.in_key("checkpoint"))?,
            witnessed,
            keys: f.required("keys")?.clone().into_owned(),
            disclosures: disclosures(&f)?,
        })
    }

    /// The bundle's JSON (write it canonically).
    pub fn to_value(&self) -> OwnedValue {
        let timestamp = self
            .checkpoint
            .timestamp
            .as_ref()
            .map_or(Value::Null, |t| string(&b64::encode(t)));
        let witnessed = self
            .witnessed
            .iter()
            .map(|w| {
                object(vec![
                    ("note", string(&w.note)),
                    (
                        "consistency",
                        crate::tlog::hashes::write_list(&w.consistency),
                    ),
                ])
            })
            .collect();
        let in_batch = self.in_batch.iter().any(Option::is_some).then(|| {
            let proofs = self.in_batch.iter();
            let proofs = proofs.map(|p| p.as_ref().map_or(Value::Null, ItemProof::to_value));
            ("in_batch", Value::Array(proofs.collect()))
        });
        let mut members = vec![
            ("version", int(EVIDENCE_VERSION)),
            ("task", string(&self.task)),
            ("contract", self.contract.clone()),
            ("actions", Value::Array(self.actions.clone())),
            (
                "reasons",
                Value::Array(self.reasons.iter().map(|r| string(r)).collect()),
            ),
            ("decisions", Value::Array(self.decisions.clone())),
            (
                "events",
                Value::Array(self.events.iter().map(Entry::to_value).collect()),
            ),
            ("export", self.export.to_value()),
            (
                "checkpoint",
                object(vec![
                    ("note", string(&self.checkpoint.note)),
                    ("timestamp", timestamp),
                ]),
            ),
            ("witnessed", Value::Array(witnessed)),
            ("keys", self.keys.clone()),
        ];
        members.extend(in_batch);
        // Only when some were disclosed: a bundle without keeps its bytes.
        if !self.disclosures.is_empty() {
            let texts = self.disclosures.iter().map(|d| string(d)).collect();
            members.push(("disclosures", Value::Array(texts)));
        }
        object(members)
    }
}

/// `disclosures`, when the bundle has them: strings (each read as a disclosure when verified).
fn disclosures(f: &Fields<'_, '_>) -> Result<Vec<String>> {
    if f.get("disclosures").is_none() {
        return Ok(Vec::new());
    }
    list(f, "disclosures")?
        .iter()
        .enumerate()
        .map(|(i, d)| {
            d.as_str().map(str::to_owned).ok_or_else(|| {
                bad("a disclosure is a base64url string")
                    .in_index(i)
                    .in_key("disclosures")
            })
        })
        .collect()
}

/// `in_batch`, when the bundle has one: a list of nulls and inclusion proofs.
fn in_batch(f: &Fields<'_, '_>) -> Result<Vec<Option<ItemProof>>> {
    if f.get("in_batch").is_none() {
        return Ok(Vec::new());
    }
    list(f, "in_batch")?
        .iter()
        .enumerate()
        .map(|(i, p)| match p {
            Value::Null => Ok(None),
            p => ItemProof::from_value(p).map(Some).map_err(|e| {
                e.with_code(Code::InvalidEvidence)
                    .in_index(i)
                    .in_key("in_batch")
            }),
        })
        .collect()
}

fn anchor(v: &Value<'_>) -> Result<Anchor> {
    let f = Fields::new(
        v,
        Code::InvalidEvidence,
        "a checkpoint",
        &["note", "timestamp"],
    )?;
    let timestamp = match f.required("timestamp")? {
        Value::Null => None,
        t => {
            let text = t.as_str().ok_or_else(|| {
                bad("a time-stamp token is base64 DER or null").in_key("timestamp")
            })?;
            Some(
                b64::decode(text)
                    .map_err(|e| e.with_code(Code::InvalidEvidence).in_key("timestamp"))?,
            )
        }
    };
    Ok(Anchor {
        note: f.string("note")?.to_owned(),
        timestamp,
    })
}

fn witnessed(v: &Value<'_>) -> Result<Witnessed> {
    let f = Fields::new(
        v,
        Code::InvalidEvidence,
        "a witnessed checkpoint",
        &["note", "consistency"],
    )?;
    Ok(Witnessed {
        note: f.string("note")?.to_owned(),
        consistency: hashes(f.required("consistency")?).map_err(|e| e.in_key("consistency"))?,
    })
}
