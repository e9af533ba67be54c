-- Version 7 keeps the audit as an RFC 9162 Merkle log (issue 26), written only by the
-- sequencer (`Ledger::checkpoint`), never by an operation:
-- - ledger_leaves, leaf index -> event, in event id order; a leaf's data is the event's
--   canonical text (ledger_events.body), its hash SHA-256(0x00 || body);
-- - ledger_nodes, the perfect subtrees above the leaves (level >= 1): node (level, idx)
--   covers leaves [idx << level, (idx + 1) << level), written once when its last leaf arrives;
-- - ledger_checkpoints, each signed checkpoint (a C2SP signed note) by tree size, with its
--   root, when it was made and an RFC 3161 token over its text (NULL until one is asked for,
--   which happens after signing, outside the sequencer: the one column set once);
-- - ledger_cosignatures, the witnesses' cosignature lines of a checkpoint.
CREATE TABLE ledger_leaves (
  leaf {int} PRIMARY KEY, event_id {int} NOT NULL UNIQUE, hash {bytes} NOT NULL);
CREATE TABLE ledger_nodes (
  level {int} NOT NULL CHECK (level >= 1), idx {int} NOT NULL, hash {bytes} NOT NULL,
  PRIMARY KEY (level, idx)){lean};
CREATE TABLE ledger_checkpoints (
  size {int} PRIMARY KEY, root {bytes} NOT NULL, note TEXT NOT NULL, at {int} NOT NULL,
  timestamp {bytes});
CREATE TABLE ledger_cosignatures (
  size {int} NOT NULL REFERENCES ledger_checkpoints (size), witness TEXT NOT NULL,
  line TEXT NOT NULL, at {int} NOT NULL, PRIMARY KEY (size, witness)){lean};
