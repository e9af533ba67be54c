//! The witness's rule of C2SP tlog-witness (c2sp.org/tlog-witness, "add-checkpoint") as a pure
//! function, and the request body a log sends.
//!
//! A witness keeps, per log, the latest checkpoint it cosigned. A request brings the size of
//! the checkpoint the log believes the witness has (`old`), a consistency proof from it, and
//! the new signed checkpoint. [`add_checkpoint`] checks, in the specification's order:
//!
//! 1. the origin is a configured log, else 404 (checkpoint_untrusted);
//! 2. a signature by one of the log's keys verifies and none fails, else 403
//!    (checkpoint_untrusted);
//! 3. the old size is not above the checkpoint's size, else 400 (checkpoint_invalid);
//! 4. the old size is the witness's latest size (0 before the first), else 409 with the
//!    latest size as the body, `Content-Type: text/x.tlog.size` (checkpoint_conflict);
//! 5. a checkpoint of size 0 has the empty tree's root; from size 0 the proof is empty; at the
//!    same size the root is the same; otherwise the RFC 9162 consistency proof verifies from
//!    the latest root: else 422 (consistency_proof_invalid);
//!
//! and then gives the new latest state and the witness's cosignature (200). The host must
//! store the new state before answering, atomically with the check of step 4 (the
//! specification's race between two requests): the example server holds one lock over both.
//!
//! The request body is `old <size>\n`, up to [`MAX_PROOF_LINES`] lines of base64 hashes, an
//! empty line, then the signed checkpoint note ([`Request`]).

use super::checkpoint::{self, Checkpoint};
use super::cosignature::Cosigner;
use super::merkle::{consistency_proof, empty_root, verify_consistency, Hash, Nodes};
use super::note::{Note, Signature, VerifierKey};
use crate::base64::standard as base64;
use crate::error::{Code, Error, Result};
use std::fmt;

/// The most consistency proof lines a request may carry (the specification's limit: a proof
/// between trees below 2^64 leaves is shorter).
pub const MAX_PROOF_LINES: usize = 63;

/// An `add-checkpoint` request: the old size, the consistency proof and the signed checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    old_size: u64,
    proof: Vec<Hash>,
    note: Note,
    checkpoint: Checkpoint,
}

impl Request {
    /// A request for `note` (a signed checkpoint) with the proof from `old_size`.
    pub fn new(old_size: u64, proof: Vec<Hash>, note: Note) -> Result<Request> {
        if proof.len() > MAX_PROOF_LINES {
            return Err(invalid(format!(
                "a consistency proof has at most {MAX_PROOF_LINES} hashes"
            )));
        }
        let checkpoint = Checkpoint::parse(note.text())?;
        Ok(Request {
            old_size,
            proof,
            note,
            checkpoint,
        })
    }

    /// The request a log sends for its signed checkpoint `note`: the proof from `old_size`
    /// (the witness's latest, as the log knows it) is read from the log's tree through
    /// `nodes`; none from 0 or at the same size.
    pub fn from_tree(nodes: &mut impl Nodes, old_size: u64, note: Note) -> Result<Request> {
        let size = Checkpoint::parse(note.text())?.size();
        let proof = match old_size {
            0 => Vec::new(),
            old if old >= size => Vec::new(),
            old => consistency_proof(nodes, old, size)?,
        };
        Request::new(old_size, proof, note)
    }

    /// Reads a request body strictly; problems are [`Code::CheckpointInvalid`] with the byte
    /// offset in the body.
    pub fn parse(body: &[u8]) -> Result<Request> {
        let (old, mut rest) = line(body, 0)?;
        let old_size = old
            .strip_prefix(b"old ")
            .and_then(|n| std::str::from_utf8(n).ok())
            .ok_or_else(|| invalid("a request starts with \"old <size>\"").with_offset(0))
            .and_then(|n| checkpoint::parse_size(n).map_err(|e| e.with_offset(4)))?;
        let mut at = old.len() + 1;
        let mut proof = Vec::new();
        loop {
            let (hash, next) = line(rest, at)?;
            rest = next;
            if hash.is_empty() {
                at += 1;
                break;
            }
            if proof.len() == MAX_PROOF_LINES {
                return Err(invalid(format!(
                    "more than {MAX_PROOF_LINES} consistency proof lines"
                ))
                .with_offset(at));
            }
            let text = std::str::from_utf8(hash)
                .map_err(|_| invalid("a proof line is base64").with_offset(at))?;
            proof.push(checkpoint::parse_hash(text).map_err(|e| super::shifted(e, at))?);
            at += hash.len() + 1;
        }
        let note = Note::parse(rest).map_err(|e| super::shifted(e, at))?;
        let checkpoint = Checkpoint::parse(note.text()).map_err(|e| super::shifted(e, at))?;
        Ok(Request {
            old_size,
            proof,
            note,
            checkpoint,
        })
    }

    /// The size of the checkpoint the log believes the witness has.
    pub fn old_size(&self) -> u64 {
        self.old_size
    }

    /// The consistency proof from the old size to the checkpoint's.
    pub fn proof(&self) -> &[Hash] {
        &self.proof
    }

    /// The signed checkpoint.
    pub fn note(&self) -> &Note {
        &self.note
    }

    /// The checkpoint, as read from the note's text (not yet verified).
    pub fn checkpoint(&self) -> &Checkpoint {
        &self.checkpoint
    }
}

impl fmt::Display for Request {
    /// The request body.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "old {}", self.old_size)?;
        for hash in &self.proof {
            writeln!(f, "{}", base64::encode(hash))?;
        }
        writeln!(f)?;
        self.note.fmt(f)
    }
}

/// The cosignature lines of a witness's 200 answer, for the log to add to its note
/// ([`Note::push`]) and to verify with the witness's verifier key ([`Note::verify`]).
pub fn parse_cosignatures(body: &[u8]) -> Result<Vec<Signature>> {
    let mut lines = Vec::new();
    let (mut rest, mut at) = (body, 0);
    while !rest.is_empty() {
        let (line, next) = line(rest, at)?;
        let text = std::str::from_utf8(line).map_err(|e| {
            invalid("a cosignature line is UTF-8").with_offset(at + e.valid_up_to())
        })?;
        lines.push(Signature::parse_line(text, at)?);
        at += line.len() + 1;
        rest = next;
    }
    if lines.is_empty() {
        return Err(invalid(
            "a witness's answer has at least one cosignature line",
        ));
    }
    Ok(lines)
}

/// The size in a witness's 409 answer (`<size>\n`): the latest it cosigned for the log.
pub fn parse_latest_size(body: &[u8]) -> Result<u64> {
    let (size, rest) = line(body, 0)?;
    if !rest.is_empty() {
        return Err(invalid("a size answer is one line").with_offset(size.len() + 1));
    }
    std::str::from_utf8(size)
        .map_err(|_| invalid("a size is a decimal number"))
        .and_then(checkpoint::parse_size)
        .map_err(|e| e.with_offset(0))
}

/// The next newline-terminated line of `input` (without the newline) and the rest; `at` is
/// `input`'s offset in the body.
fn line(input: &[u8], at: usize) -> Result<(&[u8], &[u8])> {
    let end = input
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| invalid("a line does not end in a newline").with_offset(at + input.len()))?;
    Ok((&input[..end], &input[end + 1..]))
}

/// A log the witness is configured for: its origin and the verifier keys it trusts for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Log {
    origin: String,
    keys: Vec<VerifierKey>,
}

impl Log {
    /// The log `origin`, whose checkpoints `keys` sign.
    pub fn new(origin: &str, keys: Vec<VerifierKey>) -> Log {
        Log {
            origin: origin.to_owned(),
            keys,
        }
    }

    /// The origin.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The trusted verifier keys.
    pub fn keys(&self) -> &[VerifierKey] {
        &self.keys
    }

    /// The configured log that `request`'s checkpoint names, or the 404 refusal.
    pub fn find<'l>(logs: &'l [Log], request: &Request) -> Result<&'l Log, Refusal> {
        logs.iter()
            .find(|l| l.origin == request.checkpoint.origin())
            .ok_or_else(Refusal::unknown_origin)
    }
}

/// The latest checkpoint a witness cosigned for a log: what it stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Latest {
    /// The tree size.
    pub size: u64,
    /// The root hash.
    pub root: Hash,
}

/// A checkpoint the witness accepted: its new state for the log, and its cosignature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cosigned {
    /// What the witness stores (before answering).
    pub latest: Latest,
    /// The cosignature line: the 200 response's body.
    pub cosignature: Signature,
}

/// Why a witness refuses a request, with the HTTP status the specification gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    status: u16,
    error: Error,
    latest_size: Option<u64>,
}

impl Refusal {
    /// A request body that does not parse ([`Request::parse`]'s error): 400.
    pub fn malformed(error: Error) -> Refusal {
        Refusal {
            status: 400,
            error,
            latest_size: None,
        }
    }

    /// The checkpoint's origin is not a configured log: 404.
    pub fn unknown_origin() -> Refusal {
        Refusal {
            status: 404,
            error: Error::new(
                Code::CheckpointUntrusted,
                "this witness has no log with the checkpoint's origin: configure the log and \
                 its verifier key",
            ),
            latest_size: None,
        }
    }

    /// The HTTP status: 400, 403, 404, 409 or 422 (500 for a witness clock out of range).
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The error (its code says what failed).
    pub fn error(&self) -> &Error {
        &self.error
    }

    /// For a 409, the size of the latest checkpoint the witness cosigned.
    pub fn latest_size(&self) -> Option<u64> {
        self.latest_size
    }

    /// The response's `Content-Type`.
    pub fn content_type(&self) -> &'static str {
        match self.latest_size {
            Some(_) => "text/x.tlog.size",
            None => "text/plain; charset=utf-8",
        }
    }

    /// The response body: the latest size and a newline for a 409, else the error.
    pub fn body(&self) -> String {
        match self.latest_size {
            Some(size) => format!("{size}\n"),
            None => format!("{}\n", self.error),
        }
    }
}

/// The witness's decision on `request` for `log` (the configured log whose origin the
/// request's checkpoint names; see [`Log::find`]), given the latest checkpoint it cosigned for
/// it (`None` before the first) and the time `now` (POSIX seconds) of its cosignature.
pub fn add_checkpoint(
    log: &Log,
    latest: Option<Latest>,
    request: &Request,
    cosigner: &Cosigner,
    now: u64,
) -> Result<Cosigned, Refusal> {
    let checkpoint = &request.checkpoint;
    if checkpoint.origin() != log.origin {
        return Err(Refusal::unknown_origin());
    }
    request.note.verify(&log.keys).map_err(|error| Refusal {
        status: 403,
        error,
        latest_size: None,
    })?;
    let (old, new, root) = (request.old_size, checkpoint.size(), *checkpoint.root());
    if old > new {
        return Err(Refusal::malformed(invalid(
            "the old size is above the checkpoint's size",
        )));
    }
    let known = latest.map_or(0, |l| l.size);
    if old != known {
        return Err(Refusal {
            status: 409,
            error: Error::new(
                Code::CheckpointConflict,
                format!(
                    "this witness's latest checkpoint for the log has size {known}: send a \
                     consistency proof from that size"
                ),
            ),
            latest_size: Some(known),
        });
    }
    consistent(latest, old, new, &request.proof, &root).map_err(|error| Refusal {
        status: 422,
        error,
        latest_size: None,
    })?;
    // Fails only for a host clock outside 1..=2^63 - 1 s: the witness's fault, not the log's.
    let cosignature = cosigner.cosign(checkpoint, now).map_err(|error| Refusal {
        status: 500,
        error,
        latest_size: None,
    })?;
    Ok(Cosigned {
        latest: Latest { size: new, root },
        cosignature,
    })
}

/// Step 5: whether the tree of size `new` with `root` extends the witness's latest.
fn consistent(
    latest: Option<Latest>,
    old: u64,
    new: u64,
    proof: &[Hash],
    root: &Hash,
) -> Result<()> {
    let refuse = |why: &str| Err(Error::new(Code::ConsistencyProofInvalid, why));
    if new == 0 && *root != empty_root() {
        return refuse("a checkpoint of size 0 has the empty tree's root (SHA-256 of nothing)");
    }
    let Some(latest) = latest.filter(|_| old > 0) else {
        return match proof.is_empty() {
            true => Ok(()),
            false => refuse("from size 0 the consistency proof is empty"),
        };
    };
    if old == new {
        return match proof.is_empty() && latest.root == *root {
            true => Ok(()),
            false => refuse(
                "the checkpoint has the witness's latest size but another root: the log forked",
            ),
        };
    }
    verify_consistency(old, new, proof, &latest.root, root)
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Code::CheckpointInvalid, message)
}

#[cfg(test)]
mod tests;
