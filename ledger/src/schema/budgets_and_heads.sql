-- The tables no version rebuilt: budget accounts, and each audit chain's head.
CREATE TABLE ledger_budgets (
  name TEXT PRIMARY KEY, limit_minor {int} NOT NULL, spent_minor {int} NOT NULL,
  reserved_minor {int} NOT NULL){lean};
CREATE TABLE ledger_head (chain {int} PRIMARY KEY, seq {int} NOT NULL, digest TEXT);
