//! What a write transaction sends at its end: its events, each linked to the one before it
//! about its task, the chain heads they move, and the task rows it deferred.

use super::tx::SqliteTx;
use crate::store::{
    by_chain, digest_from, seal, storage, Cols, Head, TaskRow, Write, LAST_EVENT_AT, TASK_COLUMNS,
};
use crate::sync::locked;
use actionseal_core::ledger::State;
use actionseal_core::Result;
use rusqlite::params;
use std::sync::LazyLock;

/// A new task's row: its columns and its last event, one parameter each, in that order.
static INSERT_TASK: LazyLock<String> = LazyLock::new(|| {
    let params: Vec<String> = (1..=LAST_EVENT_AT + 1).map(|i| format!("?{i}")).collect();
    format!(
        "INSERT INTO ledger_tasks ({TASK_COLUMNS}, last_event) VALUES ({}) \
         ON CONFLICT DO NOTHING",
        params.join(", ")
    )
});

impl SqliteTx<'_> {
    /// Writes the queued events, each linked to the one before it about its task, then the
    /// task rows, each naming its last event (a task with events and no other write gets
    /// just that).
    pub(super) fn flush(&mut self) -> Result<()> {
        let mut moved: Vec<String> = Vec::new();
        for (chain, mut events) in by_chain(std::mem::take(&mut self.events)) {
            let guess = locked(self.heads).get(&chain).copied();
            let head = match guess {
                Some(head) => head,
                None => self.head(chain)?,
            };
            let (mut sealed, mut moved_to) = seal(&mut events, head)?;
            if !self.move_head(chain, head, moved_to)? {
                // Another connection moved it since: read it, and seal again after it.
                let head = self.head(chain)?;
                (sealed, moved_to) = seal(&mut events, head)?;
                if guess.is_none() || !self.move_head(chain, head, moved_to)? {
                    return Err(storage(
                        "audit head",
                        format!("chain {chain} moved while locked"),
                    ));
                }
            }
            self.moved_heads.push((chain, moved_to));
            for (e, (seq, text, digest)) in events.iter().zip(&sealed) {
                let prev = match &e.task {
                    Some(task) => self.links.last(task)?,
                    None => 0,
                };
                self.exec(
                    "INSERT INTO ledger_events (chain, seq, at, tenant, task, kind, body, digest, \
                     task_prev) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![
                        chain,
                        seq,
                        e.at,
                        e.tenant,
                        e.task,
                        e.kind.as_str(),
                        text,
                        digest.text().as_str(),
                        prev
                    ],
                )?;
                if let Some(task) = &e.task {
                    self.links.set(task, self.tx.last_insert_rowid());
                    if !moved.contains(task) {
                        moved.push(task.clone());
                    }
                }
            }
        }
        for w in std::mem::take(&mut self.writes) {
            let (n, id) = match w {
                Write::UpdateTask { row, expect, fence } => {
                    (self.update(&row, expect, fence)?, row.id)
                }
                Write::InsertTask(row) => (self.insert(&row)?, row.id),
                _ => return Err(storage("write", "only task rows are deferred")),
            };
            if n != 1 {
                return Err(storage("task write", format!("{id} changed while locked")));
            }
            moved.retain(|t| *t != id);
        }
        for task in moved {
            let n = self.exec(
                "UPDATE ledger_tasks SET last_event = ?1 WHERE id = ?2",
                params![self.links.last(&task)?, task],
            )?;
            if n != 1 {
                return Err(storage(
                    "task write",
                    format!("{task} vanished while locked"),
                ));
            }
        }
        Ok(())
    }

    /// A chain's head as stored.
    fn head(&self, chain: i64) -> Result<Head> {
        let (seq, digest) = self
            .row(
                "SELECT seq, digest FROM ledger_head WHERE chain = ?1",
                params![chain],
                |r| Ok((r.int(0)?, r.opt_text(1)?)),
            )?
            .ok_or_else(|| storage("audit head", format!("chain {chain} has none")))?;
        Ok((seq, digest.as_deref().map(digest_from).transpose()?))
    }

    /// Moves a chain's head from `from` to `to`; false (nothing written) if it is no longer
    /// at `from`.
    fn move_head(&self, chain: i64, from: Head, to: Head) -> Result<bool> {
        let (to_digest, from_digest) = (to.1.map(|d| d.text()), from.1.map(|d| d.text()));
        let n = self.exec(
            "UPDATE ledger_head SET seq = ?1, digest = ?2 WHERE chain = ?3 AND seq = ?4 \
             AND digest IS ?5",
            params![
                to.0,
                to_digest.as_ref().map(|d| d.as_str()),
                chain,
                from.0,
                from_digest.as_ref().map(|d| d.as_str())
            ],
        )?;
        Ok(n == 1)
    }

    fn insert(&self, t: &TaskRow) -> Result<usize> {
        self.exec(
            &INSERT_TASK,
            params![
                t.id,
                t.tenant,
                t.job_id,
                t.request_id,
                t.state.as_str(),
                t.action,
                t.action_digest.to_string(),
                i64::from(t.approval_required),
                t.cost_minor,
                t.idempotency_key,
                t.proposer,
                t.fence,
                t.round,
                t.approval_id,
                t.executor,
                t.lease_until,
                t.budget,
                t.reserved,
                t.result,
                t.created_at,
                t.updated_at,
                t.proposed_action,
                t.proposed_digest.map(|d| d.to_string()),
                t.amendments,
                t.approval,
                t.revoked_at,
                t.round_started_at,
                t.proof,
                t.contract,
                self.links.last(&t.id)?
            ],
        )
    }

    fn update(&self, t: &TaskRow, expect: State, expect_fence: i64) -> Result<usize> {
        self.exec(
            "UPDATE ledger_tasks SET state = ?1, fence = ?2, round = ?3, approval_id = ?4, \
             executor = ?5, lease_until = ?6, budget = ?7, reserved = ?8, result = ?9, \
             updated_at = ?10, approval = ?11, revoked_at = ?12, last_event = ?13, \
             round_started_at = ?14, proof = ?15 WHERE id = ?16 AND state = ?17 AND fence = ?18",
            params![
                t.state.as_str(),
                t.fence,
                t.round,
                t.approval_id,
                t.executor,
                t.lease_until,
                t.budget,
                t.reserved,
                t.result,
                t.updated_at,
                t.approval,
                t.revoked_at,
                self.links.last(&t.id)?,
                t.round_started_at,
                t.proof,
                t.id,
                expect.as_str(),
                expect_fence
            ],
        )
    }
}
