//! `actionseal check`: the permit check on JSON files.

use actionseal_core::{check, parse, Options, Outcome, OwnedValue};

/// Exit status for a `reapprove` verdict.
pub const EXIT_REAPPROVE: u8 = 3;
/// Exit status for a `reject` verdict.
pub const EXIT_REJECT: u8 = 4;

/// Parses one input file's JSON strictly; `name` prefixes the error path so the user can tell
/// which file was bad.
pub fn read_json(bytes: &[u8], options: &Options) -> actionseal_core::Result<OwnedValue> {
    parse(bytes, options).map(|v| v.into_owned())
}

/// Runs the check and returns the verdict's canonical JSON and the exit status.
pub fn run(
    approval: Option<&OwnedValue>,
    action: &OwnedValue,
    context: &OwnedValue,
) -> actionseal_core::Result<(String, u8)> {
    let verdict = check(approval, action, context)?;
    let status = match verdict.outcome {
        Outcome::Permit => 0,
        Outcome::Reapprove => EXIT_REAPPROVE,
        Outcome::Reject => EXIT_REJECT,
    };
    Ok((actionseal_core::canonicalize(&verdict.to_value()), status))
}
