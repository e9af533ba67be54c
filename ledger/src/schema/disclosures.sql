-- Version 11 keeps sensitive values apart (issue 29):
-- - ledger_disclosures, one row per sensitive place of a task's frozen action: its class and
--   its disclosure (core's base64url text), the only place a sensitive value is stored. The
--   task row, the approval record and the audit hold the commitment. Shredding sets
--   `disclosure` to NULL and dates it (`shredded_at`): the row stays, so that a claim can tell
--   a shredded task from one that never had values, and says which place and class went;
-- - ledger_retention, how long each tenant's disclosures of a class are kept (`keep_ms` after
--   the proposal, NULL: until redacted) and whether they go as soon as the task finishes
--   (`at_finish`: keep or shred).
CREATE TABLE ledger_disclosures (
  task_id TEXT NOT NULL, pointer TEXT NOT NULL, tenant TEXT NOT NULL, class TEXT NOT NULL,
  disclosure TEXT, created_at {int} NOT NULL, shredded_at {int},
  PRIMARY KEY (task_id, pointer)){lean};
CREATE INDEX ledger_disclosures_held ON ledger_disclosures (tenant, class, created_at)
  WHERE disclosure IS NOT NULL;
CREATE TABLE ledger_retention (
  tenant TEXT NOT NULL, class TEXT NOT NULL, keep_ms {int},
  at_finish TEXT NOT NULL CHECK (at_finish IN ('keep', 'shred')),
  changed_at {int} NOT NULL, changed_by TEXT NOT NULL,
  PRIMARY KEY (tenant, class)){lean};
