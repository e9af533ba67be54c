-- Version 7 also keeps each contract a task was proposed under, by its fingerprint (the
-- action's `contract`), so that a task's evidence bundle can hold the contract in force years
-- later, whatever the server's registry holds then. Written once per contract; a row changed
-- afterwards no longer has the fingerprint the actions name, which the export refuses.
CREATE TABLE ledger_contracts (digest TEXT PRIMARY KEY, document TEXT NOT NULL){lean};
