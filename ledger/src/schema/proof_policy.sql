-- Version 5 keeps what a decision is judged against in the database, for every handle:
-- - round_started_at, when the task began awaiting its current decision (an upgrade takes
--   updated_at, which no operation changes while a task awaits a decision except the ones
--   that start a round);
-- - proof, how the current round's decision was proven;
-- - ledger_policy, the proof requirement every handle on the database obeys (one row);
-- - ledger_passkeys, each passkey credential's last signature counter.
ALTER TABLE ledger_tasks ADD COLUMN round_started_at {int} NOT NULL DEFAULT 0;
UPDATE ledger_tasks SET round_started_at = updated_at;
ALTER TABLE ledger_tasks ADD COLUMN proof TEXT;
CREATE TABLE ledger_policy (
  id {int} PRIMARY KEY CHECK (id = 1), proof TEXT NOT NULL CHECK (proof IN ('optional', 'required')),
  changed_at {int} NOT NULL, changed_by TEXT NOT NULL);
INSERT INTO ledger_policy (id, proof, changed_at, changed_by) VALUES (1, 'optional', 0, 'ledger');
CREATE TABLE ledger_passkeys (
  credential_id TEXT PRIMARY KEY, sign_count {int} NOT NULL, updated_at {int} NOT NULL){lean};
