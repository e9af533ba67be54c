-- Version 1 to 2: the rows of the rebuilt tables copied into them (a lease is kept only
-- while its task is claimed; events are numbered chain by chain), then the old tables
-- replaced.
INSERT INTO ledger_tasks_v2 (id, tenant, job_id, request_id, state, action, action_digest,
  approval_required, cost_minor, idempotency_key, proposer, fence, round, approval_id,
  executor, lease_until, budget, reserved, result, created_at, updated_at, approval, revoked_at)
  SELECT t.id, t.tenant, t.job_id, t.request_id, t.state, t.action, t.action_digest,
  t.approval_required, t.cost_minor, t.idempotency_key, t.proposer, t.fence, t.round,
  t.approval_id, t.executor, CASE WHEN t.state = 'claimed' THEN t.lease_until END, t.budget,
  t.reserved, t.result, t.created_at, t.updated_at, a.record, a.revoked_at
  FROM ledger_tasks t LEFT JOIN ledger_approvals a ON a.approval_id = t.approval_id;
INSERT INTO ledger_approvals_v2 SELECT approval_id, task_id, round, decision_id, revoked_at
  FROM ledger_approvals;
INSERT INTO ledger_decisions_v2 SELECT decision_id, approval_id, envelope, recorded_at
  FROM ledger_decisions;
INSERT INTO ledger_events_v2 (chain, seq, at, tenant, task, kind, body, digest)
  SELECT chain, seq, at, tenant, task, kind, body, digest FROM ledger_events ORDER BY chain, seq;
DROP TABLE ledger_tasks;
DROP TABLE ledger_approvals;
DROP TABLE ledger_decisions;
DROP TABLE ledger_events;
ALTER TABLE ledger_tasks_v2 RENAME TO ledger_tasks;
ALTER TABLE ledger_approvals_v2 RENAME TO ledger_approvals;
ALTER TABLE ledger_decisions_v2 RENAME TO ledger_decisions;
ALTER TABLE ledger_events_v2 RENAME TO ledger_events;
