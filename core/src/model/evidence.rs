//! Evidence bundles: one JSON document about one task that anyone can verify without the
//! ledger's database (issue 26).
//!
//! A bundle holds the task's audit events, each with an RFC 9162 inclusion proof in a
//! checkpoint the ledger signed (a C2SP signed note, cosigned by witnesses and timestamped by
//! an RFC 3161 authority where the server configures them), and the documents those events
//! fingerprint: the contract, the proposed action and every amendment of it, the reviewers'
//! reasons and each decision's approval record with its proof. [`verify_evidence`] checks it
//! against what the verifier trusts (the ledger's checkpoint keys, witnesses, time-stamping
//! roots and the approval keys; never a key the bundle names) and answers with the verified
//! timeline, or the first failure with its code and the JSON Pointer of the member that broke.
//!
//! What each check proves, and what it assumes, is in `docs/RELIABILITY.md`. In short:
//! - the checkpoint's signature is the ledger's, by a key valid at a time the ledger does not
//!   choose (a time-stamp token's, else the earliest witness cosignature's);
//! - each event is in that checkpoint's log at its index, unchanged (its inclusion proof), so
//!   it is in every later view of the log a witness accepted;
//! - the events are every event the ledger held about the task when it exported the bundle:
//!   the export itself is an event in the same log (`evidence_exported`) that lists their
//!   digests, in order; and they follow one another by the ledger's rules;
//! - the documents are the ones the events fingerprint, and each proven decision's signature
//!   or passkey assertion verifies under the approval keys, judged at the time the ledger
//!   recorded it (or an RFC 3161 token's time, when the decision carries one).
//!
//! A bundle holds nothing about another task: an event, action or decision of another task is
//! refused ([`crate::Code::EvidenceOtherTask`]) rather than ignored.

mod bundle;
mod stamp;
mod timeline;
mod trust;
mod verify;

pub use bundle::{Anchor, Bundle, Entry, Witnessed, EVIDENCE_VERSION};
pub use timeline::{Step, Timeline};
pub use trust::Trust;
pub use verify::verify_evidence;
