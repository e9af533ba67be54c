//! `ledger decide --task T --approve|--reject --approver A --ttl 10m [--key K]`: the decision
//! built from the task by the ledger crate ([`actionseal_ledger::Task::decision`]), signed by
//! core when a key is given, and recorded.

use crate::key::signing_key;
use crate::Failure;
use actionseal_core::{sign_approval, Decision, Options, OwnedValue};
use actionseal_ledger::{DecisionDraft, Ledger};
use clap::{Arg, ArgAction, ArgGroup, ArgMatches, Args, Command, FromArgMatches};
use std::path::Path;

/// `--approve` or `--reject`: one decision, given by exactly one flag.
#[derive(Clone, Copy, Debug)]
pub(super) struct Verdict(pub(super) Decision);

const APPROVE: &str = "approve";
const REJECT: &str = "reject";
const GROUP: &str = "verdict";

impl FromArgMatches for Verdict {
    fn from_arg_matches(m: &ArgMatches) -> Result<Verdict, clap::Error> {
        Ok(Verdict(if m.get_flag(APPROVE) {
            Decision::Approved
        } else {
            Decision::Rejected
        }))
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Verdict::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for Verdict {
    fn group_id() -> Option<clap::Id> {
        Some(GROUP.into())
    }

    fn augment_args(cmd: Command) -> Command {
        cmd.arg(
            Arg::new(APPROVE)
                .long(APPROVE)
                .action(ArgAction::SetTrue)
                .requires("task")
                .help("Approve the task's action (with --task)"),
        )
        .arg(
            Arg::new(REJECT)
                .long(REJECT)
                .action(ArgAction::SetTrue)
                .requires("task")
                .help("Reject it (with --task)"),
        )
        .group(ArgGroup::new(GROUP).args([APPROVE, REJECT]).multiple(false))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Verdict::augment_args(cmd)
    }
}

/// A duration: whole `ms`, `s`, `m`, `h` or `d` (`10m`, `36h`), as milliseconds; positive.
pub(super) fn parse_ttl(text: &str) -> Result<i64, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let scale = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err("a duration is a whole number and ms, s, m, h or d: 10m, 36h".into()),
    };
    number
        .parse::<i64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|ms| *ms > 0 && *ms <= actionseal_core::MAX_SAFE_INTEGER)
        .ok_or_else(|| format!("{text:?} is not a positive duration of at most 2^53 - 1 ms"))
}

/// What `--task` asks for.
pub(super) struct Request<'a> {
    pub(super) task: &'a str,
    pub(super) verdict: Verdict,
    pub(super) approver: &'a str,
    pub(super) ttl_ms: i64,
    /// The decision's id: given, so that a retry is de-duplicated, or made up.
    pub(super) decision_id: Option<String>,
    pub(super) key: Option<&'a Path>,
}

/// The decision the request makes about the task as the ledger holds it now: the bare
/// envelope, or with a key the approval record signed.
pub(super) fn build(l: &Ledger, r: &Request<'_>) -> Result<OwnedValue, Failure> {
    let task = l.task(r.task).map_err(super::exit::fail)?;
    let decision_id = match &r.decision_id {
        Some(id) => id.clone(),
        None => fresh_id()?,
    };
    let decided_at = l.now();
    let drafted = task
        .decision(&DecisionDraft {
            decision_id: &decision_id,
            decision: r.verdict.0,
            approver: r.approver,
            decided_at,
            expires_at: decided_at.saturating_add(r.ttl_ms),
        })
        .map_err(super::exit::fail)?;
    match r.key {
        None => Ok(drafted.envelope.to_value()),
        Some(path) => {
            let key = signing_key(path, &Options::default())?;
            sign_approval(drafted.record.value(), &key).map_err(Failure::Input)
        }
    }
}

/// `dec_` and 128 random bits in hex: unique without coordination.
pub(super) fn fresh_id() -> Result<String, Failure> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| Failure::Io(format!("no secure random source: {e}")))?;
    Ok(bytes
        .iter()
        .fold(String::from("dec_"), |s, b| s + &format!("{b:02x}")))
}

#[cfg(test)]
mod tests {
    use super::parse_ttl;

    #[test]
    fn durations() {
        assert_eq!(parse_ttl("10m"), Ok(600_000));
        assert_eq!(parse_ttl("1500ms"), Ok(1500));
        assert_eq!(parse_ttl("36h"), Ok(129_600_000));
        assert_eq!(parse_ttl("2d"), Ok(172_800_000));
        for bad in [
            "",
            "10",
            "m",
            "0s",
            "-1m",
            "1.5h",
            "10 m",
            "10M",
            "99999999999999999d",
        ] {
            assert!(parse_ttl(bad).is_err(), "{bad}");
        }
    }
}
