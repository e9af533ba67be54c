//! Truncating a ledger file's write-ahead log after a shredding (issue 29): its older frames
//! still hold pages as they were before the values went.

use super::{is_busy, sql_error, Sqlite};
use actionseal_core::Result;
use std::time::Duration;

/// How often a truncation that finds the log busy (a reader, the background checkpointer) is
/// tried before it is reported.
const TRIES: u32 = 50;

impl Sqlite {
    /// Copies the whole log into the file and truncates it to nothing (an in-memory ledger
    /// has none). A log that stays busy is [`actionseal_core::Code::LedgerUnavailable`]: the values
    /// are gone from the file, and the next run truncates the log.
    pub(crate) fn truncate_log(&self) -> Result<()> {
        if !self.is_file() {
            return Ok(());
        }
        for _ in 0..TRIES {
            let busy: i64 = self.with_conn(|c| {
                c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))
                    .or_else(|e| if is_busy(&e) { Ok(1) } else { Err(e) })
                    .map_err(|e| sql_error("truncate log", e))
            })?;
            if busy == 0 {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Err(actionseal_core::Error::new(
            actionseal_core::Code::LedgerUnavailable,
            "the write-ahead log stayed in use: the shredded values are gone from the ledger \
             file, and the next redaction or retention run truncates the log",
        ))
    }
}
