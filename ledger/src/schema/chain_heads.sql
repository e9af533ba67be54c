-- An empty head for every chain that has none: a new ledger's, and on the upgrade to
-- version 3, where the audit went from 16 chains to `{chains}`, the new chains' (the old ones
-- keep their events and heads).
WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n + 1 < {chains})
INSERT INTO ledger_head (chain, seq, digest)
  SELECT n, 0, NULL FROM c WHERE n NOT IN (SELECT chain FROM ledger_head);
