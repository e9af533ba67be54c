//! Exported chain heads: the audit's ends, kept outside the database.
//!
//! A ledger records each chain's head in its own database, so whoever can rewrite the database
//! (its owner, or the owner of a SQLite file) can cut events from a chain's end, or edit one
//! and seal the chain again, and move the head to match: every chain still verifies. Heads
//! exported earlier and kept where that person cannot write pin the audit as it was: the chain
//! must still reach each exported seq, through the same event there, and since every event
//! seals the one before it, that one digest pins the whole chain up to it.
//!
//! The file is one canonical JSON (RFC 8785) object:
//!
//! ```json
//! {"at": 1764496800000, "heads": [{"chain": 7, "seq": 4, "digest": "sha256:..."}], "version": 1}
//! ```
//!
//! - `version` (1): a reader refuses a version it does not know rather than misread it (a
//!   later one may, say, carry a signature or a timestamp token over the same heads).
//! - `at`: the ledger's time when the heads were taken (ms since the epoch): the events written
//!   before it are the ones the file protects, and of several files kept, the latest is the
//!   one with the most to say.
//! - `heads`: for every chain that has events, its last seq (a chain that no longer reaches it
//!   was truncated) and that event's digest (a different event there means the chain was
//!   rewritten and sealed again). Chains without events are left out; each chain at most once.
//!
//! Canonical text, so that the file has one fingerprint to sign, timestamp or compare by eye.

use crate::error::{Code, Error, Result};
use crate::json::value::{OwnedValue, Value};
use crate::model::fields::Fields;
use crate::model::ledger::event::{heads_value, ChainHead, CHAINS};
use crate::model::ledger::values::{int, object};

/// The version of the heads file this build writes and reads.
pub const HEADS_VERSION: i64 = 1;

/// Chain heads exported from a ledger at a time (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct ExportedHeads {
    /// The ledger's time when they were taken (ms since the epoch).
    pub at: i64,
    /// (chain, seq, digest) of the last event of every chain that had any, by chain.
    pub heads: Vec<ChainHead>,
}

fn bad(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidAuditHeads, message)
}

impl ExportedHeads {
    /// Reads `{"version": 1, "at", "heads": [{"chain", "seq", "digest"}]}`; anything else is
    /// [`Code::InvalidAuditHeads`] at the member: another version, a chain out of range or
    /// twice, a seq below 1.
    pub fn from_value(v: &Value<'_>) -> Result<ExportedHeads> {
        let f = Fields::new(
            v,
            Code::InvalidAuditHeads,
            "exported heads",
            &["version", "at", "heads"],
        )?;
        let version = f.integer("version", 1)?;
        if version != HEADS_VERSION {
            return Err(bad(format!(
                "heads file version {version}: this build reads version {HEADS_VERSION}"
            ))
            .in_key("version"));
        }
        let at = f.integer("at", 0)?;
        let Value::Array(items) = f.required("heads")? else {
            return Err(bad("heads must be a list").in_key("heads"));
        };
        let mut heads: Vec<ChainHead> = Vec::with_capacity(items.len());
        for (i, h) in items.iter().enumerate() {
            let head = || -> Result<ChainHead> {
                let f = Fields::new(
                    h,
                    Code::InvalidAuditHeads,
                    "a chain head",
                    &["chain", "seq", "digest"],
                )?;
                let chain = f.integer("chain", 0)?;
                if chain >= CHAINS {
                    return Err(
                        bad(format!("chain {chain} is not one of the {CHAINS}")).in_key("chain")
                    );
                }
                if heads.iter().any(|(c, _, _)| *c == chain) {
                    return Err(bad(format!("chain {chain} twice")).in_key("chain"));
                }
                Ok((chain, f.integer("seq", 1)?, f.digest("digest")?))
            };
            heads.push(head().map_err(|e| e.in_index(i).in_key("heads"))?);
        }
        heads.sort_by_key(|h| h.0);
        Ok(ExportedHeads { at, heads })
    }

    /// The file's JSON (write it canonically: `canonicalize(&heads.to_value())`).
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("version", int(HEADS_VERSION)),
            ("at", int(self.at)),
            ("heads", heads_value(&self.heads)),
        ])
    }
}
