//! Task states and the transitions each operation may make.
//!
//! | from | operation | to |
//! | --- | --- | --- |
//! | (new) | propose, approval needed | `awaiting_approval` |
//! | (new) | propose, no approval needed (read-only tools) | `approved` (claimable at once) |
//! | `awaiting_approval`, `awaiting_reapproval` | amend (a reviewer replaces the arguments) | unchanged (the decision must name the amended digest) |
//! | `awaiting_approval`, `awaiting_reapproval` | decide approved / rejected | `approved` / `rejected` |
//! | `approved` | claim, permit | `claimed` (new lease, fence + 1) |
//! | `approved` | claim, drift | `approved` (refused, audited as `tool_args_drift`) |
//! | `approved` | claim, reapprove | `awaiting_reapproval` (same task, new approval round) |
//! | `approved` | claim, any other reject | `rejected_pre_dispatch` |
//! | `claimed` | complete succeeded / failed / unknown (current fence) | `succeeded` / `failed` / `unknown` |
//! | `claimed` | the lease runs out | `unknown` (never re-dispatched by itself) |
//! | `unknown` | reconcile succeeded / failed | `succeeded` / `failed` |
//! | `unknown` | reconcile not_executed | `approved` (same idempotency key; the next claim has a higher fence) |
//!
//! Everything else is refused, with the code of [`next`]. `succeeded`, `failed`, `rejected`
//! and `rejected_pre_dispatch` are final.

use crate::error::{Code, Error, Result};
use crate::model::approval::Decision;

macro_rules! names {
    ($(#[$m:meta])* $ty:ident { $($(#[doc = $doc:literal])* $variant:ident => $name:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $ty {
            $($(#[doc = $doc])* $variant,)*
        }

        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant,)*];

            /// The stable snake_case name.
            pub const fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $name,)* }
            }

            /// The value with this name; anything else is [`Code::InvalidRequest`].
            pub fn parse(s: &str) -> Result<$ty> {
                match s {
                    $($name => Ok($ty::$variant),)*
                    _ => Err(Error::new(
                        Code::InvalidRequest,
                        format!("{s:?} is not one of {:?}", [$($name),*]),
                    )),
                }
            }
        }
    };
}

names! {
    /// Where a task is in its life.
    State {
        /// Proposed; waiting for a reviewer's decision.
        AwaitingApproval => "awaiting_approval",
        /// Approved (or needing no approval) and not claimed: one executor may claim it.
        Approved => "approved",
        /// Claimed by one executor, under a lease and a fence token.
        Claimed => "claimed",
        /// The business system did it. Final.
        Succeeded => "succeeded",
        /// The business system refused or failed it. Final.
        Failed => "failed",
        /// The outcome is in doubt (a timeout, a crash, a lease that ran out): reconcile it.
        Unknown => "unknown",
        /// The approval no longer holds (expired, revoked, policy, contract or approver
        /// changed): the same task waits for a new decision.
        AwaitingReapproval => "awaiting_reapproval",
        /// The reviewer rejected it. Final.
        Rejected => "rejected",
        /// The check at dispatch rejected it (tampering, wrong tenant, subject no longer
        /// authorised, ...). Final.
        RejectedPreDispatch => "rejected_pre_dispatch",
    }
}

names! {
    /// What an executor reports when it completes a claim.
    Reported {
        /// The business system did it.
        Succeeded => "succeeded",
        /// The business system refused or failed it.
        Failed => "failed",
        /// The executor does not know (a timeout): reconcile later, never retry blindly.
        Unknown => "unknown",
    }
}

names! {
    /// What the business system answered when asked about a task in doubt.
    Observed {
        /// It happened.
        Succeeded => "succeeded",
        /// It was refused or failed.
        Failed => "failed",
        /// It never happened: the task may be claimed again, with the same idempotency key.
        NotExecuted => "not_executed",
    }
}

impl State {
    /// Whether nothing more can happen to a task in this state.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            State::Succeeded | State::Failed | State::Rejected | State::RejectedPreDispatch
        )
    }
}

/// What the ledger knows of a task when an operation arrives.
#[derive(Clone, Copy, Debug)]
pub struct Snapshot {
    /// Its state.
    pub state: State,
    /// Its current fence token (0 before the first claim).
    pub fence: i64,
    /// When the current claim's lease runs out (ms), while claimed.
    pub lease_until: Option<i64>,
}

impl Snapshot {
    /// Whether the task is claimed and its lease has run out at `now`: the ledger then moves it
    /// to `unknown` (with [`Op::ExpireLease`]) before anything else happens to it.
    pub fn lease_expired(&self, now: i64) -> bool {
        self.state == State::Claimed && self.lease_until.is_some_and(|l| now >= l)
    }
}

/// An operation on an existing task, with what decides its transition.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// A reviewer's amendment of the action, before the decision.
    Amend,
    /// A reviewer's decision.
    Decide(Decision),
    /// A claim whose check permitted.
    ClaimPermit,
    /// A claim refused because the presented action is not the approved one.
    ClaimDrift,
    /// A claim whose check says the approval no longer holds.
    ClaimReapprove,
    /// A claim whose check rejects the call for another reason.
    ClaimReject,
    /// An executor's report, with the fence of its claim.
    Complete {
        /// The fence token the claim returned.
        fence: i64,
        /// What happened.
        reported: Reported,
    },
    /// The lease of the current claim ran out.
    ExpireLease,
    /// The business system's answer about a task in doubt.
    Reconcile(Observed),
}

fn refuse(code: Code, state: State, what: &str) -> Error {
    Error::new(code, format!("the task is {}: {what}", state.as_str()))
}

/// The state `op` moves a task in `s` to, or the error it is refused with. `now` (ms) matters
/// only to completions, which are refused once the lease has run out.
pub fn next(s: &Snapshot, op: Op, now: i64) -> Result<State> {
    use State::*;
    let st = s.state;
    match op {
        Op::Amend => match st {
            AwaitingApproval | AwaitingReapproval => Ok(st),
            _ => Err(refuse(
                Code::TaskNotAwaitingDecision,
                st,
                "it is not awaiting a decision, so its action can no longer be amended (a \
                 change now needs a new request and a new decision)",
            )),
        },
        Op::Decide(d) => match st {
            AwaitingApproval | AwaitingReapproval => Ok(match d {
                Decision::Approved => Approved,
                Decision::Rejected => Rejected,
            }),
            _ => Err(refuse(
                Code::TaskNotAwaitingDecision,
                st,
                "it is not awaiting a decision",
            )),
        },
        Op::ClaimPermit | Op::ClaimDrift | Op::ClaimReapprove | Op::ClaimReject => {
            match st {
                Approved => Ok(match op {
                    Op::ClaimPermit => Claimed,
                    Op::ClaimDrift => Approved,
                    Op::ClaimReapprove => AwaitingReapproval,
                    _ => RejectedPreDispatch,
                }),
                Claimed | Succeeded | Failed | Unknown => Err(refuse(
                    Code::AlreadyClaimed,
                    st,
                    "its approval was already claimed",
                )),
                AwaitingApproval | AwaitingReapproval | Rejected | RejectedPreDispatch => Err(
                    refuse(Code::TaskNotClaimable, st, "it has no approval to claim"),
                ),
            }
        }
        Op::Complete { fence, reported } => {
            if fence != s.fence {
                return Err(Error::new(
                    Code::StaleFence,
                    format!(
                        "fence {fence} is not the task's current fence {}: a later claim superseded it",
                        s.fence
                    ),
                ));
            }
            if s.lease_expired(now) {
                return Err(Error::new(
                    Code::LeaseExpired,
                    "the claim's lease ran out before completion: the outcome is now in doubt, reconcile it",
                ));
            }
            match st {
                Claimed => Ok(match reported {
                    Reported::Succeeded => Succeeded,
                    Reported::Failed => Failed,
                    Reported::Unknown => Unknown,
                }),
                _ => Err(refuse(Code::TaskNotClaimed, st, "it is not claimed")),
            }
        }
        Op::ExpireLease => match st {
            Claimed => Ok(Unknown),
            _ => Err(refuse(Code::TaskNotClaimed, st, "it is not claimed")),
        },
        Op::Reconcile(o) => match st {
            Unknown => Ok(match o {
                Observed::Succeeded => Succeeded,
                Observed::Failed => Failed,
                Observed::NotExecuted => Approved,
            }),
            _ => Err(refuse(
                Code::TaskNotInDoubt,
                st,
                "its outcome is not in doubt",
            )),
        },
    }
}
