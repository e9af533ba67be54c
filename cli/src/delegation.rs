//! `actionseal delegation`: sign a delegation document, verify a link of a chain, and name a
//! document by its digest.

use crate::io::{line, read_json as read, write_stdout};
use crate::key::{at_or_now, key_set, signing_key, verified};
use crate::Failure;
use actionseal_core::{delegation_digest, sign_delegation, verify_delegation, Options};
use clap::{Args, Subcommand};
use std::path::PathBuf;

pub(crate) const EXIT_STATUS: &str = "\
Exit status: 0 success, 2 bad input (a malformed file, key, key set or document; stderr:
`error: <code>: <message>`), 4 the link is refused (delegation verify: stderr names the code,
such as invalid_signature or signer_not_allowed), 64 usage error, 74 I/O error.";

#[derive(Args)]
#[command(after_help = EXIT_STATUS)]
pub(crate) struct DelegationArgs {
    #[command(subcommand)]
    command: DelegationCommand,
}

#[derive(Subcommand)]
enum DelegationCommand {
    /// Sign a delegation document: print the DSSE envelope whose payload is the document's
    /// canonical bytes (payload type application/vnd.actionseal.delegation+json).
    ///
    /// The document is {"delegation_id", "delegator", "delegate", "tenant", "tools", "when"?,
    /// "not_before", "not_after"}; the key set that verifies the envelope must let the key
    /// sign for the delegator.
    #[command(after_help = EXIT_STATUS)]
    Sign {
        /// The private key: a JWK with `d`, or the raw 32-byte seed as a base64url JSON string.
        #[arg(long, value_name = "FILE")]
        key: PathBuf,
        /// The delegation document; stdin when absent or `-`.
        document: Option<PathBuf>,
    },
    /// Verify one link of a delegation chain (a signed envelope, a passkey-approved document
    /// or a bare document) against a key set, and print `{"delegation", "digest", "signer"}`.
    ///
    /// The key's window is judged at this machine's clock, or at `--at`.
    #[command(after_help = EXIT_STATUS)]
    Verify {
        /// The trusted key set: {"service_keys", "passkeys", "webauthn"}.
        #[arg(long, value_name = "FILE")]
        keys: PathBuf,
        /// The time to judge the key's window at, in ms since the epoch (default: now).
        #[arg(long, value_name = "MS")]
        at: Option<i64>,
        /// The link; stdin when absent or `-`.
        link: Option<PathBuf>,
    },
    /// Print the digest (`sha256:<hex>`) of a delegation document, by which chains, revocation
    /// facts and verdicts name it, and a newline.
    #[command(after_help = EXIT_STATUS)]
    Digest {
        /// The delegation document; stdin when absent or `-`.
        document: Option<PathBuf>,
    },
}

pub(crate) fn run(args: DelegationArgs) -> Result<(), Failure> {
    let options = Options::default();
    match args.command {
        DelegationCommand::Sign { key, document } => {
            let key = signing_key(&key, &options)?;
            let document = read(document.as_deref(), &options)?;
            line(&sign_delegation(&document, &key).map_err(Failure::Input)?)
        }
        DelegationCommand::Verify { keys, at, link } => {
            let set = key_set(&keys, &options)?;
            let presented = read(link.as_deref(), &options)?;
            verified(verify_delegation(&presented, &set, at_or_now(at)).map(|v| v.to_value()))
        }
        DelegationCommand::Digest { document } => {
            crate::io::not_pretty("a digest")?;
            let document = read(document.as_deref(), &options)?;
            let digest = delegation_digest(&document).map_err(Failure::Input)?;
            write_stdout(format!("{digest}\n").as_bytes())
        }
    }
}
