//! `actionseal`: canonical JSON, fingerprints and permit checks from the command line.

use actionseal_core::{canonicalize_json, Digest, Error, Options, Profile};
use std::io::{self, Read, Write};
use std::process::ExitCode;

const USAGE: &str = "\
usage: actionseal <command> [options] [FILE]

commands:
  canon [FILE]    write the RFC 8785 canonical form of the JSON in FILE (or stdin when FILE is
                  absent or -), exactly, with no trailing newline
  digest [FILE]   print the fingerprint (sha256:<hex>) of the canonical form, and a newline

options:
  --profile strict|rfc8785   number profile (default strict: a number whose canonical form would
                             denote a different value is an error; rfc8785 rounds like JCS)
  --max-bytes N              largest accepted input (default 16777216)
  --max-depth N              deepest accepted nesting (default 128)
  -h, --help                 this help
  -V, --version              the version

exit status: 0 success, 2 bad input (stderr: `error: <code>: <message>`), 64 usage error,
             74 I/O error";

/// Exit status for input the core rejects.
const EXIT_BAD_INPUT: u8 = 2;
/// Exit status for a malformed command line (sysexits EX_USAGE).
const EXIT_USAGE: u8 = 64;
/// Exit status for a file that cannot be read or output that cannot be written (EX_IOERR).
const EXIT_IO: u8 = 74;

enum Failure {
    Usage(String),
    Io(String),
    Input(Error),
}

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
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
    }
}

struct Args {
    command: String,
    file: Option<String>,
    options: Options,
}

fn parse_args(args: Vec<String>) -> Result<Option<Args>, Failure> {
    let mut options = Options::default();
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
