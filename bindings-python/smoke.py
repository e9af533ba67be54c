"""A built wheel's smoke test, for installs where the full suite does not run (a clean
install in scripts/release, an arm64 Python under qemu): the extension loads, its
fingerprint is the core's, and the bundled SQLite under the ledger works."""

import actionseal

action = {"tool": "refund_create", "args": {"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}}
got = actionseal.fingerprint(action)
want = "sha256:461306cae0672a630a499a310a67ff6a31e4e3bb16bf0b1f6fab4d8dd81735c7"
assert got == want, f"fingerprint {got}, want {want}"

contract = actionseal.Contract({
    "tool": "refund_create", "version": "3", "effect": "write", "cost_minor": 25,
    "approval": "always",
    "args": {"type": "object", "required": ["order_id"], "properties": {"order_id": {"type": "string"}}},
})
proposed = actionseal.action(contract, {"order_id": "order-17"}, tenant="tenant-a",
                             subject="user:alice", job_id="run-1", request_id="call-1",
                             policy_version="p1")
ledger = actionseal.Ledger("sqlite::memory:")
task = ledger.propose(proposed, contract, proposer="agent")
assert ledger.propose(proposed, contract, proposer="agent")["id"] == task["id"], "propose is idempotent"
assert ledger.audit_verify()["valid"]
print(f"smoke: actionseal {actionseal.__version__} from {actionseal.__file__}: ok")
