//! `actionseal key`: Ed25519 service keys for signed decisions.

use crate::io::{line, read_json as read};
use crate::Failure;
use actionseal_core::{
    canonicalize, sign_approval, verify_proof, KeySet, Options, OwnedValue, SigningKey,
};
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Exit status when `key verify` refuses the proof (and `delegation verify` the link).
pub const EXIT_REFUSED: u8 = 4;

pub(crate) const EXIT_STATUS: &str = "\
Exit status: 0 success, 2 bad input (a malformed file, key, key set or record; stderr:
`error: <code>: <message>`), 4 the proof is refused (key verify: stderr names the code, such as
invalid_signature or unknown_key), 64 usage error, 74 I/O error.";

#[derive(Args)]
#[command(after_help = EXIT_STATUS)]
pub(crate) struct KeyArgs {
    #[command(subcommand)]
    command: KeyCommand,
}

#[derive(Subcommand)]
enum KeyCommand {
    /// Make a new Ed25519 key: write the private JWK to --out (created with mode 0600, never
    /// overwritten) and print the public JWK, whose `kid` is its RFC 7638 thumbprint.
    ///
    /// The public JWK goes into the executor's key set:
    /// `{"service_keys": {"<kid>": {"key": <public JWK>}}}`.
    #[command(after_help = EXIT_STATUS)]
    Generate {
        /// Where to write the private key.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Sign an approval record: print the DSSE envelope whose payload is the record's
    /// canonical bytes (payload type application/vnd.actionseal.approval+json).
    ///
    /// The record must be well-formed and sealed (its action_digest the fingerprint of its
    /// action): a signature never vouches for a tampered record.
    #[command(after_help = EXIT_STATUS)]
    Sign {
        /// The private key: a JWK with `d`, or the raw 32-byte seed as a base64url JSON string.
        #[arg(long, value_name = "FILE")]
        key: PathBuf,
        /// The approval record; stdin when absent or `-`.
        approval: Option<PathBuf>,
    },
    /// Verify a signed envelope or a passkey-approved record against a key set, and print
    /// `{"approval": <record>, "signer": {...}}`.
    ///
    /// The keyid in an envelope is only a hint: trust comes from the key set, with each key's
    /// validity window and the approvers it may sign for. The window is judged at this
    /// machine's clock, or at `--at` (a ledger's recorded `verified_at`, say), never at the
    /// record's own `decided_at`, which its signer wrote.
    #[command(after_help = EXIT_STATUS)]
    Verify {
        /// The trusted key set: {"service_keys", "passkeys", "webauthn"}.
        #[arg(long, value_name = "FILE")]
        keys: PathBuf,
        /// The time to judge each key's window at, in ms since the epoch (default: now).
        #[arg(long, value_name = "MS")]
        at: Option<i64>,
        /// The envelope or passkey-approved record; stdin when absent or `-`.
        approval: Option<PathBuf>,
    },
}

pub(crate) fn run(args: KeyArgs) -> Result<(), Failure> {
    let options = Options::default();
    match args.command {
        KeyCommand::Generate { out } => {
            let mut seed = [0u8; 32];
            getrandom::fill(&mut seed)
                .map_err(|e| Failure::Io(format!("no secure random source: {e}")))?;
            let key = SigningKey::from_seed(&seed);
            write_private(&out, &format!("{}\n", canonicalize(&key.to_jwk())))?;
            line(&key.public_key().to_jwk())
        }
        KeyCommand::Sign { key, approval } => {
            let key = signing_key(&key, &options)?;
            let record = read(approval.as_deref(), &options)?;
            let envelope = sign_approval(&record, &key).map_err(Failure::Input)?;
            line(&envelope)
        }
        KeyCommand::Verify { keys, at, approval } => {
            let set = key_set(&keys, &options)?;
            let presented = read(approval.as_deref(), &options)?;
            verified(verify_proof(&presented, &set, at_or_now(at)).map(|v| v.to_value()))
        }
    }
}

/// The signing key in the file at `path` (a JWK with `d`, or the raw seed).
pub(crate) fn signing_key(path: &Path, options: &Options) -> Result<SigningKey, Failure> {
    SigningKey::from_value(&read(Some(path), options)?)
        .map_err(|e| Failure::InputIn(path.display().to_string(), e))
}

/// The trusted key set in the file at `path`.
pub(crate) fn key_set(path: &Path, options: &Options) -> Result<KeySet, Failure> {
    KeySet::from_value(&read(Some(path), options)?)
        .map_err(|e| Failure::InputIn(path.display().to_string(), e))
}

/// The time to judge a key's window at: `--at`, else this machine's clock.
pub(crate) fn at_or_now(at: Option<i64>) -> i64 {
    at.unwrap_or_else(|| actionseal_ledger::Clock::now_ms(&actionseal_ledger::SystemClock))
}

/// Prints what a verification gave, or names the code that refused it ([`EXIT_REFUSED`]).
pub(crate) fn verified(result: actionseal_core::Result<OwnedValue>) -> Result<(), Failure> {
    match result {
        Ok(v) => line(&v),
        Err(e) => {
            eprintln!("error: {e}");
            Err(Failure::Verdict(EXIT_REFUSED))
        }
    }
}

/// Creates `path` for the private key: never replaces a file, readable by the owner only.
fn write_private(path: &Path, text: &str) -> Result<(), Failure> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()))
        .map_err(|e| Failure::Io(format!("cannot create {}: {e}", path.display())))
}
