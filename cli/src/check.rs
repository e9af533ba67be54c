//! `actionseal check`: the permit check on JSON files, of one approval or of a set (a
//! quorum's members).

use crate::io::{line, read_input};
use crate::Failure;
use actionseal_core::host::approval_set;
use actionseal_core::{check, check_set, parse, Options, Outcome, OwnedValue, Profile};
use std::path::{Path, PathBuf};

/// Exit status for a `reapprove` verdict.
pub const EXIT_REAPPROVE: u8 = 3;
/// Exit status for a `reject` verdict.
pub const EXIT_REJECT: u8 = 4;

/// The approvals a check is given on the command line.
pub(crate) enum Approvals<'a> {
    /// None: `check` without an approval.
    None,
    /// One `--approval`: `check` of that approval, as always.
    One(&'a Path),
    /// `--approval` more than once: `check_set` of those files' approvals, in order.
    Each(&'a [PathBuf]),
    /// `--approvals FILE`: `check_set` of the JSON array in the file.
    File(&'a Path),
}

impl<'a> Approvals<'a> {
    /// What the `--approval` files (in order) and the `--approvals` file (never both: the
    /// command line refuses that) say.
    pub(crate) fn of(each: &'a [PathBuf], file: Option<&'a Path>) -> Approvals<'a> {
        match (each, file) {
            (_, Some(file)) => Approvals::File(file),
            ([], None) => Approvals::None,
            ([one], None) => Approvals::One(one),
            (each, None) => Approvals::Each(each),
        }
    }
}

/// Reads and checks the files, prints the verdict's canonical JSON and returns the exit
/// status as a [`Failure::Verdict`] unless it permits. Everything is read with the strict
/// profile: a check never rounds a number, so any other profile is refused here too.
pub(crate) fn run(
    action: &Path,
    context: &Path,
    approvals: Approvals<'_>,
    options: &Options,
) -> Result<(), Failure> {
    if options.profile != Profile::Strict {
        return Err(Failure::Usage(
            "check reads with the strict profile only: it never rounds a number".into(),
        ));
    }
    let read = |path: &Path| -> Result<OwnedValue, Failure> {
        let bytes = read_input(Some(path), options)?;
        parse(&bytes, options)
            .map(|v| v.into_owned())
            .map_err(|e| Failure::InputIn(path.display().to_string(), e))
    };
    let action = read(action)?;
    let context = read(context)?;
    let verdict = match approvals {
        Approvals::None => check(None, &action, &context),
        Approvals::One(path) => check(Some(&read(path)?), &action, &context),
        Approvals::Each(paths) => {
            let members = paths
                .iter()
                .map(|p| read(p))
                .collect::<Result<Vec<_>, _>>()?;
            check_set(&members, &action, &context)
        }
        Approvals::File(path) => {
            let set = read(path)?;
            let members =
                approval_set(&set).map_err(|e| Failure::InputIn(path.display().to_string(), e))?;
            check_set(members, &action, &context)
        }
    }
    .map_err(Failure::Input)?;
    line(&verdict.to_value())?;
    match verdict.outcome {
        Outcome::Permit => Ok(()),
        Outcome::Reapprove => Err(Failure::Verdict(EXIT_REAPPROVE)),
        Outcome::Reject => Err(Failure::Verdict(EXIT_REJECT)),
    }
}

#[cfg(test)]
mod tests;
