//! The JSON layer: strict parsing, the data model, RFC 8785 canonical form and fingerprints.
//!
//! Nothing here knows about tools, actions or approvals; the approval model in
//! [`crate::model`] is built on top of it.

pub(crate) mod canon;
pub(crate) mod digest;
pub(crate) mod held;
pub(crate) mod keyorder;
pub(crate) mod number;
pub(crate) mod options;
pub(crate) mod parse;
pub(crate) mod pointer;
pub(crate) mod scan;
pub(crate) mod sink;
pub(crate) mod utf16;
pub(crate) mod value;
