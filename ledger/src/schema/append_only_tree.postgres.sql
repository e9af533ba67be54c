-- The triggers that keep the Merkle log's tables append-only on PostgreSQL (see tree.sql),
-- one pair per table; opening a ledger compares them with the catalog (see postgres/migrate.rs).
CREATE OR REPLACE FUNCTION ledger_tree_append_only() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END $$;
CREATE TRIGGER ledger_leaves_no_change BEFORE UPDATE OR DELETE ON ledger_leaves
  FOR EACH ROW EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_leaves_no_truncate BEFORE TRUNCATE ON ledger_leaves
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_nodes_no_change BEFORE UPDATE OR DELETE ON ledger_nodes
  FOR EACH ROW EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_nodes_no_truncate BEFORE TRUNCATE ON ledger_nodes
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_checkpoints_no_change BEFORE UPDATE OR DELETE ON ledger_checkpoints
  FOR EACH ROW EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_checkpoints_no_truncate BEFORE TRUNCATE ON ledger_checkpoints
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_cosignatures_no_change BEFORE UPDATE OR DELETE ON ledger_cosignatures
  FOR EACH ROW EXECUTE FUNCTION ledger_tree_append_only();
CREATE TRIGGER ledger_cosignatures_no_truncate BEFORE TRUNCATE ON ledger_cosignatures
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_tree_append_only();
