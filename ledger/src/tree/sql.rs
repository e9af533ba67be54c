//! The few statements the Merkle log needs, written once for both engines: a query or a
//! statement with `$1`.. placeholders, whose arguments and cells are integers, byte strings
//! (hashes) and text (notes, cosignature lines).

use crate::store::storage;
use actionseal_core::tlog::merkle::Hash;
use actionseal_core::Result;

/// An argument of a statement.
pub(crate) enum Arg<'a> {
    Int(i64),
    Bytes(&'a [u8]),
    Text(&'a str),
}

/// A cell of a row.
#[derive(Debug)]
pub(crate) enum Cell {
    Int(i64),
    Bytes(Vec<u8>),
    Text(String),
    Null,
}

impl Cell {
    pub(crate) fn int(&self) -> Result<i64> {
        match self {
            Cell::Int(n) => Ok(*n),
            other => Err(storage(
                "Merkle log",
                format!("{other:?} is not an integer"),
            )),
        }
    }

    /// A stored count or index, which is never negative.
    pub(crate) fn count(&self) -> Result<u64> {
        let n = self.int()?;
        u64::try_from(n).map_err(|_| storage("Merkle log", format!("{n} is negative")))
    }

    pub(crate) fn hash(&self) -> Result<Hash> {
        match self {
            Cell::Bytes(b) => b
                .as_slice()
                .try_into()
                .map_err(|_| storage("Merkle log", format!("a stored hash of {} bytes", b.len()))),
            other => Err(storage("Merkle log", format!("{other:?} is not a hash"))),
        }
    }

    pub(crate) fn text(&self) -> Result<&str> {
        match self {
            Cell::Text(s) => Ok(s),
            other => Err(storage("Merkle log", format!("{other:?} is not text"))),
        }
    }

    /// Bytes or NULL.
    pub(crate) fn opt_bytes(&self) -> Result<Option<&[u8]>> {
        match self {
            Cell::Null => Ok(None),
            Cell::Bytes(b) => Ok(Some(b)),
            other => Err(storage("Merkle log", format!("{other:?} is not bytes"))),
        }
    }

    /// Text or NULL.
    pub(crate) fn opt_text(&self) -> Result<Option<&str>> {
        match self {
            Cell::Null => Ok(None),
            other => other.text().map(Some),
        }
    }
}

/// What a transaction on the Merkle log does.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Reads, in one snapshot.
    Read,
    /// Writes the tree: one sequencer at a time, while events commit.
    Sequence,
    /// Writes to the log's tables beside the tree (cosignatures), while events commit.
    Write,
}

/// One engine's transaction, as the Merkle log uses it.
pub(crate) trait Sql {
    /// The rows a query answers.
    fn rows(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<Vec<Cell>>>;
    /// Runs a statement.
    fn exec(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<()>;
    /// Inserts `rows` into `into` (`table (a, b, c)`): the sequencer's many rows, in the way
    /// the engine takes them fastest.
    fn insert(&mut self, into: &str, rows: &[Row<'_>]) -> Result<()>;
    /// The last event from before the events were linked per task (`schema/link_events.sql`).
    fn cutoff(&self) -> i64;
}

/// A row of the tree's tables: `(leaf, event_id, hash)` or `(level, idx, hash)`.
pub(crate) type Row<'a> = (i64, i64, &'a [u8]);

/// Lowercase hex, for byte literals.
pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
