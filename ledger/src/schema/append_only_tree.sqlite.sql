-- The triggers that keep the Merkle log's tables append-only on SQLite (see tree.sql), one
-- pair per table; opening a ledger compares them as written (see sqlite/migrate.rs).
CREATE TRIGGER ledger_leaves_no_update BEFORE UPDATE ON ledger_leaves
BEGIN SELECT RAISE(ABORT, 'ledger_leaves is append-only'); END;
CREATE TRIGGER ledger_leaves_no_delete BEFORE DELETE ON ledger_leaves
BEGIN SELECT RAISE(ABORT, 'ledger_leaves is append-only'); END;
CREATE TRIGGER ledger_nodes_no_update BEFORE UPDATE ON ledger_nodes
BEGIN SELECT RAISE(ABORT, 'ledger_nodes is append-only'); END;
CREATE TRIGGER ledger_nodes_no_delete BEFORE DELETE ON ledger_nodes
BEGIN SELECT RAISE(ABORT, 'ledger_nodes is append-only'); END;
-- A checkpoint's RFC 3161 token is set once, after it is stored (tree/stamp.rs): the one change.
CREATE TRIGGER ledger_checkpoints_no_update BEFORE UPDATE ON ledger_checkpoints
WHEN NOT (OLD.timestamp IS NULL AND typeof(NEW.timestamp) = 'blob' AND NEW.size IS OLD.size
  AND NEW.root IS OLD.root AND NEW.note IS OLD.note AND NEW.at IS OLD.at)
BEGIN SELECT RAISE(ABORT, 'ledger_checkpoints is append-only (its time-stamp is set once)'); END;
CREATE TRIGGER ledger_checkpoints_no_delete BEFORE DELETE ON ledger_checkpoints
BEGIN SELECT RAISE(ABORT, 'ledger_checkpoints is append-only'); END;
CREATE TRIGGER ledger_cosignatures_no_update BEFORE UPDATE ON ledger_cosignatures
BEGIN SELECT RAISE(ABORT, 'ledger_cosignatures is append-only'); END;
CREATE TRIGGER ledger_cosignatures_no_delete BEFORE DELETE ON ledger_cosignatures
BEGIN SELECT RAISE(ABORT, 'ledger_cosignatures is append-only'); END;
