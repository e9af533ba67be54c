-- Version 4 links each task's events into a list instead of indexing them by task (an index
-- entry, and on SQLite more than a page of the log, for every event): an event names the one
-- before it about its task (task_prev, 0 for none), and the task row names its last
-- (last_event, 0 for none), a row that nearly every operation writes anyway. A task's history
-- is read by primary key, from its last event back.
--
-- `{cutoff}` is the last event written before the upgrade (0 for a new ledger, or one without
-- events). The events up to it are not linked (task_prev is NULL) and keep their index by
-- task, now partial (see schema/mod.rs), so that no new event pays for it; the list of a task
-- holds only its events after the cutoff (its first one names 0), and its history reads the
-- older ones through that index. The cutoff is recorded in ledger_links. The CHECK refuses an
-- event without a link after the cutoff: an older build still running against an upgraded
-- ledger fails instead of writing events that no history would find.
ALTER TABLE ledger_tasks ADD COLUMN last_event {int} NOT NULL DEFAULT 0;
ALTER TABLE ledger_events ADD COLUMN task_prev {int} CHECK (task_prev IS NOT NULL OR id <= {cutoff});
CREATE TABLE ledger_links (cutoff {int} NOT NULL);
INSERT INTO ledger_links (cutoff) VALUES ({cutoff});
