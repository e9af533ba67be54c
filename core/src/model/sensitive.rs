//! Sensitive arguments (issue 29): values a contract marks sensitive are frozen as salted
//! commitments, and travel beside the action as disclosures, so that an approval, the audit and
//! the evidence can keep the proof while the values go.
//!
//! A contract lists its sensitive pointers, each with a class a retention policy can name:
//! `"sensitive": {"/args/card_number": "pci", "/args/customer/email": "pii",
//! "/args/recipients/*/email": "pii"}` (a `*` token stands for every element of an array).
//!
//! Committing an action replaces the value at each place a pointer matches with
//! `{"_sd": "sha256:<hex>"}`, the digest of its disclosure, and returns the disclosures. A
//! disclosure is the construction of SD-JWT (RFC 9901 §4.2): the base64url (no padding) of the
//! JSON array `[salt, pointer, value]`, its digest SHA-256 over that base64url text's ASCII
//! bytes. Here the array's text must be its RFC 8785 canonical form, so that one salt, pointer
//! and value give the same bytes in every runtime; the salt is 16 bytes from the host's CSPRNG,
//! base64url; the pointer is the value's own (with indices, never `*`), so a disclosure cannot
//! be moved to another place. The fingerprint covers the committed action, never a value.
//!
//! Revealing a committed action with its disclosures gives the action with its values back,
//! each disclosure checked against the commitment at its pointer: a missing, extra (or
//! repeated), wrong or non-canonical disclosure each has a code of its own.

mod block;
pub mod calls;
mod commit;
mod disclosure;
mod policy;

pub use block::{SaltBlock, SALT_BLOCK};
pub use commit::{commit, commit_keeping, recommit, reveal, reveal_presented, verify, Coverage};
pub(crate) use commit::{commit_owned, place_of_difference};
pub use disclosure::{Disclosure, SALT_BYTES};
pub use policy::Sensitive;

/// The one member of the object a commitment stands in for a value as, after SD-JWT's own name
/// for digests (RFC 9901 §4.2.4).
pub const COMMITMENT_KEY: &str = "_sd";

#[cfg(test)]
mod tests;
