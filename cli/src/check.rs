//! `actionseal check`: the permit check on JSON files.

use crate::io::{read_input, write_stdout};
use crate::Failure;
use actionseal_core::{check, parse, Options, Outcome, OwnedValue, Profile};
use std::path::Path;

/// Exit status for a `reapprove` verdict.
pub const EXIT_REAPPROVE: u8 = 3;
/// Exit status for a `reject` verdict.
pub const EXIT_REJECT: u8 = 4;

/// Reads and checks the three files, prints the verdict's canonical JSON and returns the exit
/// status as a [`Failure::Verdict`] unless it permits. Everything is read with the strict
/// profile: a check never rounds a number, so any other profile is refused here too.
pub(crate) fn run(
    action: &Path,
    context: &Path,
    approval: Option<&Path>,
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
    let approval = approval.map(read).transpose()?;
    let verdict = check(approval.as_ref(), &action, &context).map_err(Failure::Input)?;
    write_stdout(format!("{}\n", actionseal_core::canonicalize(&verdict.to_value())).as_bytes())?;
    match verdict.outcome {
        Outcome::Permit => Ok(()),
        Outcome::Reapprove => Err(Failure::Verdict(EXIT_REAPPROVE)),
        Outcome::Reject => Err(Failure::Verdict(EXIT_REJECT)),
    }
}

#[cfg(test)]
mod tests;
