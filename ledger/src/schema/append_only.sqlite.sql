-- The triggers that keep ledger_events append-only on SQLite. Opening a ledger compares the
-- triggers it finds with these statements, as written (see sqlite/migrate.rs).
CREATE TRIGGER ledger_events_no_update BEFORE UPDATE ON ledger_events
BEGIN SELECT RAISE(ABORT, 'ledger_events is append-only'); END;
CREATE TRIGGER ledger_events_no_delete BEFORE DELETE ON ledger_events
BEGIN SELECT RAISE(ABORT, 'ledger_events is append-only'); END;
