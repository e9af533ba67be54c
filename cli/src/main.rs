//! `actionseal`: canonical JSON, fingerprints and permit checks from the command line.

mod check;
mod demo;

use actionseal_core::{canonicalize_json, Digest, Error, Options, Profile};
use std::io::{self, Read, Write};
use std::process::ExitCode;

const USAGE: &str = "\
usage: actionseal <command> [options] [FILE]

commands:
  canon [FILE]    write the RFC 8785 canonical form of the JSON in FILE (or stdin when FILE is
                  absent or -), exactly, with no trailing newline
  digest [FILE]   print the fingerprint (sha256:<hex>) of the canonical form, and a newline
  check --action FILE --context FILE [--approval FILE]
                  re-prove an action before dispatch: print the verdict as JSON; the exit
                  status says permit (0), reapprove (3) or reject (4). Leave out --approval
                  when there is none.
  demo            the refund story end to end: contract, action, approval, permit, and every
                  way it can go wrong between approval and dispatch

options:
  --profile strict|rfc8785   number profile (default strict: a number whose canonical form would
                             denote a different value is an error; rfc8785 rounds like JCS)
  --max-bytes N              largest accepted input (default 16777216)
  --max-depth N              deepest accepted nesting (default 128)
  -h, --help                 this help
  -V, --version              the version

exit status: 0 success or permit, 2 bad input (stderr: `error: <code>: <message>`),
             3 reapprove, 4 reject, 64 usage error, 74 I/O error";

/// Exit status for input the core rejects.
const EXIT_BAD_INPUT: u8 = 2;
/// Exit status for a malformed command line (sysexits EX_USAGE).
const EXIT_USAGE: u8 = 64;
/// Exit status for a file that cannot be read or output that cannot be written (EX_IOERR).
const EXIT_IO: u8 = 74;

enum Failure {
    /// A check that did not permit: the verdict is already printed.
    Verdict(u8),
    Usage(String),
    Io(String),
    Input(Error),
    /// Bad input in a named file.
    InputIn(String, Error),
}

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Verdict(status)) => ExitCode::from(status),
        Err(Failure::Usage(msg)) => {
            eprintln!("error: {msg}\n\n{USAGE}");
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

struct Args {
    command: String,
    file: Option<String>,
    options: Options,
    approval: Option<String>,
    action: Option<String>,
    context: Option<String>,
}

fn parse_args(args: Vec<String>) -> Result<Option<Args>, Failure> {
    let mut options = Options::default();
    let (mut approval, mut action, mut context) = (None, None, None);
    let mut positional = Vec::new();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| Failure::Usage(format!("{name} needs a value")))
        };
        match flag.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            "-V" | "--version" => {
                println!("actionseal {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            "--profile" => {
                options.profile = value("--profile")?
                    .parse::<Profile>()
                    .map_err(|e| Failure::Usage(e.message().to_owned()))?;
            }
            "--max-bytes" => options.max_bytes = number(&value("--max-bytes")?, "--max-bytes")?,
            "--max-depth" => options.max_depth = number(&value("--max-depth")?, "--max-depth")?,
            "--approval" => approval = Some(value("--approval")?),
            "--action" => action = Some(value("--action")?),
            "--context" => context = Some(value("--context")?),
            "-" => positional.push(arg),
            f if f.starts_with('-') => return Err(Failure::Usage(format!("unknown option {f}"))),
            _ => positional.push(arg),
        }
    }
    let mut positional = positional.into_iter();
    let command = positional
        .next()
        .ok_or_else(|| Failure::Usage("no command given".into()))?;
    let file = positional.next().filter(|f| f != "-");
    if let Some(extra) = positional.next() {
        return Err(Failure::Usage(format!("unexpected argument {extra:?}")));
    }
    Ok(Some(Args {
        command,
        file,
        options,
        approval,
        action,
        context,
    }))
}

fn number(text: &str, name: &str) -> Result<usize, Failure> {
    text.parse()
        .map_err(|_| Failure::Usage(format!("{name} takes a non-negative integer, not {text:?}")))
}

fn run(args: Vec<String>) -> Result<(), Failure> {
    let Some(args) = parse_args(args)? else {
        return Ok(());
    };
    match args.command.as_str() {
        "canon" => {
            let input = read_input(args.file.as_deref(), &args.options)?;
            let canonical = canonicalize_json(&input, &args.options).map_err(Failure::Input)?;
            write_stdout(canonical.as_bytes())
        }
        "digest" => {
            let input = read_input(args.file.as_deref(), &args.options)?;
            let canonical = canonicalize_json(&input, &args.options).map_err(Failure::Input)?;
            write_stdout(format!("{}\n", Digest::of(canonical.as_bytes())).as_bytes())
        }
        "check" => {
            let read = |flag: &str, path: &Option<String>| -> Result<_, Failure> {
                let path = path
                    .as_deref()
                    .ok_or_else(|| Failure::Usage(format!("check needs {flag} FILE")))?;
                let bytes = read_input(Some(path), &args.options)?;
                check::read_json(&bytes, &args.options)
                    .map_err(|e| Failure::InputIn(path.to_owned(), e))
            };
            let action = read("--action", &args.action)?;
            let context = read("--context", &args.context)?;
            let approval = match &args.approval {
                Some(_) => Some(read("--approval", &args.approval)?),
                None => None,
            };
            let (verdict, status) =
                check::run(approval.as_ref(), &action, &context).map_err(Failure::Input)?;
            write_stdout(format!("{verdict}\n").as_bytes())?;
            if status == 0 {
                Ok(())
            } else {
                Err(Failure::Verdict(status))
            }
        }
        "demo" => write_stdout(demo::story().as_bytes()),
        other => Err(Failure::Usage(format!("unknown command {other:?}"))),
    }
}

/// Reads the file or stdin, stopping one byte past the size limit so that an endless stream
/// is refused by the core's size check rather than read to the end.
fn read_input(file: Option<&str>, options: &Options) -> Result<Vec<u8>, Failure> {
    let limit = options.max_bytes.saturating_add(1) as u64;
    let mut buf = Vec::new();
    let result = match file {
        Some(path) => std::fs::File::open(path)
            .and_then(|f| f.take(limit).read_to_end(&mut buf))
            .map_err(|e| Failure::Io(format!("cannot read {path}: {e}"))),
        None => io::stdin()
            .lock()
            .take(limit)
            .read_to_end(&mut buf)
            .map_err(|e| Failure::Io(format!("cannot read stdin: {e}"))),
    };
    result.map(|_| buf)
}

fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Io(format!("cannot write output: {e}")))
}
