-- The triggers that keep the Merkle log's tables append-only on PostgreSQL (see tree.sql),
-- one pair per table; opening a ledger compares them with the catalog (see postgres/migrate.rs).
-- A checkpoint's RFC 3161 token, asked for once the checkpoint is signed, may be set once.
CREATE OR REPLACE FUNCTION ledger_tree_append_only() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END $$;
CREATE OR REPLACE FUNCTION ledger_checkpoints_stamp_once() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN
  IF TG_OP = 'UPDATE' AND OLD.timestamp IS NULL AND (NEW.size, NEW.root, NEW.note, NEW.at)
    IS NOT DISTINCT FROM (OLD.size, OLD.root, OLD.note, OLD.at) THEN RETURN NEW; END IF;
  RAISE EXCEPTION 'ledger_checkpoints is append-only but for its token, set once';
END $$;
CREATE TRIGGER ledger_leaves_no_change BEFORE UPDATE OR DELETE ON ledger_leaves
  FOR EACH ROW EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_leaves_no_truncate BEFORE TRUNCATE ON ledger_leaves
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_nodes_no_change BEFORE UPDATE OR DELETE ON ledger_nodes
  FOR EACH ROW EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_nodes_no_truncate BEFORE TRUNCATE ON ledger_nodes
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_checkpoints_no_change BEFORE UPDATE OR DELETE ON ledger_checkpoints
  FOR EACH ROW EXECUTE FUNCTION ledger_checkpoints_stamp_once();
CREATE TRIGGER ledger_checkpoints_no_truncate BEFORE TRUNCATE ON ledger_checkpoints
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_cosignatures_no_change BEFORE UPDATE OR DELETE ON ledger_cosignatures
  FOR EACH ROW EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_cosignatures_no_truncate BEFORE TRUNCATE ON ledger_cosignatures
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_tree_append_only();
