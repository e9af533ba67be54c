-- The tables version 2 rebuilt (`{v}` is empty for a new ledger, `_v2` while upgrading).
CREATE TABLE ledger_tasks{v} (
  id TEXT NOT NULL PRIMARY KEY, tenant TEXT NOT NULL, job_id TEXT NOT NULL,
  request_id TEXT NOT NULL, state TEXT NOT NULL, action TEXT NOT NULL,
  action_digest TEXT NOT NULL, approval_required {int} NOT NULL, cost_minor {int} NOT NULL,
  idempotency_key TEXT NOT NULL, proposer TEXT NOT NULL, fence {int} NOT NULL,
  round {int} NOT NULL, approval_id TEXT, executor TEXT, lease_until {int}, budget TEXT,
  reserved {int} NOT NULL, result TEXT, created_at {int} NOT NULL, updated_at {int} NOT NULL,
  proposed_action TEXT, proposed_digest TEXT, amendments {int} NOT NULL DEFAULT 0,
  approval TEXT, revoked_at {int});
CREATE TABLE ledger_approvals{v} (
  approval_id TEXT NOT NULL PRIMARY KEY, task_id TEXT NOT NULL, round {int} NOT NULL,
  decision_id TEXT, revoked_at {int});
CREATE TABLE ledger_decisions{v} (
  decision_id TEXT NOT NULL PRIMARY KEY, approval_id TEXT NOT NULL, envelope TEXT NOT NULL,
  recorded_at {int} NOT NULL);
CREATE TABLE ledger_events{v} (
  id {serial}, chain {int} NOT NULL, seq {int} NOT NULL, at {int} NOT NULL,
  tenant TEXT NOT NULL, task TEXT, kind TEXT NOT NULL, body TEXT NOT NULL,
  digest TEXT NOT NULL);
