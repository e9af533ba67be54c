//! The transparency log's primitives: what makes the audit's history checkable by someone who
//! does not trust the database that holds it (issue 26).
//!
//! - [`merkle`]: RFC 9162 §2.1 Merkle tree hashes, inclusion and consistency proofs, and the
//!   perfect subtrees a store keeps so that every proof costs a logarithmic number of reads.

pub mod merkle;
