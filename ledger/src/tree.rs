//! The audit as an RFC 9162 Merkle log (issue 26): what lets someone who does not trust the
//! database check that its history only ever grew.
//!
//! Each event is one leaf, its data the event's canonical text (`ledger_events.body`,
//! `Event::canonical`), its hash SHA-256(0x00 || text) (RFC 9162 §2.1.1). Operations never
//! touch the tree, so writers keep today's concurrency: [`Ledger::checkpoint`] is the
//! sequencer (as Trillian's), which gives the events written since the last checkpoint their
//! leaves in event id order, stores the perfect subtrees they complete and a checkpoint signed
//! with the ledger's key (a C2SP tlog-checkpoint in a C2SP signed note). Proofs are read
//! through the stored subtrees (never by rebuilding the tree): an inclusion proof is at most
//! one stored node per level. [`Ledger::audit_verify_checkpoint`] holds the database to a
//! checkpoint kept elsewhere, recomputing every leaf from its event.
//!
//! - `sql`: the statements, once for both engines;
//! - `stored`: the tables read (the subtrees as core's `Nodes`, the checkpoints);
//! - `sequence`: the sequencer;
//! - `verify`: the database against a checkpoint;
//! - `sign`: the checkpoint's signed note;
//! - `stamp`: the checkpoint's RFC 3161 token;
//! - `witness`: the request a witness cosigns, and its cosignatures kept.

mod sequence;
mod sign;
pub(crate) mod sql;
mod stamp;
pub(crate) mod stored;
mod verify;
mod witness;

use crate::{json, Backend, Ledger};
use actionseal_core::tlog::merkle::{self, Hash};
use actionseal_core::tlog::note::{Signature, SignerKey, VerifierKey};
use actionseal_core::tlog::witness::Request;
use actionseal_core::{Code, Error, OwnedValue, Result};
use sql::{Access, Sql};
use stored::Stored;

/// A signed checkpoint of the Merkle log, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// How many leaves (events) the tree holds.
    pub size: u64,
    /// The tree's root (RFC 9162 §2.1.1).
    pub root: Hash,
    /// The signed note: the checkpoint's text and the ledger's signature line.
    pub note: String,
    /// When it was made (ms since the epoch, the ledger's clock).
    pub at: i64,
    /// The RFC 3161 TimeStampToken (DER) over the checkpoint's text (the note's text without
    /// its signature lines, SHA-256 imprint), verified against the TSA's roots before it was
    /// kept; `None` without a time-stamping authority ([`crate::LedgerOptions::tsa`]).
    pub timestamp: Option<Vec<u8>>,
    /// The witnesses' cosignature lines (each with its newline), oldest first.
    pub cosignatures: Vec<String>,
}

impl Checkpoint {
    /// The signed note with the witnesses' cosignatures: what to publish and keep.
    pub fn cosigned_note(&self) -> String {
        std::iter::once(self.note.as_str())
            .chain(self.cosignatures.iter().map(String::as_str))
            .collect()
    }

    /// `{"size", "root", "note", "at", "cosignatures"}`: the checkpoint as the bindings return
    /// it, `root` in base64 as the note's body writes it (C2SP tlog-checkpoint, third line).
    pub fn to_value(&self) -> Result<OwnedValue> {
        let int = |i: i64| {
            actionseal_core::Number::from_i64(i, actionseal_core::Profile::Strict)
                .map(actionseal_core::Value::from)
        };
        let root = self.note.lines().nth(2).unwrap_or_default();
        Ok(json::obj(vec![
            ("size", int(i64::try_from(self.size).unwrap_or(i64::MAX))?),
            ("root", json::s(root)),
            ("note", json::s(&self.note)),
            ("at", int(self.at)?),
            (
                "cosignatures",
                actionseal_core::Value::Array(
                    self.cosignatures.iter().map(|c| json::s(c)).collect(),
                ),
            ),
        ]))
    }
}

/// An event named by its id in the database, or by its place in its chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventRef {
    /// The event's id (`ledger_events.id`).
    Id(i64),
    /// The event at `seq` of `chain` (events are not indexed by chain: this reads them all).
    Seq { chain: i64, seq: i64 },
}

impl std::fmt::Display for EventRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EventRef::Id(id) => write!(f, "event {id}"),
            EventRef::Seq { chain, seq } => write!(f, "the event at seq {seq} of chain {chain}"),
        }
    }
}

/// An event's inclusion proof: what `merkle::verify_inclusion(&leaf_hash(event), leaf, size,
/// proof, root)` checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InclusionProof {
    /// The event's id.
    pub event_id: i64,
    /// Its canonical text: the leaf's data.
    pub event: String,
    /// Its leaf index.
    pub leaf: u64,
    /// The size of the tree the proof is in.
    pub size: u64,
    /// That tree's root.
    pub root: Hash,
    /// The sibling hashes, from the leaf up (RFC 9162 §2.1.3.1).
    pub proof: Vec<Hash>,
}

/// What [`Ledger::audit_verify_checkpoint`] found: the database holds the checkpoint's tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckpointVerified {
    /// The given checkpoint's size.
    pub size: u64,
    /// How many leaves the database's tree holds.
    pub leaves: u64,
    /// The size of the database's latest checkpoint, consistent with the given one.
    pub latest: u64,
}

impl CheckpointVerified {
    /// `{"checkpoint": {"latest", "leaves", "size"}}`.
    pub fn to_value(&self) -> OwnedValue {
        let n = |x: u64| json::n(i64::try_from(x).unwrap_or(i64::MAX));
        json::obj(vec![(
            "checkpoint",
            json::obj(vec![
                ("latest", n(self.latest)),
                ("leaves", n(self.leaves)),
                ("size", n(self.size)),
            ]),
        )])
    }
}

impl Ledger {
    /// Runs `f` on the Merkle log's tables, in one transaction.
    pub(crate) fn tree<T>(
        &self,
        access: Access,
        f: impl FnOnce(&mut dyn Sql) -> Result<T>,
    ) -> Result<T> {
        match &self.backend {
            Backend::Sqlite(s) => s.tree(access, f),
            Backend::Postgres(p) => p.tree(access, f),
        }
    }

    /// Sequences the events written since the last checkpoint into the Merkle log and returns
    /// the signed checkpoint of the tree they make (the latest one when there are none),
    /// signed with [`crate::LedgerOptions::checkpoint_signer`]. Writers wait only while the
    /// rows are written on SQLite (its one write lock), and never on PostgreSQL, where it
    /// waits for the writers in flight instead (see `postgres/tree.rs`).
    ///
    /// With a time-stamping authority ([`crate::LedgerOptions::tsa`]), the checkpoint
    /// returned carries its token ([`Checkpoint::timestamp`]), asked once the sequencing has
    /// committed, so that writers never wait on the TSA. A TSA that cannot be asked
    /// ([`Code::TimestampUnavailable`]) or answers no valid token (its code) fails the call:
    /// the checkpoint is then stored and signed without a token, and the next call stamps it
    /// (or the newer one it makes, whose token bounds every older tree as well).
    pub fn checkpoint(&self) -> Result<Checkpoint> {
        let signer = self.signer.as_ref().ok_or_else(|| {
            Error::new(
                Code::InvalidRequest,
                "this ledger has no key to sign checkpoints with: open it with \
                 LedgerOptions::checkpoint_signer (the CLI's --log-key)",
            )
        })?;
        let checkpoint = self.sequence(signer)?;
        match &self.tsa {
            Some(tsa) if checkpoint.timestamp.is_none() => {
                let token = stamp::token(tsa, &checkpoint)?;
                self.tree(Access::Write, |sql| {
                    stamp::keep(sql, checkpoint.size, &token)
                })
            }
            _ => Ok(checkpoint),
        }
    }

    /// Plans the tree's growth in a snapshot, then writes it (see `tree/sequence.rs`).
    fn sequence(&self, signer: &SignerKey) -> Result<Checkpoint> {
        let settled = self.settled()?;
        let plan = self.tree(Access::Read, |sql| sequence::plan(sql, settled))?;
        self.tree(Access::Sequence, |sql| {
            // Read in the sequencer's transaction: checkpoints are dated in the order they
            // are made.
            sequence::write(sql, plan, settled, self.clock.now_ms(), signer)
        })
    }

    /// The largest event id below which no event can still commit: the sequencer reads the
    /// events up to it. On SQLite every snapshot is such a prefix (one writer at a time, ids
    /// given in commit order), so there is no bound; on PostgreSQL ids are given before
    /// commit, so they commit out of order (see `postgres/tree.rs`).
    fn settled(&self) -> Result<i64> {
        match &self.backend {
            Backend::Sqlite(_) => Ok(i64::MAX),
            Backend::Postgres(p) => p.settled(),
        }
    }

    /// Every stored checkpoint, oldest first.
    pub fn checkpoints(&self) -> Result<Vec<Checkpoint>> {
        self.tree(Access::Read, stored::all)
    }

    /// The inclusion proof of `event` in the tree of the latest checkpoint, or of the first
    /// `size` leaves. An event written since the last checkpoint is not in the tree yet
    /// ([`Code::InclusionProofInvalid`]).
    pub fn inclusion_proof(&self, event: EventRef, size: Option<u64>) -> Result<InclusionProof> {
        self.tree(Access::Read, |sql| {
            let size = at_size(sql, size, Code::InclusionProofInvalid)?;
            prove(sql, event, size)
        })
    }

    /// The inclusion proofs of every event of a task, in order, in the tree of the latest
    /// checkpoint (or of the first `size` leaves), read in one snapshot: what an evidence
    /// bundle holds. [`Code::TaskNotFound`] for a task without events; an event written since
    /// that checkpoint is [`Code::InclusionProofInvalid`] (make a checkpoint first).
    pub fn task_inclusion_proofs(
        &self,
        task_id: &str,
        size: Option<u64>,
    ) -> Result<Vec<InclusionProof>> {
        self.tree(Access::Read, |sql| {
            let size = at_size(sql, size, Code::InclusionProofInvalid)?;
            let (proofs, later) = task_proofs(sql, task_id, size)?;
            match later {
                None => Ok(proofs),
                Some(id) => Err(Error::new(
                    Code::InclusionProofInvalid,
                    format!(
                        "event {id} of {task_id:?} is not in the Merkle log of {size} leaves: it \
                         was written after that checkpoint (make one with checkpoint, then ask \
                         again)"
                    ),
                )),
            }
        })
    }

    /// The consistency proof from the tree of `old` leaves to the tree of `new` (RFC 9162
    /// §2.1.4.1), both at most the latest checkpoint's size.
    pub fn consistency_proof(&self, old: u64, new: u64) -> Result<Vec<Hash>> {
        self.tree(Access::Read, |sql| {
            at_size(sql, Some(new), Code::ConsistencyProofInvalid)?;
            merkle::consistency_proof(&mut Stored(sql), old, new)
        })
    }

    /// Holds the database to `checkpoint`, a signed checkpoint kept outside it that one of
    /// `verifiers` (the log's verifier keys) signed ([`Code::CheckpointInvalid`] when it does
    /// not read, [`Code::CheckpointUntrusted`] when no such key named as its origin signed
    /// it): every leaf hash is computed again from its
    /// event's canonical text, in leaf order, and the root at the checkpoint's size must be
    /// its root; the database's own latest checkpoint must be its events' root and consistent
    /// with the given one. A truncated or rewound audit, an event edited (even with its chain
    /// sealed again) and an event taken out of the leaf order are [`Code::AuditChainBroken`];
    /// stored nodes that do not prove the consistency are [`Code::ConsistencyProofInvalid`].
    /// Events written after the checkpoint are no break.
    pub fn audit_verify_checkpoint(
        &self,
        checkpoint: &str,
        verifiers: &[VerifierKey],
    ) -> Result<CheckpointVerified> {
        let (_, kept) = sign::open(checkpoint, verifiers)?;
        self.tree(Access::Read, |sql| {
            verify::verify(sql, kept.size(), kept.root(), |note| {
                sign::open(note, verifiers).map(|(_, c)| (c.size(), *c.root()))
            })
        })
    }
}

impl Ledger {
    /// The C2SP tlog-witness `add-checkpoint` request for the latest checkpoint, with the
    /// consistency proof from `old`, the size the witness last cosigned (0 before the first;
    /// a witness that answers 409 names its size, to ask again from).
    pub fn witness_request(&self, old: u64) -> Result<Request> {
        self.tree(Access::Read, |sql| witness::request(sql, old))
    }

    /// Keeps a witness's cosignature lines (its 200 answer, see
    /// `tlog::witness::parse_cosignatures`) of the checkpoint of `size`, each verified
    /// against `witness`, its type-0x04 verifier key ([`Code::CheckpointUntrusted`] for a
    /// line it did not make, and nothing is kept); returns the checkpoint with them.
    pub fn add_cosignatures(
        &self,
        size: u64,
        witness: &VerifierKey,
        lines: &[Signature],
    ) -> Result<Checkpoint> {
        self.tree(Access::Write, |sql| witness::add(sql, size, witness, lines))
    }
}

/// The inclusion proofs of a task's events in the tree of `size` leaves, in log order, read
/// in one snapshot (the one path of [`Ledger::task_inclusion_proofs`] and evidence bundles);
/// and the id of its first event not in that tree (written after it), if any: every later
/// one is not in it either, as leaves follow event ids.
pub(crate) fn task_proofs(
    sql: &mut dyn Sql,
    task_id: &str,
    size: u64,
) -> Result<(Vec<InclusionProof>, Option<i64>)> {
    let events = stored::task_events(sql, task_id)?;
    let later = events
        .iter()
        .find(|(_, _, leaf)| leaf.is_none_or(|l| l >= size))
        .map(|(id, _, _)| *id);
    let mut nodes = Stored(sql);
    let root = merkle::root_at(&mut nodes, size)?;
    let proofs = events
        .into_iter()
        .filter_map(|(id, text, leaf)| Some((id, text, leaf.filter(|l| *l < size)?)))
        .map(|(event_id, event, leaf)| {
            Ok(InclusionProof {
                event_id,
                event,
                leaf,
                size,
                root,
                proof: merkle::inclusion_proof(&mut nodes, leaf, size)?,
            })
        })
        .collect::<Result<_>>()?;
    Ok((proofs, later))
}

/// The inclusion proof of `event` in the tree of `size` leaves.
fn prove(sql: &mut dyn Sql, event: EventRef, size: u64) -> Result<InclusionProof> {
    let (leaf, event_id, event) = stored::leaf_of(sql, event)?;
    let mut nodes = Stored(sql);
    let proof = merkle::inclusion_proof(&mut nodes, leaf, size)?;
    let root = merkle::root_at(&mut nodes, size)?;
    Ok(InclusionProof {
        event_id,
        event,
        leaf,
        size,
        root,
        proof,
    })
}

/// `size`, or the latest checkpoint's when `None`; refused with `code` when beyond it.
fn at_size(sql: &mut dyn Sql, size: Option<u64>, code: Code) -> Result<u64> {
    let latest = stored::latest(sql)?.map_or(0, |c| c.size);
    match size {
        None => Ok(latest),
        Some(s) if s <= latest => Ok(s),
        Some(s) => Err(Error::new(
            code,
            format!(
                "the latest checkpoint is of {latest} leaves, not {s} or more: make one with \
                 checkpoint, then ask again"
            ),
        )),
    }
}
