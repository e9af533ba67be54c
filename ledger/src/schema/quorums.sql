-- Version 6 keeps what a quorum (issue 25) is judged by:
-- - contract, the contract document of a task whose approval needs a quorum or a separation
--   of duties (NULL for every other task, whose decisions are judged as they always were);
-- - ledger_round_decisions, each decision of a round under a quorum, numbered in the order
--   recorded (n), once per counting identity and once per decision id: its role, its record
--   (core's approval record, canonical) and how it was proven (as the task row's `proof`).
ALTER TABLE ledger_tasks ADD COLUMN contract TEXT;
CREATE TABLE ledger_round_decisions (
  approval_id TEXT NOT NULL, n {int} NOT NULL, decision_id TEXT NOT NULL,
  counted_as TEXT NOT NULL, role TEXT, decision TEXT NOT NULL, record TEXT NOT NULL, proof TEXT,
  decided_at {int} NOT NULL, recorded_at {int} NOT NULL,
  PRIMARY KEY (approval_id, n), UNIQUE (approval_id, counted_as), UNIQUE (decision_id)){lean};
