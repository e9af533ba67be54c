//! The witness's state: an append-only JSON Lines file of the checkpoints it cosigned; the
//! last line of an origin is its latest.

use actionseal_core::tlog::checkpoint::Checkpoint;
use actionseal_core::tlog::note::Note;
use actionseal_core::tlog::witness::{Latest, Request};
use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

pub struct State {
    file: File,
    latest: HashMap<String, Latest>,
}

impl State {
    /// Opens (or creates) the file and reads the latest checkpoint of each origin.
    pub fn open(path: &Path) -> Result<State, String> {
        let at = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .map_err(|e| at(&e))?;
        let mut latest = HashMap::new();
        for (n, line) in BufReader::new(&file).lines().enumerate() {
            let line = line.map_err(|e| at(&e))?;
            let record: Json = serde_json::from_str(&line).map_err(|e| at(&e))?;
            // The stored note is the log's signed checkpoint: its text is the one source of the
            // size and root, read by the same strict parser as a request.
            let note = Note::parse(record["note"].as_str().unwrap_or_default().as_bytes());
            let checkpoint = note
                .and_then(|n| Checkpoint::parse(n.text()))
                .map_err(|e| at(&format!("line {}: {e}", n + 1)))?;
            let entry = Latest {
                size: checkpoint.size(),
                root: *checkpoint.root(),
            };
            latest.insert(checkpoint.origin().to_owned(), entry);
        }
        Ok(State { file, latest })
    }

    /// The latest checkpoint cosigned for `origin`.
    pub fn latest(&self, origin: &str) -> Option<Latest> {
        self.latest.get(origin).copied()
    }

    /// Records an accepted checkpoint, on disk before it is used.
    pub fn append(
        &mut self,
        origin: &str,
        latest: Latest,
        request: &Request,
        cosignature: &str,
        at: u64,
    ) -> std::io::Result<()> {
        let record = json!({
            "origin": origin,
            "size": latest.size,
            "note": request.note().to_string(),
            "cosignature": cosignature,
            "at": at,
        });
        writeln!(self.file, "{record}")?;
        self.file.sync_data()?;
        self.latest.insert(origin.to_owned(), latest);
        Ok(())
    }
}
