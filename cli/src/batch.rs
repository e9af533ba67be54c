//! `actionseal batch`: build a batch, deselect items, verify an item, record the decision over
//! a batch and check items before dispatch, on JSON files. Core's `batch::calls` and
//! `check_item`/`check_batch` decide everything; this reads files and prints results.

use crate::check::{EXIT_REAPPROVE, EXIT_REJECT};
use crate::io::{line, read_json as read};
use crate::Failure;
use actionseal_core::batch::{calls, check_batch, check_item};
use actionseal_core::host::approval_set;
use actionseal_core::{Code, Number, Options, Outcome, OwnedValue, Profile, Value};
use clap::{Args, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};

/// Exit status for an item that is not in the batch (`batch verify`).
const EXIT_NOT_IN_BATCH: u8 = 4;

const EXIT_STATUS: &str = "\
Exit status: 0 success (check: every item checked may run), 2 bad input (stderr: `error:
<code>: <message>`, such as batch_cap_exceeded or batch_too_large), 3 reapprove, 4 reject
(verify: the item is not in the batch), 64 usage error, 74 I/O error.";

#[derive(Args)]
#[command(after_help = EXIT_STATUS)]
pub(crate) struct BatchArgs {
    #[command(subcommand)]
    command: BatchCommand,
}

/// How a batch's items stand together, spelled as the batch header spells it.
#[derive(Clone, Copy, ValueEnum)]
enum Semantics {
    /// No item runs until every item's check permits; then all are claimed at once.
    #[value(name = "all_or_nothing")]
    AllOrNothing,
    /// Each item stands on its own, under the batch's caps and breaker.
    #[value(name = "per_item")]
    PerItem,
}

impl Semantics {
    fn value(self) -> OwnedValue {
        Value::from(match self {
            Semantics::AllOrNothing => "all_or_nothing",
            Semantics::PerItem => "per_item",
        })
    }
}

/// The batch's contract, semantics and server policy: what `build` and `deselect` read.
#[derive(Args)]
struct Batch {
    /// The contract (with its `batch` member).
    #[arg(long, value_name = "FILE")]
    contract: PathBuf,
    /// How the items stand together.
    #[arg(long, value_enum)]
    semantics: Semantics,
    /// The server's batch policy, which narrows the contract's.
    #[arg(long, value_name = "FILE")]
    server: Option<PathBuf>,
    /// The actions, as one JSON array; stdin when absent or `-`.
    actions: Option<PathBuf>,
}

#[derive(Subcommand)]
enum BatchCommand {
    /// Build a batch of actions: print its header (what a decision freezes), its fingerprint,
    /// each item's fingerprint, task id and inclusion proof, and the totals under the caps.
    #[command(after_help = EXIT_STATUS)]
    Build(Batch),
    /// The batch without the items at `--index` (a reviewer's deselection): print the
    /// remainder, with `proposed_digest`, the fingerprint of the batch as proposed.
    #[command(after_help = EXIT_STATUS)]
    Deselect {
        #[command(flatten)]
        batch: Batch,
        /// An item to leave out, by its position from 0; repeat for more.
        #[arg(long = "index", value_name = "N", required = true)]
        indices: Vec<u64>,
    },
    /// Verify that an item ({"action", "proof"}) is in the batch a header describes; print
    /// {"action_digest", "batch_digest", "index"}, or exit 4 (not_in_batch).
    #[command(after_help = EXIT_STATUS)]
    Verify {
        /// The batch header.
        #[arg(long, value_name = "FILE")]
        header: PathBuf,
        /// The item; stdin when absent or `-`.
        item: Option<PathBuf>,
    },
    /// Record a reviewer's decision over the batch a header describes: print the batch
    /// decision record (sign it with `actionseal key sign`).
    ///
    /// The decision is {"approval_id", "decision_id", "decision", "approver", "decided_at",
    /// "expires_at"} and optionally "proposed_digest" (the batch as proposed, when items were
    /// deselected), "role", "on_behalf_of", "delegation".
    #[command(after_help = EXIT_STATUS)]
    Decide {
        /// The batch header.
        #[arg(long, value_name = "FILE")]
        header: PathBuf,
        /// The decision; stdin when absent or `-`.
        decision: Option<PathBuf>,
    },
    /// Check items of a batch before dispatch against the batch decision(s): print the
    /// verdict of `--item` presented as `--action`, or with `--items`/`--actions` the batch
    /// verdict {"semantics", "claimable", "verdicts"}. The exit status says permit (0),
    /// reapprove (3) or reject (4); for several items, 0 only when every one may be claimed,
    /// else the worst verdict's.
    #[command(after_help = EXIT_STATUS)]
    Check(CheckArgs),
}

#[derive(Args)]
struct CheckArgs {
    /// A batch decision record (bare, signed or passkey-approved); repeat for a quorum's.
    #[arg(long, value_name = "FILE", required_unless_present = "approvals")]
    approval: Vec<PathBuf>,
    /// The batch decisions as one JSON array.
    #[arg(long, value_name = "FILE", conflicts_with = "approval")]
    approvals: Option<PathBuf>,
    /// The item ({"action": its frozen action, "proof": its inclusion proof}).
    #[arg(
        long,
        value_name = "FILE",
        requires = "action",
        conflicts_with = "items"
    )]
    item: Option<PathBuf>,
    /// The action presented for dispatch of `--item`.
    #[arg(long, value_name = "FILE", requires = "item")]
    action: Option<PathBuf>,
    /// Items of one batch, as a JSON array.
    #[arg(
        long,
        value_name = "FILE",
        requires = "actions",
        required_unless_present = "item"
    )]
    items: Option<PathBuf>,
    /// The actions presented for them, as a JSON array of one length.
    #[arg(long, value_name = "FILE", requires = "items")]
    actions: Option<PathBuf>,
    /// The trusted context from the executor's own server (with the batch's `breaker` state).
    #[arg(long, value_name = "FILE")]
    context: PathBuf,
}

pub(crate) fn run(args: BatchArgs) -> Result<(), Failure> {
    let options = Options::default();
    let file = |p: &Path| read(Some(p), &options);
    match args.command {
        BatchCommand::Build(b) => {
            let (contract, actions, server) = inputs(&b, &options)?;
            let built = calls::build(&contract, &b.semantics.value(), &actions, &server);
            line(&built.map_err(Failure::Input)?)
        }
        BatchCommand::Deselect { batch, indices } => {
            let (contract, actions, server) = inputs(&batch, &options)?;
            let indices = indices
                .into_iter()
                .map(|i| Number::from_i64(i as i64, Profile::Strict).map(Value::from))
                .collect::<Result<_, _>>()
                .map_err(Failure::Input)?;
            let kept = calls::deselect(
                &contract,
                &batch.semantics.value(),
                &actions,
                &server,
                &Value::Array(indices),
            );
            line(&kept.map_err(Failure::Input)?)
        }
        BatchCommand::Verify { header, item } => {
            let header = file(&header)?;
            let item = read(item.as_deref(), &options)?;
            match calls::verify_item(&header, &item) {
                Ok(v) => line(&v),
                Err(e) if e.code() == Code::NotInBatch => {
                    eprintln!("error: {e}");
                    Err(Failure::Verdict(EXIT_NOT_IN_BATCH))
                }
                Err(e) => Err(Failure::Input(e)),
            }
        }
        BatchCommand::Decide { header, decision } => {
            let header = file(&header)?;
            let decision = read(decision.as_deref(), &options)?;
            line(&calls::decide(&header, &decision).map_err(Failure::Input)?)
        }
        BatchCommand::Check(c) => checked(c, &options),
    }
}

/// The contract, the actions and the server's policy (`null` without one).
fn inputs(b: &Batch, options: &Options) -> Result<(OwnedValue, OwnedValue, OwnedValue), Failure> {
    let contract = read(Some(&b.contract), options)?;
    let server = match &b.server {
        Some(p) => read(Some(p), options)?,
        None => Value::Null,
    };
    Ok((contract, read(b.actions.as_deref(), options)?, server))
}

fn checked(c: CheckArgs, options: &Options) -> Result<(), Failure> {
    let file = |p: &Path| read(Some(p), options);
    let members: Vec<OwnedValue> = match &c.approvals {
        Some(p) => {
            let set = file(p)?;
            approval_set(&set)
                .map_err(|e| Failure::InputIn(p.display().to_string(), e))?
                .to_vec()
        }
        None => c
            .approval
            .iter()
            .map(|p| file(p))
            .collect::<Result<_, _>>()?,
    };
    let context = file(&c.context)?;
    let (result, outcome) = match (&c.item, &c.action, &c.items, &c.actions) {
        (Some(item), Some(action), _, _) => {
            let v = check_item(&members, &file(item)?, &file(action)?, &context)
                .map_err(Failure::Input)?;
            (v.to_value(), v.outcome)
        }
        (_, _, Some(items), Some(actions)) => {
            let v = check_batch(&members, &file(items)?, &file(actions)?, &context)
                .map_err(Failure::Input)?;
            // Every item may run, or the worst verdict says why not (a reject before a
            // reapprove); all or nothing with every item permitted is claimable whole.
            let outcome = match v.claimable.len() == v.verdicts.len() && !v.verdicts.is_empty() {
                true => Outcome::Permit,
                false => v
                    .verdicts
                    .iter()
                    .map(|x| x.outcome)
                    .max()
                    .filter(|o| *o != Outcome::Permit)
                    .unwrap_or(Outcome::Reject),
            };
            (v.to_value(), outcome)
        }
        _ => {
            return Err(Failure::Usage(
                "give --item with --action, or --items with --actions".into(),
            ))
        }
    };
    line(&result)?;
    match outcome {
        Outcome::Permit => Ok(()),
        Outcome::Reapprove => Err(Failure::Verdict(EXIT_REAPPROVE)),
        Outcome::Reject => Err(Failure::Verdict(EXIT_REJECT)),
    }
}
