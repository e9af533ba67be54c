//! `ledger redact` and `ledger retention set|show|run`: shredding sensitive values (issue 29)
//! from the command line, each a call of the ledger crate's operations.

use super::decide::parse_ttl;
use super::exit::fail;
use super::open;
use crate::io::line;
use crate::Failure;
use actionseal_core::ledger::AtFinish;
use actionseal_core::OwnedValue;
use clap::Subcommand;

#[derive(Subcommand)]
pub(super) enum RetentionCommand {
    /// Set a tenant's policy for a class of sensitive values.
    Set {
        #[arg(long, value_name = "ID")]
        tenant: String,
        /// The class, as the contracts' `sensitive` member names it (e.g. pii, pci).
        #[arg(long, value_name = "CLASS")]
        class: String,
        /// How long after the proposal the values are kept (10m, 36h, 30d, 1500ms); `forever`
        /// keeps them until redacted.
        #[arg(long, value_name = "TIME", value_parser = keep)]
        keep: Keep,
        /// What happens to them when their task finishes: keep or shred.
        #[arg(long, value_name = "MODE", value_parser = at_finish, default_value = "keep")]
        at_finish: AtFinish,
        /// Who sets it.
        #[arg(long, value_name = "ID")]
        actor: String,
    },
    /// Print every tenant's policies.
    Show,
    /// Shred every value its tenant's policy keeps no longer (run it from cron); prints what
    /// was shredded, one entry per task (places and classes, never a value).
    Run {
        /// Who runs it (kept in the audit).
        #[arg(long, value_name = "ID", default_value = "retention")]
        actor: String,
    },
}

/// How long a policy keeps values.
#[derive(Clone, Copy)]
pub(super) enum Keep {
    For(i64),
    UntilRedacted,
}

fn keep(text: &str) -> Result<Keep, String> {
    match text {
        "forever" => Ok(Keep::UntilRedacted),
        t => parse_ttl(t).map(Keep::For),
    }
}

fn at_finish(text: &str) -> Result<AtFinish, String> {
    AtFinish::from_name(text).ok_or_else(|| format!("{text:?} is not keep or shred"))
}

pub(super) fn run(db: Option<&str>, command: RetentionCommand) -> Result<(), Failure> {
    let l = open(db)?;
    match command {
        RetentionCommand::Set {
            tenant,
            class,
            keep,
            at_finish,
            actor,
        } => {
            let keep_ms = match keep {
                Keep::For(ms) => Some(ms),
                Keep::UntilRedacted => None,
            };
            let p = l
                .set_retention(&tenant, &class, keep_ms, at_finish, &actor)
                .map_err(fail)?;
            line(&p.to_value())
        }
        RetentionCommand::Show => {
            let all = l.retention().map_err(fail)?;
            line(&OwnedValue::Array(
                all.iter().map(|p| p.to_value()).collect(),
            ))
        }
        RetentionCommand::Run { actor } => {
            let done = l.retention_run(&actor).map_err(fail)?;
            line(&OwnedValue::Array(
                done.iter().map(|d| d.to_value()).collect(),
            ))
        }
    }
}
