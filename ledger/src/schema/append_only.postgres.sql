-- The triggers that keep ledger_events append-only on PostgreSQL. Opening a ledger compares
-- the triggers and the function it finds with these (see postgres/migrate.rs).
CREATE OR REPLACE FUNCTION ledger_events_append_only() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'ledger_events is append-only'; END $$;
CREATE TRIGGER ledger_events_no_change BEFORE UPDATE OR DELETE ON ledger_events
  FOR EACH ROW EXECUTE FUNCTION ledger_events_append_only();
CREATE TRIGGER ledger_events_no_truncate BEFORE TRUNCATE ON ledger_events
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_events_append_only();
