//! The last statement of an attempt on PostgreSQL, sent: its deferred writes and events
//! grouped by chain (`last` builds each statement), and what each write changed checked.

use super::attempt::{Attempt, Retry, TaskBasis};
use super::tx::{PgRow, PgTx, Transaction};
use super::{last, Failure};
use crate::store::{by_chain, storage, Cols, TaskRow, Write};
use actionseal_core::Error;
use postgres::error::SqlState;
use postgres::types::ToSql;

impl PgTx<'_> {
    /// Sends the deferred writes and the events, one statement per chain (the writes go with
    /// the first), and checks what each write changed.
    pub(super) fn flush(&mut self) -> std::result::Result<(), Failure> {
        let coded = |this: &mut Self, e: Error| match this.failed.take() {
            Some(d) => Failure::Driver(d),
            None => Failure::Coded(e),
        };
        let mut writes = std::mem::take(&mut self.writes);
        let chains = by_chain(std::mem::take(&mut self.events));
        // A task with events but no other write of its row still moves its last event.
        for e in chains.iter().flat_map(|(_, events)| events) {
            if let Some(task) = &e.task {
                if !writes.iter().any(|w| w.task_id() == Some(task)) {
                    writes.push(Write::Link(task.clone()));
                }
            }
        }
        // A free operation writes about the one task it read, with its events, in one
        // statement gated on the task being as read; anything else runs again under locks.
        // (A proposal that did not look for its task inserts it in a statement of its own,
        // which fails on an existing one.)
        let unseen = self.trust().task == TaskBasis::NotLooked;
        let gate = if matches!(self.attempt, Attempt::Free(_)) && !unseen {
            let gate = self.links.only().filter(|(task, _)| {
                chains.len() == 1
                    && writes.iter().all(|w| {
                        !matches!(w, Write::InsertTask(_)) && w.task_id().is_none_or(|t| t == *task)
                    })
            });
            match gate {
                Some((task, version)) => Some((task.to_owned(), version)),
                None => return Err(Failure::Again(Retry::Ungated)),
            }
        } else {
            None
        };
        // An operation that read nothing (a proposal that did not look for its task) or read
        // freely, and writes in one statement, needs no BEGIN and COMMIT: that statement is
        // its transaction. Anything longer runs in one.
        let alone = self.transaction == Transaction::Idle && chains.len() <= 1;
        // One statement per chain. A task's row goes with its events (the statement that
        // gives them their ids), the other writes with the first statement.
        let mut statements: Vec<(Option<last::Chain>, Vec<Write>)> =
            chains.into_iter().map(|c| (Some(c), Vec::new())).collect();
        if statements.is_empty() {
            statements.push((None, Vec::new()));
        }
        for w in writes {
            let home = w.task_id().and_then(|task| {
                statements.iter().position(|(chain, _)| {
                    chain.as_ref().is_some_and(|(_, events)| {
                        events.iter().any(|e| e.task.as_deref() == Some(task))
                    })
                })
            });
            statements[home.unwrap_or(0)].1.push(w);
        }
        for (chain, writes) in statements {
            if chain.is_none() && writes.is_empty() {
                return Ok(());
            }
            // What its commit will teach: a task row it writes whole, with the statement's
            // last event about it; any other task it touches is forgotten.
            let last_about = chain
                .as_ref()
                .and_then(|(_, events)| events.last())
                .and_then(|e| e.task.clone());
            let mut rows: Vec<TaskRow> = Vec::new();
            for w in &writes {
                match w {
                    Write::UpdateTask { row, .. } | Write::InsertTask(row) => {
                        rows.push(row.clone())
                    }
                    Write::PutApproval(a) => self.learned.round(a.clone()),
                    Write::Link(task) => self.learned.forget(task),
                    Write::InsertDecision { .. } | Write::PutLineage(_) => {}
                }
            }
            // An item's rows read freely are held to what was read, with the task's.
            let item = self.item_gate.as_ref().filter(|_| gate.is_some());
            let shape = last::shape(&writes, chain.as_ref(), unseen, gate.is_some(), item);
            let kept = self.shaped.get(&shape).cloned();
            // The text is built and prepared once per shape and session.
            let last = match last::statement(
                writes,
                chain,
                unseen,
                gate.as_ref()
                    .map(|(task, version)| (task.as_str(), *version)),
                item,
                kept.is_none(),
                &self.links,
                self.schema.sequence,
            ) {
                Ok(last) => last,
                Err(e) => return Err(coded(self, e)),
            };
            let params: Vec<&(dyn ToSql + Sync)> = last
                .params
                .iter()
                .map(|p| &**p as &(dyn ToSql + Sync))
                .collect();
            let st = match kept {
                Some(st) => Ok(st),
                None => self.prepared(&last.sql).inspect(|st| {
                    self.shaped.insert(shape, st.clone());
                }),
            };
            let sent = st
                .and_then(|st| {
                    if alone {
                        Ok(st)
                    } else {
                        self.begin().map(|()| st)
                    }
                })
                .and_then(|st| {
                    self.client
                        .query(&st, &params)
                        .map(|rows| rows.into_iter().map(PgRow).collect::<Vec<_>>())
                        .map_err(|e| self.fail(e))
                });
            let result = match sent {
                Ok(rows) => rows,
                Err(_) if unseen && self.failed.as_ref().is_some_and(exists) => {
                    // The proposal's task exists: run it again, looking this time.
                    return Err(Failure::Again(Retry::ProposalExists));
                }
                Err(e) => return Err(coded(self, e)),
            };
            let Some(row) = result.first() else {
                if let Some((task, _)) = &gate {
                    // The task changed since it was read (or remembered), and nothing was written.
                    self.in_flight.forget(task);
                    return Err(Failure::Again(Retry::Moved));
                }
                return Err(coded(self, storage("audit head", "missing")));
            };
            for (i, expect) in last.expect.iter().enumerate() {
                match (row.int(i), expect) {
                    (Ok(1), _) => {}
                    (Ok(0), last::Expect::New) => return Err(Failure::Again(Retry::RaceLost)),
                    (Ok(n), _) => {
                        return Err(coded(
                            self,
                            storage("write", format!("{n} rows changed where 1 was locked")),
                        ))
                    }
                    (Err(e), _) => return Err(coded(self, e)),
                }
            }
            if let (Attempt::Free(trust), Some(_)) = (&mut self.attempt, &gate) {
                if trust.task == TaskBasis::Remembered {
                    trust.task = TaskBasis::Proved;
                }
            }
            let last_event = match (&last_about, row.int(last.expect.len())) {
                (Some(_), Ok(id)) => Some(id),
                _ => None,
            };
            match (rows.as_slice(), last_event) {
                ([one], Some(id)) if last_about.as_deref() == Some(one.id.as_str()) => {
                    self.learned.task(rows.swap_remove(0), id)
                }
                _ => rows.iter().for_each(|r| self.learned.forget(&r.id)),
            }
        }
        Ok(())
    }
}

/// Whether an insert failed on a key that exists.
fn exists(e: &postgres::Error) -> bool {
    e.code() == Some(&SqlState::UNIQUE_VIOLATION)
}
