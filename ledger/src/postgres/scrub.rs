//! Vacuuming a table after a shredding (issue 29): PostgreSQL keeps an updated row's old
//! version, with the value it held, as a dead tuple until VACUUM reclaims it.

use super::{pg_error, Postgres};
use actionseal_core::Result;

impl Postgres {
    /// `VACUUM table` on a connection of its own (VACUUM runs outside any transaction).
    /// `table` is one of the ledger's own names, never a caller's.
    pub(crate) fn vacuum(&self, table: &'static str) -> Result<()> {
        let mut conn = self.take()?;
        let out = conn
            .client
            .batch_execute(&format!("VACUUM {table}"))
            .map_err(|e| pg_error("vacuum", &e));
        self.give_back(conn);
        out
    }
}
