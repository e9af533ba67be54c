//! A reviewer's decision: approved or rejected. Its own file, because contracts (through their
//! quorum) and approval records both speak of it.

use crate::error::{Code, Error, Result};

/// A reviewer's decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The action may run while the approval holds.
    Approved,
    /// The action must not run.
    Rejected,
}

impl Decision {
    /// `approved` or `rejected`.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Approved => "approved",
            Decision::Rejected => "rejected",
        }
    }

    /// Parses `approved` or `rejected`; anything else is [`Code::InvalidApproval`].
    pub fn parse(s: &str) -> Result<Decision> {
        match s {
            "approved" => Ok(Decision::Approved),
            "rejected" => Ok(Decision::Rejected),
            _ => Err(Error::new(
                Code::InvalidApproval,
                format!("decision must be \"approved\" or \"rejected\", not {s:?}"),
            )
            .in_key("decision")),
        }
    }
}
