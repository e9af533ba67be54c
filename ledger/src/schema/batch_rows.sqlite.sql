-- Version 10 (SQLite only) stores a batch's and an item's rows so that an item's claim reads
-- them without walking chains of overflow pages. SQLite keeps a row's first bytes on its
-- b-tree page and the rest on a chain of overflow pages (2,044 bytes each with 2 KiB pages),
-- and reading a column walks the chain up to it, one page read at a time:
-- - a batch's item lists (every item's task id twice, about 80 KB at 1,000 items) go last,
--   so that the head an item's operation reads (`batch_head`, about 1.7 KB) ends within the
--   row's first overflow page, where before it the claim walked about 40 of them;
-- - both tables keep a rowid: a WITHOUT ROWID row spills past 487 bytes of a 2 KiB page, a
--   rowid table's past 2,013, so an item's row (its inclusion proof of ten hashes, about
--   600 bytes) is read from its b-tree page alone.
CREATE TABLE ledger_batches_v10 (
  id TEXT PRIMARY KEY, lineage TEXT NOT NULL, tenant TEXT NOT NULL, semantics TEXT NOT NULL,
  header TEXT NOT NULL, digest TEXT NOT NULL, proposed_digest TEXT NOT NULL,
  amendments INTEGER NOT NULL, state TEXT NOT NULL, approval_id TEXT NOT NULL UNIQUE,
  decision_id TEXT, record TEXT, proof TEXT, contract TEXT NOT NULL, proposer TEXT NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, items TEXT NOT NULL,
  proposed_items TEXT NOT NULL);
INSERT INTO ledger_batches_v10 (id, lineage, tenant, semantics, header, digest,
  proposed_digest, amendments, state, approval_id, decision_id, record, proof, contract,
  proposer, created_at, updated_at, items, proposed_items)
  SELECT id, lineage, tenant, semantics, header, digest, proposed_digest, amendments, state,
  approval_id, decision_id, record, proof, contract, proposer, created_at, updated_at, items,
  proposed_items FROM ledger_batches;
DROP TABLE ledger_batches;
ALTER TABLE ledger_batches_v10 RENAME TO ledger_batches;
CREATE TABLE ledger_batch_items_v10 (
  task_id TEXT PRIMARY KEY, lineage TEXT NOT NULL, idx INTEGER NOT NULL, batch TEXT,
  proof TEXT);
INSERT INTO ledger_batch_items_v10 (task_id, lineage, idx, batch, proof)
  SELECT task_id, lineage, idx, batch, proof FROM ledger_batch_items;
DROP TABLE ledger_batch_items;
ALTER TABLE ledger_batch_items_v10 RENAME TO ledger_batch_items;
