//! `actionseal`: canonical JSON, fingerprints and permit checks from the command line.

mod batch;
mod check;
mod delegation;
mod demo;
mod evidence;
mod io;
mod key;
mod ledger;
mod ledger_demo;
mod witness;

use actionseal_core::{canonicalize_json, Digest, Error, Options, Profile};
use clap::{Args, CommandFactory, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status for input the core rejects.
const EXIT_BAD_INPUT: u8 = 2;
/// Exit status for a malformed command line (sysexits EX_USAGE).
const EXIT_USAGE: u8 = 64;
/// Exit status for a file that cannot be read or output that cannot be written (EX_IOERR).
const EXIT_IO: u8 = 74;

const EXIT_STATUS: &str = "\
Exit status: 0 success or permit, 2 bad input (stderr: `error: <code>: <message>`),
3 reapprove, 4 reject (or, for key verify and delegation verify, a refused proof), 64 usage
error, 74 I/O error (`actionseal ledger --help` for the ledger's own).";

/// Bind human approvals of AI agent tool calls to the exact action: canonical JSON (RFC 8785),
/// fingerprints and the permit check.
#[derive(Parser)]
#[command(name = "actionseal", version, after_help = EXIT_STATUS)]
struct Cli {
    /// Print JSON results indented, for people: the same canonical JSON (same members, order
    /// and numbers) with whitespace between tokens. Without it, each result is one line of
    /// canonical JSON, which is what scripts should read. Refused where the output is not
    /// one JSON value (canon, digest, audit export, ...).
    #[arg(long, global = true)]
    pretty: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write the RFC 8785 canonical form of the JSON in FILE (or stdin), exactly, with no
    /// trailing newline.
    Canon(TextArgs),
    /// Print the fingerprint (`sha256:<hex>`) of the canonical form, and a newline.
    Digest(TextArgs),
    /// Re-prove an action before dispatch: print the verdict as JSON. The exit status says
    /// permit (0), reapprove (3) or reject (4).
    ///
    /// Approvals, actions and contexts are always read with the strict number profile: a
    /// check never rounds.
    Check(CheckArgs),
    /// The refund story end to end: contract, action, approval, permit, and every way it can
    /// go wrong between approval and dispatch.
    Demo,
    /// Batches: build one, deselect items, verify an item, record the decision over it, and
    /// check its items before dispatch.
    Batch(batch::BatchArgs),
    /// Ed25519 service keys: generate one, sign an approval record, verify a signed decision
    /// (or a passkey-approved record) against a key set.
    Key(key::KeyArgs),
    /// Delegation: sign a delegation document, verify a link of a chain against a key set,
    /// print a document's digest.
    Delegation(delegation::DelegationArgs),
    /// Evidence bundles: verify one without the ledger's database, against your own trust.
    Evidence(evidence::EvidenceArgs),
    /// The task ledger (SQLite or PostgreSQL): propose, decide, claim once, complete,
    /// reconcile, revoke, show, audit.
    Ledger(ledger::LedgerArgs),
    /// Print a shell completion script.
    Completions {
        /// The shell to write completions for.
        shell: clap_complete::Shell,
    },
}

/// Input limits, shared by every command that reads JSON.
#[derive(Args)]
struct Limits {
    /// Largest accepted input in bytes.
    #[arg(long, value_name = "N", default_value_t = actionseal_core::DEFAULT_MAX_BYTES)]
    max_bytes: usize,
    /// Deepest accepted nesting of arrays and objects.
    #[arg(long, value_name = "N", default_value_t = actionseal_core::DEFAULT_MAX_DEPTH)]
    max_depth: usize,
}

#[derive(Args)]
struct TextArgs {
    /// The JSON file; stdin when absent or `-`.
    file: Option<PathBuf>,
    /// Number profile: strict keeps every number exact (a number whose canonical form would
    /// denote another value is an error); rfc8785 rounds to the nearest double like JCS.
    #[arg(long, value_name = "PROFILE", default_value = "strict", value_parser = parse_profile)]
    profile: Profile,
    #[command(flatten)]
    limits: Limits,
}

#[derive(Args)]
struct CheckArgs {
    /// The action presented for dispatch.
    #[arg(long, value_name = "FILE")]
    action: PathBuf,
    /// The trusted context from the executor's own server.
    #[arg(long, value_name = "FILE")]
    context: PathBuf,
    /// The approval record (or signed envelope, or passkey-approved record); leave it out when
    /// there is none. Given more than once, the files are a set of approvals (a quorum's
    /// members), checked together.
    #[arg(long, value_name = "FILE")]
    approval: Vec<PathBuf>,
    /// A set of approvals (a quorum's members) as one JSON array, checked together.
    #[arg(long, value_name = "FILE", conflicts_with = "approval")]
    approvals: Option<PathBuf>,
    /// Refused: a check reads everything with the strict profile.
    #[arg(long, hide = true)]
    profile: Option<String>,
    #[command(flatten)]
    limits: Limits,
}

fn parse_profile(s: &str) -> Result<Profile, String> {
    s.parse::<Profile>().map_err(|e| e.message().to_owned())
}

/// Why a command did not succeed.
pub(crate) enum Failure {
    /// A check that did not permit: the verdict is already printed.
    Verdict(u8),
    Usage(String),
    Io(String),
    Input(Error),
    /// Bad input in a named file.
    InputIn(String, Error),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0; every real usage error is 64.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    io::set_style(if cli.pretty {
        io::Style::Pretty
    } else {
        io::Style::Line
    });
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Verdict(status)) => ExitCode::from(status),
        Err(Failure::Usage(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(EXIT_USAGE)
        }
        Err(Failure::Io(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(EXIT_IO)
        }
        Err(Failure::Input(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
        Err(Failure::InputIn(file, e)) => {
            eprintln!(
                "error: {}: {file}: {}",
                e.code(),
                e.to_string().split_once(": ").map_or("", |(_, m)| m)
            );
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

impl Limits {
    fn options(&self, profile: Profile) -> Options {
        Options {
            profile,
            max_bytes: self.max_bytes,
            max_depth: self.max_depth,
        }
    }
}

fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Canon(args) => {
            io::not_pretty("the canonical form")?;
            let canonical = canonical_text(&args)?;
            io::write_stdout(canonical.as_bytes())
        }
        Command::Digest(args) => {
            io::not_pretty("a digest")?;
            let canonical = canonical_text(&args)?;
            io::write_stdout(format!("{}\n", Digest::of(canonical.as_bytes())).as_bytes())
        }
        Command::Check(args) => {
            if args.profile.is_some() {
                return Err(Failure::Usage(
                    "check reads approvals, actions and contexts with the strict profile only: \
                     it never rounds a number, so --profile is not accepted"
                        .into(),
                ));
            }
            let options = args.limits.options(Profile::Strict);
            check::run(
                &args.action,
                &args.context,
                check::Approvals::of(&args.approval, args.approvals.as_deref()),
                &options,
            )
        }
        Command::Batch(args) => batch::run(args),
        Command::Key(args) => key::run(args),
        Command::Delegation(args) => delegation::run(args),
        Command::Evidence(args) => evidence::run(args),
        Command::Demo => {
            io::not_pretty("the demo's story")?;
            io::write_stdout(demo::story().as_bytes())
        }
        Command::Ledger(args) => ledger::run(args),
        Command::Completions { shell } => {
            io::not_pretty("a completion script")?;
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "actionseal", &mut out);
            io::write_stdout(&out)
        }
    }
}

fn canonical_text(args: &TextArgs) -> Result<String, Failure> {
    let options = args.limits.options(args.profile);
    let input = io::read_input(args.file.as_deref(), &options)?;
    canonicalize_json(&input, &options).map_err(Failure::Input)
}
