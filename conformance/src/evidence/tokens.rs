//! Time-stamp tokens over a vector's checkpoint text: the one stored in the vector while the
//! text is unchanged, else a new one from a throwaway TSA (`testing/tsa/`, openssl), so that
//! `regen --check` never needs openssl.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value as Json;

/// A stored RFC 3161 token for a checkpoint text, or a new one from a TSA; and the root it
/// chains to (standard base64 DER each).
pub trait Tokens {
    /// `(token, root)` time-stamping `text`, or why there is none.
    fn token(&mut self, name: &str, text: &str) -> Result<(String, String), String>;
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
}

/// A token over `text` from a throwaway TSA made by `testing/tsa/tsa.sh`, and its root.
fn fresh_token(text: &str) -> Result<(String, String), String> {
    use std::process::{Command, Stdio};
    let work = std::env::temp_dir().join(format!("actionseal-evidence-tsa-{}", std::process::id()));
    let tsa = crate::dir().join("../testing/tsa/tsa.sh");
    let run = |cmd: &mut Command| -> Result<(), String> {
        let out = cmd
            .stdout(Stdio::null())
            .output()
            .map_err(|e| format!("{cmd:?}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!("{cmd:?}: {}", String::from_utf8_lossy(&out.stderr)))
        }
    };
    let result = (|| {
        std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        run(Command::new("bash")
            .arg(&tsa)
            .arg("init")
            .arg(work.join("ca")))?;
        std::fs::write(work.join("data"), text).map_err(|e| e.to_string())?;
        run(Command::new("openssl")
            .args(["ts", "-query", "-sha256", "-cert", "-data"])
            .arg(work.join("data"))
            .arg("-out")
            .arg(work.join("query.tsq")))?;
        let query = std::fs::File::open(work.join("query.tsq")).map_err(|e| e.to_string())?;
        let reply = std::fs::File::create(work.join("reply.tsr")).map_err(|e| e.to_string())?;
        let status = Command::new("bash")
            .arg(&tsa)
            .args(["reply"])
            .arg(work.join("ca"))
            .arg("tsa_rsa")
            .stdin(query)
            .stdout(reply)
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err("tsa.sh reply failed".to_owned());
        }
        let token = std::fs::read(work.join("reply.tsr")).map_err(|e| e.to_string())?;
        let root = std::fs::read(work.join("ca/root.der")).map_err(|e| e.to_string())?;
        Ok((STANDARD.encode(token), STANDARD.encode(root)))
    })();
    let _ = std::fs::remove_dir_all(&work);
    result
}
