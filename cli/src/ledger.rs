//! `actionseal ledger --db URL ...`: the task ledger from the command line.

use crate::io::{json_text, line, not_pretty, read_input, write_stdout};
use crate::Failure;
use actionseal_core::ledger::{verify_audit_with, Expected, ExportedHeads, Observed, Reported};
use actionseal_core::tlog::note::{SignerKey, VerifierKey};
use actionseal_core::{
    parse, Code, KeySet, Number, Options, OwnedValue, Profile, ProofPolicy, ProofRequirement,
};
use actionseal_ledger::{
    CheckpointVerified, ClaimOutcome, ClaimRequest, IfMissing, Ledger, LedgerOptions, Tsa,
};
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

mod batch;
mod decide;
pub(crate) mod exit;
mod filter;
mod retention;
mod table;

use exit::fail;

/// Exit status when a claim sends the task back for approval.
const EXIT_REAPPROVE: u8 = 3;
/// Exit status when a claim is refused as drift or rejects the task before dispatch.
const EXIT_REJECT: u8 = 4;

pub(crate) const EXIT_STATUS: &str = "\
Exit status: 0 success (a claim won), 2 bad input or no such task/approval/budget,
3 the claim sent the task back for approval, 4 the claim was refused as drift or
rejected the task before dispatch, 5 refused by the task's state or its round's decisions
(already_claimed, stale_fence, task_conflict, decision_conflict, amend_conflict,
approver_already_decided, approver_not_separate, delegation_refused, batch_cap_exceeded,
breaker_open, batch_all_or_nothing, batch_item, disclosures_shredded, ...), 6 the audit
chain is broken or does not hold a kept checkpoint,
64 usage error (audit checkpoint or evidence export without --log-key), 66 no ledger file at
the SQLite path (ledger_not_found: `ledger init` or ?mode=create makes one), 69 the database or
the time-stamping authority (--tsa) cannot be reached, 74 I/O or storage error (a witness that
cannot be reached included).
`evidence export`: 0 the bundle written, 2 no such task, a contract that is not the task's
(evidence_mismatch) or a witness's answer that is not a cosignature.
Results are printed as canonical JSON; errors as `error: <code>: <message>`.";

/// The task ledger: propose, decide, claim once, complete, reconcile, audit.
#[derive(Args)]
#[command(after_help = EXIT_STATUS)]
pub(crate) struct LedgerArgs {
    /// The ledger: sqlite:PATH[?synchronous=normal][&mode=create], sqlite::memory: or
    /// postgres://... A SQLite file must exist (`ledger init` creates it) unless the URL says
    /// mode=create.
    #[arg(long, value_name = "URL", env = "ACTIONSEAL_LEDGER")]
    db: Option<String>,
    /// A file holding the ledger's key for signing checkpoints of its Merkle log: a signer key
    /// string, PRIVATE+KEY+<name>+<hash>+<key> (Go's sumdb/note form). Server configuration:
    /// keep the file readable by the ledger's operator only.
    #[arg(long, value_name = "FILE", env = "ACTIONSEAL_LOG_KEY")]
    log_key: Option<PathBuf>,
    /// An RFC 3161 time-stamping authority, http://HOST[:PORT][/PATH] (plain HTTP: a token
    /// authenticates itself). With it, `audit checkpoint` stamps the checkpoint and `decide`
    /// stamps a proven decision's proof, each token verified against --tsa-root first.
    #[arg(
        long,
        value_name = "URL",
        env = "ACTIONSEAL_TSA",
        requires = "tsa_root"
    )]
    tsa: Option<String>,
    /// A root certificate (DER) the TSA's tokens must chain to; repeat for more (in the
    /// environment, separated by commas).
    #[arg(
        long,
        value_name = "FILE",
        env = "ACTIONSEAL_TSA_ROOT",
        value_delimiter = ',',
        requires = "tsa"
    )]
    tsa_root: Vec<PathBuf>,
    /// The policy (dotted object identifier) the TSA's tokens must name; it is also asked for.
    #[arg(
        long,
        value_name = "OID",
        env = "ACTIONSEAL_TSA_POLICY",
        requires = "tsa"
    )]
    tsa_policy: Option<String>,
    #[command(subcommand)]
    command: LedgerCommand,
}

#[derive(Subcommand)]
enum LedgerCommand {
    /// Create (or check and migrate) the ledger's schema. The only command that creates a
    /// SQLite file that does not exist; the others refuse it (ledger_not_found) unless the
    /// URL says ?mode=create.
    Init,
    /// Record a task for an action made under a contract.
    Propose {
        /// The action envelope.
        #[arg(long, value_name = "FILE")]
        action: PathBuf,
        /// The tool's contract.
        #[arg(long, value_name = "FILE")]
        contract: PathBuf,
        /// Who proposes it (the agent or runtime).
        #[arg(long, value_name = "ID")]
        proposer: String,
    },
    /// A reviewer replaces the arguments of a task awaiting a decision. The amendment names
    /// the digest of the action it edits and applies only if the task still holds it.
    Amend {
        /// The task id.
        #[arg(long, value_name = "ID")]
        task: String,
        /// The action_digest of the task as the reviewer loaded it.
        #[arg(long, value_name = "DIGEST")]
        amends: String,
        /// The whole amended action envelope (only its args may differ).
        #[arg(long, value_name = "FILE")]
        action: PathBuf,
        /// The task's contract, as the server holds it.
        #[arg(long, value_name = "FILE")]
        contract: PathBuf,
        /// Who amends it (a reviewer, never the model).
        #[arg(long, value_name = "ID")]
        reviewer: String,
        /// Why (kept with the task; the audit holds its digest only).
        #[arg(long, value_name = "TEXT")]
        reason: String,
    },
    /// Record a reviewer's decision (de-duplicated by decision_id): a decision envelope, or
    /// the task's approval record signed (`actionseal key sign`) or passkey-approved; or,
    /// with --task, the decision built from the task as the ledger holds it (and signed with
    /// --key).
    Decide {
        /// {"approval_id", "decision_id", "job_id", "request_id", "action_digest",
        /// "decision", "approver", "decided_at", "expires_at"}, or a signed envelope, or a
        /// passkey-approved record.
        #[arg(
            long,
            value_name = "FILE",
            required_unless_present = "task",
            conflicts_with = "task"
        )]
        decision: Option<PathBuf>,
        /// Build the decision about this task's current approval round instead: its
        /// approval, job, request and action digest come from the ledger, decided now.
        #[arg(long, value_name = "ID", requires_all = ["verdict", "approver", "ttl"])]
        task: Option<String>,
        #[command(flatten)]
        verdict: Option<decide::Verdict>,
        /// Who decides (with --task).
        #[arg(long, value_name = "ID", requires = "task")]
        approver: Option<String>,
        /// How long the decision holds (with --task): 90s, 10m, 36h, 2d.
        #[arg(long, value_name = "DURATION", value_parser = decide::parse_ttl, requires = "task")]
        ttl: Option<i64>,
        /// The decision's id (with --task), so that a retry is recorded once; by default a
        /// new random one.
        #[arg(long, value_name = "ID", requires = "task")]
        decision_id: Option<String>,
        /// Sign the decision's approval record with this private key (with --task), as
        /// `actionseal key sign` does; the ledger verifies it against --keys.
        #[arg(long, value_name = "FILE", requires_all = ["task", "keys"])]
        key: Option<PathBuf>,
        /// The trusted key set that verifies a proven decision: {"service_keys", "passkeys",
        /// "webauthn"}. Without it, no proof verifies (unknown_key).
        #[arg(long, value_name = "FILE")]
        keys: Option<PathBuf>,
        /// Refuse a decision that carries no proof (missing_proof), and record that every
        /// handle on the ledger must (without it, `--keys` on a ledger that requires proof is
        /// refused as proof_policy_weakened).
        #[arg(long, requires = "keys")]
        require_proof: bool,
    },
    /// Re-prove the approval and claim the task for dispatch, once.
    Claim {
        /// The task id.
        #[arg(long, value_name = "ID")]
        task: String,
        /// The action about to be dispatched.
        #[arg(long, value_name = "FILE")]
        action: PathBuf,
        /// {"tenant", "policy_version", "contract", "approver_authorized",
        /// "subject_authorized"} from the executor's own server.
        #[arg(long, value_name = "FILE")]
        facts: PathBuf,
        /// Who claims it.
        #[arg(long, value_name = "ID")]
        executor: String,
        /// How long the claim holds before the task's outcome is in doubt.
        #[arg(long, value_name = "MS", default_value_t = 300_000)]
        lease_ms: i64,
        /// Refuse a task whose decision was recorded without proof (missing_proof); the
        /// ledger's own policy may require it anyway.
        #[arg(long)]
        require_proof: bool,
        /// A budget account to reserve the contract's cost on.
        #[arg(long, value_name = "NAME")]
        budget: Option<String>,
    },
    /// Report the outcome of a claim, with its fence token.
    Complete {
        /// The task id.
        #[arg(long, value_name = "ID")]
        task: String,
        /// The claim's fence token.
        #[arg(long, value_name = "N")]
        fence: i64,
        /// succeeded, failed or unknown.
        #[arg(long, value_name = "OUTCOME")]
        outcome: String,
        /// What the business system answered (JSON).
        #[arg(long, value_name = "FILE")]
        result: Option<PathBuf>,
        /// Who completes it.
        #[arg(long, value_name = "ID")]
        executor: String,
    },
    /// Record what the business system answered about a task in doubt.
    Reconcile {
        /// The task id.
        #[arg(long, value_name = "ID")]
        task: String,
        /// succeeded, failed or not_executed.
        #[arg(long, value_name = "OBSERVED")]
        observed: String,
        /// What the business system answered (JSON).
        #[arg(long, value_name = "FILE")]
        result: Option<PathBuf>,
        /// Who reconciles it.
        #[arg(long, value_name = "ID")]
        actor: String,
    },
    /// Revoke an approval.
    Revoke {
        /// The approval id.
        #[arg(long, value_name = "ID")]
        approval: String,
        /// Who revokes it.
        #[arg(long, value_name = "ID")]
        actor: String,
    },
    /// Move claimed tasks whose lease ran out to unknown.
    Expire,
    /// Create a budget account or set its limit.
    Budget {
        /// The account.
        #[arg(long, value_name = "NAME")]
        name: String,
        /// Its limit in minor units.
        #[arg(long, value_name = "N")]
        limit: i64,
    },
    /// Show one task with its history and amendments, or list tasks.
    Show {
        /// The task id (else: a list, oldest first).
        #[arg(
            long,
            value_name = "ID",
            conflicts_with_all = ["tenant", "state", "since", "until", "limit", "after"]
        )]
        task: Option<String>,
        #[command(flatten)]
        filter: filter::Filter,
        /// Print an aligned table for people instead of JSON (never the default, even on a
        /// terminal: what a command prints must not depend on where it prints, or a command
        /// tried by hand would print something else in a script).
        #[arg(long)]
        table: bool,
    },
    /// Print the ledger's policy (whether every decision must carry proof), or change it
    /// for every handle on the database, in an audited event.
    Policy {
        /// The new proof requirement: optional or required.
        #[arg(long, value_name = "REQUIREMENT", requires_all = ["actor", "reason"])]
        set: Option<String>,
        /// Who changes it.
        #[arg(long, value_name = "ID")]
        actor: Option<String>,
        /// Why (kept in the audit: never argument values).
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
    },
    /// Batches (issue 28): many actions decided once, each item claimed once under the
    /// batch's caps and circuit breaker.
    Batch {
        #[command(subcommand)]
        command: batch::BatchCommand,
    },
    /// Shred a task's sensitive values (issue 29): its commitments stay, so its approval,
    /// audit and evidence still verify; a claim of it that has not run is refused
    /// (disclosures_shredded).
    Redact {
        /// The task id.
        #[arg(long, value_name = "ID")]
        task: String,
        /// Who asks (kept in the audit).
        #[arg(long, value_name = "ID")]
        actor: String,
    },
    /// Retention of sensitive values per tenant and class (issue 29).
    Retention {
        #[command(subcommand)]
        command: retention::RetentionCommand,
    },
    /// Export a task's evidence bundle, which `actionseal evidence verify` checks without the
    /// database.
    Evidence {
        #[command(subcommand)]
        command: EvidenceCommand,
    },
    /// Verify or export the audit chain.
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// The durable half of the refund story on a fresh SQLite ledger.
    Demo,
}

#[derive(Subcommand)]
enum EvidenceCommand {
    /// Record the export (an evidence_exported event by --actor), make a checkpoint signed with
    /// --log-key (published to --witness first), and write the task's evidence bundle as
    /// canonical JSON: its events with their inclusion proofs, the documents they
    /// fingerprint, the contract and the checkpoint.
    Export {
        /// The task id.
        task: String,
        /// Who exports it (kept in the audit).
        #[arg(long, value_name = "ID", default_value = "cli")]
        actor: String,
        /// The task's contract: needed only for a task proposed before the ledger kept
        /// contracts (schema version 7).
        #[arg(long, value_name = "FILE")]
        contract: Option<PathBuf>,
        /// Where to publish the checkpoint first, as `audit checkpoint --witness` (repeatable).
        #[arg(long, value_name = "WITNESS")]
        witness: Vec<String>,
        /// The witnesses' verifier keys, as `audit checkpoint --witness-key`.
        #[arg(long, value_name = "FILE")]
        witness_key: Option<PathBuf>,
        /// Write the bundle to FILE instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum AuditCommand {
    /// Walk the chains (of the ledger, or of an exported FILE), replay every task's events
    /// (and, for the ledger, hold every task row to them), and name the first break.
    Verify {
        /// An exported audit (JSON Lines) instead of the ledger's own.
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
        /// Heads exported earlier (`audit heads`): finds a chain truncated or sealed again
        /// since.
        #[arg(long, value_name = "FILE")]
        heads: Option<PathBuf>,
        /// A signed checkpoint kept outside the database (`audit checkpoint`): every leaf is
        /// computed again from its event and the root at the checkpoint's size must be its
        /// root; finds the audit truncated, rewound, edited (even sealed again) or reordered.
        #[arg(long, value_name = "FILE", conflicts_with = "file")]
        checkpoint: Option<PathBuf>,
        /// The verifier keys (<name>+<hash>+<key>, one a line) that may have signed the
        /// checkpoint; by default the public key of --log-key.
        #[arg(long, value_name = "FILE", requires = "checkpoint")]
        log_verifier: Option<PathBuf>,
    },
    /// Sequence the events written since the last checkpoint into the ledger's Merkle log and
    /// print the signed checkpoint of it (a C2SP signed note), signed with --log-key. Keep it
    /// outside the database: `audit verify --checkpoint` holds the database to it.
    Checkpoint {
        /// Where to publish it (repeatable): file:PATH writes the checkpoint, with the
        /// cosignatures got, to PATH; http://HOST[:PORT][/PREFIX] is a C2SP tlog-witness,
        /// asked to cosign it (POST PREFIX/add-checkpoint), whose cosignature the ledger keeps.
        #[arg(long, value_name = "WITNESS")]
        witness: Vec<String>,
        /// The witnesses' verifier keys (<name>+<hash>+<key>, cosignature type 0x04, one a
        /// line): a cosignature is kept only when one of them made it.
        #[arg(long, value_name = "FILE")]
        witness_key: Option<PathBuf>,
    },
    /// Write the audit as JSON Lines, one event with its digest per line; filtered or
    /// paged, for reading (audit verify --file needs every event of a chain: pages joined).
    Export {
        #[command(flatten)]
        filter: filter::Filter,
    },
    /// Write the chains' heads (canonical JSON) to keep outside the database, where its
    /// owner cannot write: `audit verify --heads` checks the audit against them later. Only
    /// from an audit that verifies.
    Heads,
}

fn json_file(path: &Path) -> Result<OwnedValue, Failure> {
    let options = Options::default();
    let bytes = read_input(Some(path), &options)?;
    parse(&bytes, &options)
        .map(|v| v.into_owned())
        .map_err(|e| Failure::InputIn(path.display().to_string(), e))
}

fn open(db: Option<&str>) -> Result<Ledger, Failure> {
    open_with(db, LedgerOptions::default())
}

/// Opens the ledger at `--db`, refusing a SQLite file that does not exist (a mistyped path
/// must not be a new, empty ledger): only `init` and the URL's `?mode=create` create one.
fn open_with(db: Option<&str>, options: LedgerOptions) -> Result<Ledger, Failure> {
    let options = LedgerOptions {
        if_missing: IfMissing::Refuse,
        ..options
    };
    open_as(db, options)
}

fn open_as(db: Option<&str>, options: LedgerOptions) -> Result<Ledger, Failure> {
    let url = db
        .ok_or_else(|| Failure::Usage("the ledger needs --db URL (or ACTIONSEAL_LEDGER)".into()))?;
    Ledger::open_with(url, options).map_err(|e| {
        let missing = e.code() == Code::LedgerNotFound;
        let failure = fail(e);
        if missing {
            eprintln!("hint: `actionseal ledger --db URL init` creates it");
        }
        failure
    })
}

/// The text of a key file, without its surrounding whitespace.
fn key_file(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_owned())
        .map_err(|e| Failure::Io(format!("cannot read {}: {e}", path.display())))
}

/// The ledger's checkpoint signer from `--log-key`, if given.
fn log_signer(log_key: Option<&Path>) -> Result<Option<SignerKey>, Failure> {
    log_key
        .map(|path| {
            SignerKey::parse(&key_file(path)?)
                .map_err(|e| Failure::InputIn(path.display().to_string(), e))
        })
        .transpose()
}

/// The options of a handle that records decisions: the TSA that stamps proven ones and,
/// with `keys` (a key set file), the trusted keys that verify them, bare ones refused when
/// `require_proof`.
fn deciding(
    tsa: Option<Tsa>,
    keys: Option<&Path>,
    require_proof: bool,
) -> Result<LedgerOptions, Failure> {
    let mut options = LedgerOptions {
        tsa,
        ..LedgerOptions::default()
    };
    if let Some(keys) = keys {
        let set = KeySet::from_value(&json_file(keys)?)
            .map_err(|e| Failure::InputIn(keys.display().to_string(), e))?;
        options.proof = Some(ProofPolicy::new(require_proof, set));
    }
    Ok(options)
}

/// The time-stamping authority of `--tsa`, with its `--tsa-root` certificates.
fn tsa(
    url: Option<&str>,
    roots: &[PathBuf],
    policy: Option<String>,
) -> Result<Option<Tsa>, Failure> {
    let Some(url) = url else { return Ok(None) };
    let roots = roots
        .iter()
        .map(|path| {
            std::fs::read(path)
                .map_err(|e| Failure::Io(format!("cannot read {}: {e}", path.display())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Tsa::new(url, roots, policy)
        .map(Some)
        .map_err(Failure::Input)
}

/// The options of a ledger that signs checkpoints with `--log-key`, which must be given, and
/// time-stamps them with `tsa` when there is one.
fn signed(log_key: Option<&Path>, tsa: Option<Tsa>) -> Result<LedgerOptions, Failure> {
    let signer = log_signer(log_key)?.ok_or_else(|| {
        Failure::Usage(
            "a checkpoint is signed with the ledger's key: --log-key FILE (or \
             ACTIONSEAL_LOG_KEY)"
                .into(),
        )
    })?;
    Ok(LedgerOptions {
        checkpoint_signer: Some(signer),
        tsa,
        ..LedgerOptions::default()
    })
}

/// The verifier keys in a file, one a line.
fn verifier_keys(path: &Path) -> Result<Vec<VerifierKey>, Failure> {
    key_file(path)?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| VerifierKey::parse(l).map_err(|e| Failure::InputIn(path.display().to_string(), e)))
        .collect()
}

/// Holds the ledger to a checkpoint kept outside it, signed by one of `--log-verifier`'s keys
/// (or `--log-key`'s).
fn verify_checkpoint(
    l: &Ledger,
    checkpoint: &Path,
    log_verifier: Option<&Path>,
    signer: Option<&SignerKey>,
) -> Result<CheckpointVerified, Failure> {
    let verifiers = match (log_verifier, signer) {
        (Some(path), _) => verifier_keys(path)?,
        (None, Some(s)) => vec![s.verifier()],
        (None, None) => {
            return Err(Failure::Usage(
                "--checkpoint needs the keys that may have signed it: --log-verifier FILE \
                 (or the ledger's --log-key)"
                    .into(),
            ))
        }
    };
    let note = std::fs::read_to_string(checkpoint)
        .map_err(|e| Failure::Io(format!("cannot read {}: {e}", checkpoint.display())))?;
    l.audit_verify_checkpoint(&note, &verifiers).map_err(fail)
}

pub(crate) fn run(args: LedgerArgs) -> Result<(), Failure> {
    let db = args.db.as_deref();
    let log_key = args.log_key.as_deref();
    let tsa = tsa(args.tsa.as_deref(), &args.tsa_root, args.tsa_policy)?;
    match args.command {
        LedgerCommand::Init => {
            let l = open_as(db, LedgerOptions::default())?;
            let report = l.audit_verify().map_err(fail)?;
            let events = Number::from_i64(report.events, Profile::Strict).map_err(fail)?;
            let v = actionseal_core::Object::from_entries(vec![
                ("backend".into(), OwnedValue::String(l.backend().into())),
                ("events".into(), OwnedValue::Number(events)),
            ])
            .map_err(Failure::Input)?;
            line(&OwnedValue::Object(v))
        }
        LedgerCommand::Propose {
            action,
            contract,
            proposer,
        } => {
            let (action, contract) = (json_file(&action)?, json_file(&contract)?);
            let task = open(db)?
                .propose(&action, &contract, &proposer)
                .map_err(fail)?;
            line(&task.to_value())
        }
        LedgerCommand::Amend {
            task,
            amends,
            action,
            contract,
            reviewer,
            reason,
        } => {
            let (action, contract) = (json_file(&action)?, json_file(&contract)?);
            let text = |x: String| OwnedValue::String(x.into());
            let amendment = actionseal_core::Object::from_entries(vec![
                ("task_id".into(), text(task)),
                ("amends".into(), text(amends)),
                ("action".into(), action),
                ("reviewer".into(), text(reviewer)),
                ("reason".into(), text(reason)),
            ])
            .map_err(Failure::Input)?;
            let out = open(db)?
                .amend(&OwnedValue::Object(amendment), &contract)
                .map_err(fail)?;
            line(&out.to_value())
        }
        LedgerCommand::Decide {
            decision,
            task,
            verdict,
            approver,
            ttl,
            decision_id,
            key,
            keys,
            require_proof,
        } => {
            let l = open_with(db, deciding(tsa, keys.as_deref(), require_proof)?)?;
            let d = match (decision, task, verdict, approver, ttl) {
                (Some(file), ..) => json_file(&file)?,
                (None, Some(task), Some(verdict), Some(approver), Some(ttl_ms)) => decide::build(
                    &l,
                    &decide::Request {
                        task: &task,
                        verdict,
                        approver: &approver,
                        ttl_ms,
                        decision_id,
                        key: key.as_deref(),
                    },
                )?,
                _ => {
                    return Err(Failure::Usage(
                        "decide takes --decision FILE, or --task with --approve or --reject, \
                         --approver and --ttl"
                            .into(),
                    ))
                }
            };
            line(&l.decide(&d).map_err(fail)?.to_value())
        }
        LedgerCommand::Claim {
            task,
            action,
            facts,
            executor,
            lease_ms,
            require_proof,
            budget,
        } => {
            let (action, facts) = (json_file(&action)?, json_file(&facts)?);
            let proof = if require_proof {
                ProofRequirement::Required
            } else {
                ProofRequirement::Optional
            };
            let out = open(db)?
                .claim(&ClaimRequest {
                    task_id: &task,
                    action: &action,
                    facts: &facts,
                    executor: &executor,
                    lease_ms,
                    budget: budget.as_deref(),
                    proof,
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
        LedgerCommand::Complete {
            task,
            fence,
            outcome,
            result,
            executor,
        } => {
            let reported = Reported::parse(&outcome).map_err(Failure::Input)?;
            let result = result.as_deref().map(json_file).transpose()?;
            let t = open(db)?
                .complete(&task, fence, reported, result.as_ref(), &executor)
                .map_err(fail)?;
            line(&t.to_value())
        }
        LedgerCommand::Reconcile {
            task,
            observed,
            result,
            actor,
        } => {
            let observed = Observed::parse(&observed).map_err(Failure::Input)?;
            let result = result.as_deref().map(json_file).transpose()?;
            let t = open(db)?
                .reconcile(&task, observed, result.as_ref(), &actor)
                .map_err(fail)?;
            line(&t.to_value())
        }
        LedgerCommand::Revoke { approval, actor } => line(
            &open(db)?
                .revoke(&approval, &actor)
                .map_err(fail)?
                .to_value(),
        ),
        LedgerCommand::Expire => {
            let ids = open(db)?.expire_leases().map_err(fail)?;
            let list = ids.into_iter().map(|id| id.into()).collect();
            line(&OwnedValue::Array(list))
        }
        LedgerCommand::Budget { name, limit } => {
            line(&open(db)?.set_budget(&name, limit).map_err(fail)?.to_value())
        }
        LedgerCommand::Batch { command } => batch::run(db, command, tsa),
        LedgerCommand::Redact { task, actor } => {
            line(&open(db)?.redact(&task, &actor).map_err(fail)?.to_value())
        }
        LedgerCommand::Retention { command } => retention::run(db, command),
        LedgerCommand::Show {
            task,
            filter,
            table,
        } => {
            if table {
                not_pretty("a table")?;
            }
            let l = open(db)?;
            match task {
                Some(id) => {
                    let (task, events) = l.task_history(&id).map_err(fail)?;
                    if table {
                        return write_stdout(table::task(&task, &events).as_bytes());
                    }
                    let history = events.iter().map(|e| e.to_value()).collect();
                    let mut entries = match task.to_value() {
                        OwnedValue::Object(o) => o.into_entries(),
                        _ => Vec::new(),
                    };
                    entries.push(("history".into(), OwnedValue::Array(history)));
                    // Each amendment with its reviewer's reason (the audit has only digests).
                    let amendments = l.amendments(&id).map_err(fail)?;
                    let log = amendments.iter().map(|a| a.to_value()).collect();
                    entries.push(("amendment_log".into(), OwnedValue::Array(log)));
                    let v = actionseal_core::Object::from_entries(entries).map_err(fail)?;
                    line(&OwnedValue::Object(v))
                }
                None => {
                    let paged = filter.paged();
                    let page = l.tasks_where(&filter.query()?).map_err(fail)?;
                    if table {
                        if let Some(next) = &page.next {
                            eprintln!("next: {next}");
                        }
                        return write_stdout(table::tasks(&page.items).as_bytes());
                    }
                    if paged {
                        return write_stdout(filter::tasks_page(&page)?.as_bytes());
                    }
                    line(&OwnedValue::Array(
                        page.items.iter().map(|t| t.to_value()).collect(),
                    ))
                }
            }
        }
        LedgerCommand::Policy { set, actor, reason } => {
            let l = open(db)?;
            let policy = match (set, actor, reason) {
                (Some(set), Some(actor), Some(reason)) => {
                    let proof = ProofRequirement::parse(&set).map_err(Failure::Input)?;
                    l.set_proof_requirement(proof, &actor, &reason)
                }
                _ => l.policy(),
            };
            line(&policy.map_err(fail)?.to_value())
        }
        LedgerCommand::Evidence {
            command:
                EvidenceCommand::Export {
                    task,
                    actor,
                    contract,
                    witness,
                    witness_key,
                    out,
                },
        } => {
            let contract = contract.as_deref().map(json_file).transpose()?;
            let keys = match &witness_key {
                Some(path) => verifier_keys(path)?,
                None => Vec::new(),
            };
            let l = open_with(db, signed(log_key, tsa)?)?;
            // The witnesses' failures are the CLI's own; they come back through `published`.
            let mut published = Ok(());
            let bundle = l.evidence_with(&task, &actor, contract.as_ref(), |c| {
                crate::witness::publish(&l, c.clone(), &witness, &keys).or_else(|f| {
                    published = Err(f);
                    Ok(c)
                })
            });
            published?;
            let text = json_text(&bundle.map_err(fail)?.to_value());
            match out {
                Some(path) => std::fs::write(&path, text)
                    .map_err(|e| Failure::Io(format!("cannot write {}: {e}", path.display()))),
                None => write_stdout(text.as_bytes()),
            }
        }
        LedgerCommand::Audit { command } => match command {
            AuditCommand::Export { filter } => {
                not_pretty("JSON Lines")?;
                let page = open(db)?
                    .audit_export_where(&filter.query()?)
                    .map_err(fail)?;
                let mut text = page.items.join("\n");
                if !text.is_empty() {
                    text.push('\n');
                }
                write_stdout(text.as_bytes())?;
                if let Some(next) = page.next {
                    eprintln!("next: {next}");
                }
                Ok(())
            }
            AuditCommand::Checkpoint {
                witness,
                witness_key,
            } => {
                not_pretty("a signed note")?;
                let options = signed(log_key, tsa)?;
                let keys = match &witness_key {
                    Some(path) => verifier_keys(path)?,
                    None => Vec::new(),
                };
                let l = open_with(db, options)?;
                let c = l.checkpoint().map_err(fail)?;
                let c = crate::witness::publish(&l, c, &witness, &keys)?;
                write_stdout(c.cosigned_note().as_bytes())
            }
            AuditCommand::Verify {
                file,
                heads,
                checkpoint,
                log_verifier,
            } => {
                let exported = heads
                    .as_deref()
                    .map(|h| {
                        ExportedHeads::from_value(&json_file(h)?)
                            .map_err(|e| Failure::InputIn(h.display().to_string(), e))
                    })
                    .transpose()?;
                let report = match file {
                    Some(f) => {
                        let options = Options {
                            max_bytes: usize::MAX - 1,
                            ..Options::default()
                        };
                        let expected = Expected {
                            exported: exported.as_ref().map_or(&[], |e| &e.heads),
                            ..Expected::default()
                        };
                        verify_audit_with(&read_input(Some(&f), &options)?, &expected)
                    }
                    None => {
                        let l = open(db)?;
                        let report = l.audit_verify_with(exported.as_ref()).map_err(fail)?;
                        if let Some(c) = checkpoint {
                            line(&report.to_value())?;
                            let signer = log_signer(log_key)?;
                            let v = verify_checkpoint(
                                &l,
                                &c,
                                log_verifier.as_deref(),
                                signer.as_ref(),
                            )?;
                            line(&v.to_value())?;
                            return report.into_result().map(|_| ()).map_err(fail);
                        }
                        report
                    }
                };
                line(&report.to_value())?;
                report.into_result().map(|_| ()).map_err(fail)
            }
            AuditCommand::Heads => line(&open(db)?.audit_heads().map_err(fail)?.to_value()),
        },
        LedgerCommand::Demo => {
            not_pretty("the demo's story")?;
            let url = db.ok_or_else(|| Failure::Usage("demo needs --db sqlite:PATH".into()))?;
            let story = crate::ledger_demo::story(url).map_err(fail)?;
            write_stdout(story.as_bytes())
        }
    }
}
