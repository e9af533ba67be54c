-- The indexes of the rebuilt tables, and the table version 2 added.
CREATE INDEX ledger_tasks_leases ON ledger_tasks (lease_until) WHERE lease_until IS NOT NULL;
CREATE TABLE ledger_amendments (
  task_id TEXT NOT NULL, n {int} NOT NULL, amends TEXT NOT NULL, action TEXT NOT NULL,
  action_digest TEXT NOT NULL, reviewer TEXT NOT NULL, reason TEXT NOT NULL, at {int} NOT NULL,
  PRIMARY KEY (task_id, n)){lean};
