//! Time-stamp tokens over a vector's checkpoint text: the one stored in the vector while the
//! text is unchanged, else a new one from a throwaway TSA (`testing/tsa/`, openssl), so that
//! `regen --check` never needs openssl.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value as Json;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A stored RFC 3161 token for a checkpoint text, or a new one from a TSA; and the root it
/// chains to (standard base64 DER each).
pub trait Tokens {
    /// `(token, root)` time-stamping `text`, or why there is none.
    fn token(&mut self, name: &str, text: &str) -> Result<(String, String), String>;

    /// A TSA for the ledger of vector `name`, which stamps its decisions and checkpoints as
    /// it runs: the tokens the stored file holds, by the data they time-stamp, or with
    /// `fresh` a new throwaway TSA.
    fn stamps(&mut self, name: &str, fresh: bool) -> Result<Stamps, String>;
}

/// The tokens of the stored vectors, and a TSA (`testing/tsa/`, openssl) for a checkpoint
/// text none of them time-stamps; with `check`, never the TSA (a new token is a change).
pub struct Kept {
    /// Whether regen only checks.
    pub check: bool,
}

impl Tokens for Kept {
    fn token(&mut self, name: &str, text: &str) -> Result<(String, String), String> {
        let path = crate::dir().join(format!("vectors/evidence/{name}.json"));
        let stored: Option<Json> = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        if let Some(v) = stored {
            let note = v["bundle"]["checkpoint"]["note"].as_str().unwrap_or("");
            let token = v["bundle"]["checkpoint"]["timestamp"].as_str();
            let root = v["trust"]["tsa_roots"][0].as_str();
            let same = note
                .split_once("\n\n")
                .is_some_and(|(t, _)| format!("{t}\n") == text);
            if let (true, Some(token), Some(root)) = (same, token, root) {
                return Ok((token.to_owned(), root.to_owned()));
            }
        }
        if self.check {
            return Err(format!(
                "{name}: the checkpoint's text changed, so its time-stamp token must be made \
                 again: run regen (it needs openssl) and commit"
            ));
        }
        fresh_token(text)
    }

    fn stamps(&mut self, name: &str, fresh: bool) -> Result<Stamps, String> {
        if fresh && self.check {
            return Err(format!(
                "{name}: what its TSA time-stamps changed, so its tokens must be made again: \
                 run regen (it needs openssl) and commit"
            ));
        }
        if fresh {
            let ca = Ca::new()?;
            return Ok(Stamps {
                root: Some(ca.root()?),
                from: From::Tsa(ca),
                missed: None,
            });
        }
        let path = crate::dir().join(format!("vectors/evidence/{name}.json"));
        let stored: Json = match std::fs::read_to_string(&path) {
            Ok(t) => serde_json::from_str(&t).map_err(|e| format!("{name}: {e}"))?,
            Err(_) => Json::Null,
        };
        Ok(Stamps {
            root: stored["trust"]["tsa_roots"][0]
                .as_str()
                .and_then(|r| STANDARD.decode(r).ok()),
            from: From::Kept(kept(&stored["bundle"])),
            missed: None,
        })
    }
}

/// The tokens of a stored bundle, by the data they time-stamp: the checkpoint's text, and
/// each decided event's canonical proof.
fn kept(bundle: &Json) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut kept = Vec::new();
    let note = bundle["checkpoint"]["note"].as_str().unwrap_or("");
    let token = bundle["checkpoint"]["timestamp"].as_str();
    if let (Some((text, _)), Some(token)) = (note.split_once("\n\n"), token) {
        if let Ok(der) = STANDARD.decode(token) {
            kept.push((format!("{text}\n").into_bytes(), der));
        }
    }
    for entry in bundle["events"].as_array().into_iter().flatten() {
        let detail = &entry["event"]["detail"];
        let (Some(proof), Some(token)) = (detail.get("proof"), detail["timestamp"].as_str()) else {
            continue;
        };
        let der = actionseal_core::base64url_decode(token);
        if let (Ok(proof), Ok(der)) = (crate::decisions::to_core(proof), der) {
            kept.push((actionseal_core::canonicalize(&proof).into_bytes(), der));
        }
    }
    kept
}

/// Where a ledger's tokens come from.
enum From {
    /// A stored vector's, by the data they time-stamp.
    Kept(Vec<(Vec<u8>, Vec<u8>)>),
    /// A throwaway TSA's.
    Tsa(Ca),
}

/// A ledger's TSA answering from [`Stamps`], and what it answers with.
pub struct Answering {
    /// The TSA, for [`actionseal_ledger::LedgerOptions::tsa`].
    pub tsa: actionseal_ledger::Tsa,
    /// The stamps it answers from (to ask whether one was missed).
    pub stamps: Arc<Mutex<Stamps>>,
    /// The root its tokens chain to (standard base64).
    pub root: String,
}

/// The tokens a ledger gets as it runs ([`Stamps::tsa`]), and whether one was not kept.
pub struct Stamps {
    from: From,
    root: Option<Vec<u8>>,
    missed: Option<String>,
}

impl Stamps {
    /// A ledger's TSA answering from these stamps; `None` when nothing is kept.
    pub fn tsa(self) -> Result<Option<Answering>, String> {
        let Some(root) = self.root.clone() else {
            return Ok(None);
        };
        let shared = Arc::new(Mutex::new(self));
        let answering = Arc::clone(&shared);
        let tsa = actionseal_ledger::Tsa::answered_by(vec![root.clone()], None, move |data| {
            let mut s = answering.lock().unwrap_or_else(|p| p.into_inner());
            s.answer(data).map_err(|why| {
                actionseal_core::Error::new(actionseal_core::Code::TimestampUnavailable, why)
            })
        })
        .map_err(|e| e.to_string())?;
        Ok(Some(Answering {
            tsa,
            stamps: shared,
            root: STANDARD.encode(root),
        }))
    }

    /// Why a token asked for was not kept, if one was not.
    pub fn missed(&self) -> Option<&str> {
        self.missed.as_deref()
    }

    fn answer(&mut self, data: &[u8]) -> Result<Vec<u8>, String> {
        let token = match &self.from {
            From::Kept(kept) => kept.iter().find(|(d, _)| d == data).map(|(_, t)| t.clone()),
            From::Tsa(ca) => {
                let reply = ca.stamp(data)?;
                Some(actionseal_core::timestamp::token_of(&reply).map_err(|e| e.to_string())?)
            }
        };
        token.ok_or_else(|| {
            let why = format!(
                "no kept token time-stamps {}",
                String::from_utf8_lossy(&data[..data.len().min(40)])
            );
            self.missed.get_or_insert(why.clone());
            why
        })
    }
}

/// A token over `text` from a throwaway TSA made by `testing/tsa/tsa.sh`, and its root.
fn fresh_token(text: &str) -> Result<(String, String), String> {
    let ca = Ca::new()?;
    Ok((
        STANDARD.encode(ca.stamp(text.as_bytes())?),
        STANDARD.encode(ca.root()?),
    ))
}

/// A throwaway TSA (`testing/tsa/tsa.sh init`) in a temporary directory, removed when dropped.
pub(super) struct Ca {
    work: PathBuf,
}

impl Ca {
    pub(super) fn new() -> Result<Ca, String> {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let work = std::env::temp_dir().join(format!(
            "actionseal-evidence-tsa-{}-{n}",
            std::process::id()
        ));
        std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        let ca = Ca { work };
        run(Command::new("bash")
            .arg(tsa_sh())
            .arg("init")
            .arg(ca.work.join("ca")))?;
        Ok(ca)
    }

    /// The DER root certificate its tokens chain to.
    pub(super) fn root(&self) -> Result<Vec<u8>, String> {
        std::fs::read(self.work.join("ca/root.der")).map_err(|e| e.to_string())
    }

    /// A DER TimeStampToken over `data` (SHA-256 imprint, no nonce), from `openssl ts`.
    pub(super) fn stamp(&self, data: &[u8]) -> Result<Vec<u8>, String> {
        let w = &self.work;
        std::fs::write(w.join("data"), data).map_err(|e| e.to_string())?;
        run(Command::new("openssl")
            .args(["ts", "-query", "-sha256", "-cert", "-no_nonce", "-data"])
            .arg(w.join("data"))
            .arg("-out")
            .arg(w.join("query.tsq")))?;
        let query = std::fs::File::open(w.join("query.tsq")).map_err(|e| e.to_string())?;
        let reply = std::fs::File::create(w.join("reply.tsr")).map_err(|e| e.to_string())?;
        let status = Command::new("bash")
            .arg(tsa_sh())
            .args(["reply"])
            .arg(w.join("ca"))
            .arg("tsa_rsa")
            .stdin(query)
            .stdout(reply)
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err("tsa.sh reply failed".to_owned());
        }
        std::fs::read(w.join("reply.tsr")).map_err(|e| e.to_string())
    }
}

impl Drop for Ca {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.work);
    }
}

fn tsa_sh() -> PathBuf {
    crate::dir().join("../testing/tsa/tsa.sh")
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?}: {}", String::from_utf8_lossy(&out.stderr)))
    }
}
