//! The exit status a ledger error calls for: the one map from core's codes to the ledger
//! command's statuses, shared by the commands that talk to a ledger (witness publishing too).

use crate::Failure;
use actionseal_core::{Code, Error};

/// Exit status when the ledger refuses a well-formed operation because of the task's state
/// (its round's decisions included).
const EXIT_REFUSED: u8 = 5;
/// Exit status when the audit chain is broken.
const EXIT_BROKEN: u8 = 6;
/// Exit status when there is no ledger file at the SQLite path (sysexits EX_NOINPUT).
const EXIT_NO_LEDGER: u8 = 66;
/// Exit status when the ledger's database cannot be reached (sysexits EX_UNAVAILABLE).
const EXIT_UNAVAILABLE: u8 = 69;
/// Exit status when the database fails during an operation (EX_IOERR).
const EXIT_STORAGE: u8 = 74;

/// Prints the error and gives the exit status its code calls for.
pub(crate) fn fail(e: Error) -> Failure {
    let status = match e.code() {
        Code::AlreadyClaimed
        | Code::TaskNotClaimable
        | Code::TaskNotClaimed
        | Code::TaskNotInDoubt
        | Code::TaskNotAwaitingDecision
        | Code::StaleFence
        | Code::LeaseExpired
        | Code::TaskConflict
        | Code::DecisionConflict
        | Code::DecisionMismatch
        | Code::AmendConflict
        | Code::DecidedOutsideRound
        | Code::ApproverAlreadyDecided
        | Code::ApproverNotSeparate
        | Code::DelegationRefused
        | Code::BudgetExceeded
        | Code::BatchCapExceeded
        | Code::BreakerOpen
        | Code::BatchAllOrNothing
        | Code::BatchItem
        | Code::DisclosuresShredded => EXIT_REFUSED,
        Code::AuditChainBroken | Code::ConsistencyProofInvalid | Code::InclusionProofInvalid => {
            EXIT_BROKEN
        }
        Code::LedgerNotFound => EXIT_NO_LEDGER,
        Code::LedgerUnavailable | Code::TimestampUnavailable => EXIT_UNAVAILABLE,
        Code::LedgerStorage | Code::LedgerValueOutOfRange => EXIT_STORAGE,
        _ => return Failure::Input(e),
    };
    eprintln!("error: {e}");
    Failure::Verdict(status)
}
