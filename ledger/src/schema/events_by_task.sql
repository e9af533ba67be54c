-- Versions 2 and 3 found a task's events through an index of every event by task; version 4
-- keeps it only for the events written before it (see link_events.sql).
CREATE INDEX ledger_events_task ON ledger_events (task, id);
