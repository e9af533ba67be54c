//! An example C2SP tlog-witness (c2sp.org/tlog-witness): `POST /add-checkpoint` cosigns a
//! log's checkpoint when it is consistent with the last one this witness cosigned; `GET /`
//! answers a health line. Every rule is actionseal-core's `tlog::witness::add_checkpoint`;
//! this binary only speaks HTTP/1.1 and keeps the state.
//!
//! Usage: `witness CONFIG.json`, where the configuration is
//!
//! ```json
//! {"listen": "127.0.0.1:8080", "signer_key_file": "witness.key", "state_file": "state.jsonl",
//!  "logs": [{"origin": "log.example/audit", "keys": ["log.example/audit+5f02ff6d+AYqI..."]}]}
//! ```
//!
//! `signer_key_file` holds the witness's signer key string (`PRIVATE+KEY+...`, Go's note
//! format); `state_file` is an append-only JSON Lines log of the accepted checkpoints, one
//! `{"origin", "size", "note", "cosignature", "at"}` per line, the last line of an
//! origin being its latest. On start the binary prints `listening on <address>` and
//! `verifier <key>` (the type-0x04 verifier key clients configure).
//!
//! Requests are served one at a time: checking the old size against the latest state and
//! storing the new one are then atomic, as the specification requires, and the state is
//! flushed to disk before the answer. An example, not a hardened server: no TLS, no keep-alive.

mod http;
mod state;

use actionseal_core::tlog::cosignature::Cosigner;
use actionseal_core::tlog::note::{SignerKey, VerifierKey};
use actionseal_core::tlog::witness::{add_checkpoint, Log, Refusal, Request};
use http::Response;
use serde_json::Value as Json;
use state::State;
use std::net::TcpListener;
use std::time::{SystemTime, UNIX_EPOCH};
use std::{env, fs, process};

fn main() {
    if let Err(e) = run() {
        eprintln!("witness: {e}");
        process::exit(1);
    }
}

struct Witness {
    cosigner: Cosigner,
    logs: Vec<Log>,
    state: State,
}

fn run() -> Result<(), String> {
    let path = env::args().nth(1).ok_or("usage: witness CONFIG.json")?;
    let config: Json = fs::read_to_string(&path)
        .map_err(|e| format!("{path}: {e}"))
        .and_then(|t| serde_json::from_str(&t).map_err(|e| format!("{path}: {e}")))?;
    let text = |key: &str| {
        config[key]
            .as_str()
            .ok_or_else(|| format!("{path}: {key} is not a string"))
    };
    let key_file = text("signer_key_file")?;
    let key = fs::read_to_string(key_file).map_err(|e| format!("{key_file}: {e}"))?;
    let key = SignerKey::parse(key.trim_end()).map_err(|e| format!("{key_file}: {e}"))?;
    let mut witness = Witness {
        cosigner: Cosigner::new(key),
        logs: logs(&config["logs"]).map_err(|e| format!("{path}: logs: {e}"))?,
        state: State::open(text("state_file")?.as_ref())?,
    };
    let listener = TcpListener::bind(text("listen")?).map_err(|e| e.to_string())?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    println!("listening on {address}");
    println!("verifier {}", witness.cosigner.verifier());
    for stream in listener.incoming().flatten() {
        let response = match http::read(&stream) {
            Ok((method, target, body)) => witness.serve(&method, &target, &body),
            Err(response) => response,
        };
        response.write(&stream);
    }
    Ok(())
}

fn logs(config: &Json) -> Result<Vec<Log>, String> {
    let logs = config.as_array().ok_or("not an array")?;
    logs.iter()
        .map(|log| {
            let origin = log["origin"].as_str().ok_or("a log without an origin")?;
            let keys = log["keys"].as_array().ok_or("a log without keys")?;
            let keys = keys
                .iter()
                .map(|k| VerifierKey::parse(k.as_str().unwrap_or_default()))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?;
            Ok(Log::new(origin, keys))
        })
        .collect()
}

impl Witness {
    fn serve(&mut self, method: &str, target: &str, body: &[u8]) -> Response {
        match (method, target) {
            ("GET", "/") => Response::text(200, "text/plain; charset=utf-8", self.health()),
            ("POST", "/add-checkpoint") => match self.add(body) {
                Ok(line) => Response::text(200, "text/plain; charset=utf-8", line),
                Err(response) => response,
            },
            (_, "/" | "/add-checkpoint") => {
                Response::text(405, "text/plain", "method not allowed\n".into())
            }
            _ => Response::text(404, "text/plain", "not found\n".into()),
        }
    }

    fn health(&self) -> String {
        format!(
            "actionseal example witness {}: {} logs\n",
            self.cosigner.name(),
            self.logs.len()
        )
    }

    /// The cosignature line, or the refusal; the new state is on disk before it is returned.
    fn add(&mut self, body: &[u8]) -> Result<String, Response> {
        let refused = |r: Refusal| Response::text(r.status(), r.content_type(), r.body());
        let request = Request::parse(body).map_err(|e| refused(Refusal::malformed(e)))?;
        let log = Log::find(&self.logs, &request).map_err(refused)?;
        let latest = self.state.latest(log.origin());
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let cosigned =
            add_checkpoint(log, latest, &request, &self.cosigner, now).map_err(refused)?;
        let line = cosigned.cosignature.to_string();
        let stored = self
            .state
            .append(log.origin(), cosigned.latest, &request, &line, now);
        stored.map_err(|e| {
            eprintln!("witness: cannot store the state: {e}");
            Response::text(
                500,
                "text/plain",
                "the witness cannot store its state\n".into(),
            )
        })?;
        Ok(line)
    }
}
