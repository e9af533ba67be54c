-- Version 9 keeps batches (issue 28):
-- - ledger_batches, one row per batch a decision may bind: its frozen header (core's batch
--   document, canonical) and its digest, the model's proposed digest (kept through the
--   reviewer's deselections), the items' task ids in the header's order and as proposed
--   (canonical JSON arrays), its semantics, its approval id, its state (a task's states:
--   awaiting_approval, approved, rejected), its decision record and how that was proven, and
--   the contract document (canonical) whose batch policy sets its caps and breaker;
-- - ledger_batch_lineages, the caps' running totals and the breaker (core's JSON), shared by a
--   batch and every remainder re-approved after a trip: the lineage's id is its first
--   batch's, `current` the batch whose items may be claimed, `generation` how many batches
--   the lineage has had;
-- - ledger_batch_items, the lineage of each item task (it never changes), read before the
--   task is locked so that every operation on a batch locks its lineage first; its place in
--   the batch it was proposed in, and, once a batch's decision approves it, that batch and
--   the item's inclusion proof in it (core's JSON), which its claim checks.
CREATE TABLE ledger_batches (
  id TEXT PRIMARY KEY, lineage TEXT NOT NULL, tenant TEXT NOT NULL, semantics TEXT NOT NULL,
  header TEXT NOT NULL, digest TEXT NOT NULL, proposed_digest TEXT NOT NULL,
  items TEXT NOT NULL, proposed_items TEXT NOT NULL, amendments {int} NOT NULL,
  state TEXT NOT NULL, approval_id TEXT NOT NULL UNIQUE, decision_id TEXT, record TEXT,
  proof TEXT, contract TEXT NOT NULL, proposer TEXT NOT NULL, created_at {int} NOT NULL,
  updated_at {int} NOT NULL){lean};
CREATE TABLE ledger_batch_lineages (
  id TEXT PRIMARY KEY, current TEXT NOT NULL, generation {int} NOT NULL, totals TEXT NOT NULL,
  breaker TEXT NOT NULL, updated_at {int} NOT NULL){lean};
CREATE TABLE ledger_batch_items (
  task_id TEXT PRIMARY KEY, lineage TEXT NOT NULL, idx {int} NOT NULL, batch TEXT,
  proof TEXT){lean};
