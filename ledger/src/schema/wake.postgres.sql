-- Version 8 wakes the ledger's waiters on PostgreSQL (Ledger::wait and the change feed, see
-- postgres/wake.rs): a statement that appends events notifies channel actionseal_tasks once
-- per task it wrote about, with the task id as the payload (an id the ledger derives, 37
-- bytes, far below NOTIFY's 8000; never anything of the action). NOTIFY is transactional: it
-- is delivered when the writing transaction commits and dropped if it rolls back.
CREATE FUNCTION ledger_events_wake() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN
  PERFORM pg_notify('actionseal_tasks', task)
    FROM (SELECT DISTINCT task FROM appended WHERE task IS NOT NULL) AS tasks;
  RETURN NULL;
END $$;
CREATE TRIGGER ledger_events_wake AFTER INSERT ON ledger_events
  REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION ledger_events_wake();
