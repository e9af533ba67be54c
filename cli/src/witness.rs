//! Publishing the ledger's checkpoint (`ledger audit checkpoint --witness ...`): to a file kept
//! elsewhere (`file:PATH`), or to a C2SP tlog-witness over HTTP (c2sp.org/tlog-witness:
//! `POST <prefix>/add-checkpoint`), whose cosignature the ledger verifies and keeps. Every rule
//! is core's (`tlog::witness`) and the ledger's; this module only speaks HTTP/1.1.

use crate::Failure;
use actionseal_core::tlog::note::VerifierKey;
use actionseal_core::tlog::witness::{parse_cosignatures, parse_latest_size};
use actionseal_ledger::{Checkpoint, Ledger};
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// How long a witness may take to connect, and to answer.
const CONNECT: Duration = Duration::from_secs(10);
const ANSWER: Duration = Duration::from_secs(30);
/// The most a witness's answer may hold: cosignature lines or a size.
const MAX_ANSWER: u64 = 64 * 1024;
/// How many times a witness that answers 409 (its size is not the one asked from) is asked
/// again from the size it names.
const CONFLICTS: usize = 3;

/// Publishes `checkpoint` to each of `witnesses`, the HTTP witnesses first (so that the files
/// hold their cosignatures); returns it with the cosignatures kept.
pub(crate) fn publish(
    l: &Ledger,
    mut checkpoint: Checkpoint,
    witnesses: &[String],
    keys: &[VerifierKey],
) -> Result<Checkpoint, Failure> {
    let mut files = Vec::new();
    for w in witnesses {
        if let Some(path) = w.strip_prefix("file:") {
            files.push(path);
        } else if let Some(rest) = w.strip_prefix("http://") {
            checkpoint = cosign(l, &checkpoint, w, rest, keys)?;
        } else {
            return Err(Failure::Usage(format!(
                "a witness is file:PATH or http://HOST[:PORT][/PREFIX], not {w:?} (TLS is not \
                 built in: reach an https witness through a local TLS proxy)"
            )));
        }
    }
    for path in files {
        std::fs::write(path, checkpoint.cosigned_note())
            .map_err(|e| Failure::Io(format!("cannot write {path}: {e}")))?;
    }
    Ok(checkpoint)
}

/// Asks the witness at `url` (`rest` after the scheme) to cosign, from size 0 or the size its
/// 409 answers name, and keeps its cosignature when one of `keys` made it.
fn cosign(
    l: &Ledger,
    checkpoint: &Checkpoint,
    url: &str,
    rest: &str,
    keys: &[VerifierKey],
) -> Result<Checkpoint, Failure> {
    let bad = |e: actionseal_core::Error| Failure::InputIn(url.to_owned(), e);
    let mut old = 0;
    for _ in 0..=CONFLICTS {
        let body = l
            .witness_request(old)
            .map_err(crate::ledger::exit::fail)?
            .to_string();
        let (status, answer) =
            post(rest, &body).map_err(|e| Failure::Io(format!("witness {url}: {e}")))?;
        match status {
            200 => {
                let lines = parse_cosignatures(&answer).map_err(bad)?;
                let key = keys
                    .iter()
                    .find(|k| {
                        lines
                            .iter()
                            .any(|s| (s.name(), s.id()) == (k.name(), k.id()))
                    })
                    .ok_or_else(|| {
                        Failure::Usage(format!(
                            "witness {url} cosigned as {}, whose key --witness-key does not list",
                            lines.first().map_or("", |s| s.name())
                        ))
                    })?;
                let mine: Vec<_> = lines
                    .into_iter()
                    .filter(|s| (s.name(), s.id()) == (key.name(), key.id()))
                    .collect();
                return l
                    .add_cosignatures(checkpoint.size, key, &mine)
                    .map_err(crate::ledger::exit::fail);
            }
            409 => old = parse_latest_size(&answer).map_err(bad)?,
            _ => {
                let text = String::from_utf8_lossy(&answer);
                return Err(Failure::Io(format!(
                    "witness {url} refused the checkpoint of {} leaves ({status}): {}",
                    checkpoint.size,
                    text.trim().chars().take(300).collect::<String>()
                )));
            }
        }
    }
    Err(Failure::Io(format!(
        "witness {url} kept naming another size to prove the checkpoint from"
    )))
}

/// POSTs `body` to `<prefix>/add-checkpoint` at `rest` (`HOST[:PORT][/PREFIX]`): the status
/// and the body of the answer.
fn post(rest: &str, body: &str) -> Result<(u16, Vec<u8>), String> {
    let (authority, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let prefix = prefix.trim_end_matches('/');
    let path = if prefix.is_empty() {
        "/add-checkpoint".to_owned()
    } else {
        format!("/{prefix}/add-checkpoint")
    };
    let target = if authority.contains(':') {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    let addr = target
        .to_socket_addrs()
        .map_err(|e| e.to_string())?
        .next()
        .ok_or("no address")?;
    let mut stream = TcpStream::connect_timeout(&addr, CONNECT).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(ANSWER))
        .map_err(|e| e.to_string())?;
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    stream
        .take(MAX_ANSWER + 16 * 1024)
        .read_to_end(&mut answer)
        .map_err(|e| e.to_string())?;
    answer_of(&answer)
}

/// The status and body of an HTTP/1.1 answer read to its end.
fn answer_of(answer: &[u8]) -> Result<(u16, Vec<u8>), String> {
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("an answer without a header")?;
    let head = String::from_utf8_lossy(&answer[..split]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("an answer without a status")?;
    let mut body = answer[split + 4..].to_vec();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err("a chunked answer, which this client does not read".into());
        }
        if name.eq_ignore_ascii_case("content-length") {
            let n: usize = value.trim().parse().map_err(|_| "a bad Content-Length")?;
            if n > body.len() {
                return Err("an answer shorter than its Content-Length".into());
            }
            body.truncate(n);
        }
    }
    if body.len() as u64 > MAX_ANSWER {
        return Err("an answer too large for a witness's".into());
    }
    Ok((status, body))
}
