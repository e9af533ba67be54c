//! `ledger batch propose|amend|decide|claim|complete|show`: batches (issue 28) from the
//! command line, each a call of the ledger crate's batch operations.

use super::decide::{fresh_id, parse_ttl};
use super::exit::fail;
use super::{deciding, json_file, open, open_with, EXIT_REAPPROVE, EXIT_REJECT};
use crate::io::line;
use crate::key::signing_key;
use crate::Failure;
use actionseal_core::batch::Semantics;
use actionseal_core::ledger::Reported;
use actionseal_core::{sign_approval, Decision, Options, OwnedValue, ProofRequirement, Value};
use actionseal_ledger::{
    BatchClaimOutcome, BatchClaimRequest, ClaimOutcome, ClaimRequest, DecisionDraft, Tsa,
};
use clap::Subcommand;
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub(super) enum BatchCommand {
    /// Record a batch: a JSON array of action envelopes under one contract, each item a task
    /// awaiting the batch's one decision.
    Propose {
        /// The actions (a JSON array), in the order the reviewer sees them.
        #[arg(long, value_name = "FILE")]
        actions: PathBuf,
        /// The tool's contract (its `batch` member must allow batches).
        #[arg(long, value_name = "FILE")]
        contract: PathBuf,
        /// all_or_nothing or per_item.
        #[arg(long, value_name = "SEMANTICS", value_parser = semantics)]
        semantics: Semantics,
        /// Who proposes it (the agent or runtime).
        #[arg(long, value_name = "ID")]
        proposer: String,
    },
    /// A reviewer deselects items of a batch awaiting its decision (a new batch digest).
    Amend {
        /// The batch id.
        #[arg(long, value_name = "ID")]
        batch: String,
        /// The batch digest the reviewer saw.
        #[arg(long, value_name = "DIGEST")]
        amends: String,
        /// The positions to leave out, comma-separated (0 is the first item).
        #[arg(long, value_name = "N,..", value_delimiter = ',', required = true)]
        deselect: Vec<u64>,
        /// Who deselects them.
        #[arg(long, value_name = "ID")]
        reviewer: String,
        /// Why (the audit keeps its digest).
        #[arg(long, value_name = "TEXT")]
        reason: String,
    },
    /// Record a reviewer's decision over a batch: a decision envelope, or one built from the
    /// batch as the ledger holds it (--batch with --approve or --reject).
    Decide {
        /// The decision envelope: {"approval_id", "decision_id", "batch_id", "batch_digest",
        /// "decision", "approver", "decided_at", "expires_at"}.
        #[arg(
            long,
            value_name = "FILE",
            required_unless_present = "batch",
            conflicts_with = "batch"
        )]
        decision: Option<PathBuf>,
        /// Build the decision about this batch's digest, decided now.
        #[arg(long, value_name = "ID", requires_all = ["approver", "ttl"])]
        batch: Option<String>,
        /// Approve the batch (with --batch).
        #[arg(long, requires = "batch", conflicts_with = "reject")]
        approve: bool,
        /// Reject it (with --batch).
        #[arg(long, requires = "batch")]
        reject: bool,
        /// Who decides (with --batch).
        #[arg(long, value_name = "ID", requires = "batch")]
        approver: Option<String>,
        /// How long the decision holds (with --batch): 90s, 10m, 36h, 2d.
        #[arg(long, value_name = "DURATION", value_parser = parse_ttl, requires = "batch")]
        ttl: Option<i64>,
        /// The decision's id (with --batch); by default a new random one.
        #[arg(long, value_name = "ID", requires = "batch")]
        decision_id: Option<String>,
        /// Sign the batch decision record with this private key (with --batch), as `ledger
        /// decide --key` signs a task's; the ledger verifies it against --keys.
        #[arg(long, value_name = "FILE", requires_all = ["batch", "keys"])]
        key: Option<PathBuf>,
        /// The trusted key set that verifies a proven decision, as for `ledger decide`.
        #[arg(long, value_name = "FILE")]
        keys: Option<PathBuf>,
        /// Refuse a decision that carries no proof, as `ledger decide --require-proof`.
        #[arg(long, requires = "keys")]
        require_proof: bool,
    },
    /// Claim one item of a per-item batch (--task, --action), or every remaining item of an
    /// all-or-nothing batch (--batch, --actions).
    Claim {
        /// The item's task id.
        #[arg(
            long,
            value_name = "ID",
            required_unless_present = "batch",
            requires = "action"
        )]
        task: Option<String>,
        /// The item's action about to be dispatched.
        #[arg(long, value_name = "FILE")]
        action: Option<PathBuf>,
        /// The all-or-nothing batch's id.
        #[arg(long, value_name = "ID", conflicts_with = "task", requires = "actions")]
        batch: Option<String>,
        /// Every item's action about to be dispatched (a JSON array, in the batch's order).
        #[arg(long, value_name = "FILE")]
        actions: Option<PathBuf>,
        /// The executor's facts, as for `ledger claim`.
        #[arg(long, value_name = "FILE")]
        facts: PathBuf,
        /// Who claims.
        #[arg(long, value_name = "ID")]
        executor: String,
        /// How long each claim holds before its outcome is in doubt.
        #[arg(long, value_name = "MS", default_value_t = 300_000)]
        lease_ms: i64,
        /// Refuse a batch whose decision was recorded without proof.
        #[arg(long)]
        require_proof: bool,
        /// A budget account to reserve the contract's cost on.
        #[arg(long, value_name = "NAME")]
        budget: Option<String>,
    },
    /// Report the outcome of an item's claim, fed to its batch's breaker.
    Complete {
        /// The item's task id.
        #[arg(long, value_name = "ID")]
        task: String,
        /// The claim's fence token.
        #[arg(long, value_name = "N")]
        fence: i64,
        /// succeeded, failed or unknown.
        #[arg(long, value_name = "OUTCOME")]
        outcome: String,
        /// Who completes it.
        #[arg(long, value_name = "ID")]
        executor: String,
    },
    /// Print a batch: its document, digests, state, items, and its lineage's caps totals and
    /// breaker.
    Show {
        /// The batch id.
        #[arg(long, value_name = "ID")]
        batch: String,
    },
}

fn semantics(s: &str) -> Result<Semantics, String> {
    Semantics::parse(s).map_err(|e| e.message().to_owned())
}

fn proof(required: bool) -> ProofRequirement {
    if required {
        ProofRequirement::Required
    } else {
        ProofRequirement::Optional
    }
}

/// The actions of a JSON array file.
fn actions(path: &Path) -> Result<Vec<OwnedValue>, Failure> {
    match json_file(path)? {
        Value::Array(items) => Ok(items),
        _ => Err(Failure::Usage(format!(
            "{}: the actions are a JSON array",
            path.display()
        ))),
    }
}

pub(super) fn run(
    db: Option<&str>,
    command: BatchCommand,
    tsa: Option<Tsa>,
) -> Result<(), Failure> {
    match command {
        BatchCommand::Propose {
            actions: file,
            contract,
            semantics,
            proposer,
        } => {
            let (list, contract) = (actions(&file)?, json_file(&contract)?);
            let b = open(db)?
                .propose_batch(&list, &contract, semantics, &proposer)
                .map_err(fail)?;
            line(&b.to_value())
        }
        BatchCommand::Amend {
            batch,
            amends,
            deselect,
            reviewer,
            reason,
        } => {
            let text = |x: String| OwnedValue::String(x.into());
            let positions = deselect
                .iter()
                .map(|&i| {
                    actionseal_core::Number::from_i64(i as i64, actionseal_core::Profile::Strict)
                        .map(Value::Number)
                })
                .collect::<actionseal_core::Result<Vec<_>>>()
                .map_err(Failure::Input)?;
            let amendment = actionseal_core::Object::from_entries(vec![
                ("batch_id".into(), text(batch)),
                ("amends".into(), text(amends)),
                ("deselect".into(), Value::Array(positions)),
                ("reviewer".into(), text(reviewer)),
                ("reason".into(), text(reason)),
            ])
            .map_err(Failure::Input)?;
            let b = open(db)?
                .amend_batch(&OwnedValue::Object(amendment))
                .map_err(fail)?;
            line(&b.to_value())
        }
        BatchCommand::Decide {
            decision,
            batch,
            approve,
            reject,
            approver,
            ttl,
            decision_id,
            key,
            keys,
            require_proof,
        } => {
            let l = open_with(db, deciding(tsa, keys.as_deref(), require_proof)?)?;
            let d = match (decision, batch, approver, ttl) {
                (Some(file), ..) => json_file(&file)?,
                (None, Some(id), Some(approver), Some(ttl)) if approve != reject => {
                    let b = l.batch(&id).map_err(fail)?;
                    let decision_id = match decision_id {
                        Some(id) => id,
                        None => fresh_id()?,
                    };
                    let now = l.now();
                    let drafted = b
                        .decision(&DecisionDraft {
                            decision_id: &decision_id,
                            decision: if approve {
                                Decision::Approved
                            } else {
                                Decision::Rejected
                            },
                            approver: &approver,
                            decided_at: now,
                            expires_at: now.saturating_add(ttl),
                        })
                        .map_err(fail)?;
                    match key {
                        None => drafted.envelope.to_value(),
                        Some(path) => {
                            let key = signing_key(&path, &Options::default())?;
                            sign_approval(drafted.record.value(), &key).map_err(Failure::Input)?
                        }
                    }
                }
                _ => {
                    return Err(Failure::Usage(
                        "batch decide takes --decision FILE, or --batch with --approve or \
                         --reject, --approver and --ttl"
                            .into(),
                    ))
                }
            };
            line(&l.decide_batch(&d).map_err(fail)?.to_value())
        }
        BatchCommand::Claim {
            task,
            action,
            batch,
            actions: list,
            facts,
            executor,
            lease_ms,
            require_proof,
            budget,
        } => {
            let facts = json_file(&facts)?;
            let l = open(db)?;
            match (task, action, batch, list) {
                (Some(task), Some(action), None, None) => {
                    let action = json_file(&action)?;
                    let out = l
                        .claim_item(&ClaimRequest {
                            task_id: &task,
                            action: &action,
                            facts: &facts,
                            executor: &executor,
                            lease_ms,
                            budget: budget.as_deref(),
                            proof: proof(require_proof),
                        })
                        .map_err(fail)?;
                    line(&out.to_value())?;
                    match out {
                        ClaimOutcome::Claimed(..) => Ok(()),
                        ClaimOutcome::Reapproval { .. } => Err(Failure::Verdict(EXIT_REAPPROVE)),
                        ClaimOutcome::Drift { .. } | ClaimOutcome::Rejected { .. } => {
                            Err(Failure::Verdict(EXIT_REJECT))
                        }
                    }
                }
                (None, None, Some(batch), Some(file)) => {
                    let list = actions(&file)?;
                    let out = l
                        .claim_batch(&BatchClaimRequest {
                            batch_id: &batch,
                            actions: &list,
                            facts: &facts,
                            executor: &executor,
                            lease_ms,
                            budget: budget.as_deref(),
                            proof: proof(require_proof),
                        })
                        .map_err(fail)?;
                    line(&out.to_value())?;
                    match out {
                        BatchClaimOutcome::Claimed(_) => Ok(()),
                        BatchClaimOutcome::Drift(_) | BatchClaimOutcome::Stopped(_) => {
                            Err(Failure::Verdict(EXIT_REJECT))
                        }
                    }
                }
                _ => Err(Failure::Usage(
                    "batch claim takes --task with --action, or --batch with --actions".into(),
                )),
            }
        }
        BatchCommand::Complete {
            task,
            fence,
            outcome,
            executor,
        } => {
            let reported = Reported::parse(&outcome).map_err(Failure::Input)?;
            let t = open(db)?
                .complete_item(&task, fence, reported, None, &executor)
                .map_err(fail)?;
            line(&t.to_value())
        }
        BatchCommand::Show { batch } => line(&open(db)?.batch(&batch).map_err(fail)?.to_value()),
    }
}
