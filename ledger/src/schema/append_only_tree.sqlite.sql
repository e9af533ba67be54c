-- The triggers that keep the Merkle log's tables append-only on SQLite (see tree.sql), one
-- pair per table; opening a ledger compares them as written (see sqlite/migrate.rs). A
-- checkpoint's RFC 3161 token, asked for once the checkpoint is signed, may be set once.
CREATE TRIGGER ledger_leaves_no_update BEFORE UPDATE ON ledger_leaves
BEGIN SELECT RAISE(ABORT, 'ledger_leaves is append-only'); END;
CREATE TRIGGER ledger_leaves_no_delete BEFORE DELETE ON ledger_leaves
BEGIN SELECT RAISE(ABORT, 'ledger_leaves is append-only'); END;
CREATE TRIGGER ledger_nodes_no_update BEFORE UPDATE ON ledger_nodes
BEGIN SELECT RAISE(ABORT, 'ledger_nodes is append-only'); END;
CREATE TRIGGER ledger_nodes_no_delete BEFORE DELETE ON ledger_nodes
BEGIN SELECT RAISE(ABORT, 'ledger_nodes is append-only'); END;
CREATE TRIGGER ledger_checkpoints_no_update BEFORE UPDATE ON ledger_checkpoints
WHEN OLD.timestamp IS NOT NULL OR NEW.size IS NOT OLD.size OR NEW.root IS NOT OLD.root
  OR NEW.note IS NOT OLD.note OR NEW.at IS NOT OLD.at
BEGIN SELECT RAISE(ABORT, 'ledger_checkpoints is append-only but for its token, set once'); END;
CREATE TRIGGER ledger_checkpoints_no_delete BEFORE DELETE ON ledger_checkpoints
BEGIN SELECT RAISE(ABORT, 'ledger_checkpoints is append-only'); END;
CREATE TRIGGER ledger_cosignatures_no_update BEFORE UPDATE ON ledger_cosignatures
BEGIN SELECT RAISE(ABORT, 'ledger_cosignatures is append-only'); END;
CREATE TRIGGER ledger_cosignatures_no_delete BEFORE DELETE ON ledger_cosignatures
BEGIN SELECT RAISE(ABORT, 'ledger_cosignatures is append-only'); END;
