//! `actionseal evidence verify`: an evidence bundle checked against the verifier's own trust,
//! with no database (export is `actionseal ledger evidence export`, beside the ledger).

use crate::io::read_json as read;
use crate::key::verified;
use crate::Failure;
use actionseal_core::{evidence, Options};
use clap::{Args, Subcommand};
use std::path::PathBuf;

pub(crate) const EXIT_STATUS: &str = "\
Exit status: 0 the bundle verifies (stdout: the timeline), 2 bad input (a file that is not
JSON, a malformed trust), 4 the bundle does not verify (stderr: `error: <code>: <message> (at
<pointer>)`, such as inclusion_proof_invalid, checkpoint_untrusted or evidence_incomplete),
64 usage error, 74 I/O error.";

#[derive(Args)]
#[command(after_help = EXIT_STATUS)]
pub(crate) struct EvidenceArgs {
    #[command(subcommand)]
    command: EvidenceCommand,
}

#[derive(Subcommand)]
enum EvidenceCommand {
    /// Verify an evidence bundle without the ledger's database and print the verified
    /// timeline: who proposed, amended, approved (with which key or passkey) and claimed the
    /// task, when, and the outcome, as of a checkpoint the ledger signed.
    ///
    /// The trust is the verifier's own: {"ledger_keys": [{"key", "valid_from"?,
    /// "valid_until"?}], "witnesses"?: {"keys", "quorum"}, "tsa_roots"?: [base64 DER],
    /// "approval_keys"?: <key set>}.
    #[command(after_help = EXIT_STATUS)]
    Verify {
        /// The trust.
        #[arg(long, value_name = "FILE")]
        trust: PathBuf,
        /// The bundle; stdin when absent or `-`.
        bundle: Option<PathBuf>,
    },
}

pub(crate) fn run(args: EvidenceArgs) -> Result<(), Failure> {
    let options = Options::default();
    match args.command {
        EvidenceCommand::Verify { trust, bundle } => {
            let trust = read(Some(&trust), &options)?;
            let bundle = read(bundle.as_deref(), &options)?;
            if let Err(e) = evidence::Trust::from_value(&trust) {
                return Err(Failure::Input(e));
            }
            verified(evidence::verify_evidence(&bundle, &trust).map(|t| t.to_value()))
        }
    }
}
