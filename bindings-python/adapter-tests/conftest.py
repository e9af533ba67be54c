"""What the adapter tests share: a real ledger per test (SQLite in tmp_path; PostgreSQL too when
ACTIONSEAL_TEST_PG names a server), the reviewer's side (decide on the ledger), the trusted
context, and the report that names the framework versions when a test fails."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import urllib.parse
from importlib import metadata
from pathlib import Path

import pytest

import actionseal
from actionseal.adapters import Trusted

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PINS = HERE.parent / "adapters-requirements.txt"
START = 1_764_496_800_000
REFUND_RULE = {"when": [{"pointer": "/amount_minor", "op": "gt", "value": 1000}]}
# Four eyes (issue 25): one approver from finance and one from risk.
FOUR_EYES = {"when": "always",
             "quorum": {"approvers": 2, "roles": [{"role": "finance", "count": 1}, {"role": "risk", "count": 1}]},
             "separation": ["subject", "proposer"]}
TRUSTED = Trusted(tenant="tenant-a", subject="user:alice", policy_version="refund-policy-2026-08-01",
                  approvers={"user:bob"})
FROZEN_2500 = {"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}

# The distributions each test module drives: named, with versions, in a failure's report.
FRAMEWORKS = {
    "test_langgraph": ["langchain", "langchain-core", "langgraph"],
    "test_langgraph_batch": ["langchain", "langchain-core", "langgraph"],
    "test_openai_agents": ["openai-agents", "openai"],
    "test_pydantic_ai": ["pydantic-ai-slim", "pydantic"],
    "test_mcp": ["mcp", "mcp-types"],
}


def pinned() -> dict[str, str]:
    out = {}
    for line in PINS.read_text("utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line)
        if m:
            out[m.group(1).lower()] = m.group(2)
    return out


def versions(dists: list[str]) -> str:
    pins, parts = pinned(), []
    for d in dists:
        try:
            v = metadata.version(d)
        except metadata.PackageNotFoundError:
            v = "not installed"
        want = pins.get(d.lower())
        parts.append(f"{d} {v}" + ("" if v == want else f" (tested with {want})"))
    return ", ".join(parts)


def framework(module: str, dists: list[str]):
    """Imports an adapter module; if that fails, the test run stops with the framework and
    version that broke it, not a bare traceback."""
    import importlib

    try:
        return importlib.import_module(module)
    except Exception as e:  # an ImportError, or an API the adapter uses that moved
        pytest.exit(f"{module} does not import with {versions(dists)}: {type(e).__name__}: {e}", returncode=3)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    dists = FRAMEWORKS.get(item.module.__name__.rsplit(".", 1)[-1])
    if report.failed and dists:
        report.sections.append(("framework versions", versions(dists)))


def pytest_report_header(config):
    return [f"adapters tested against: {versions(sum(FRAMEWORKS.values(), []))}"]


# --- ledgers ---------------------------------------------------------------------------------

_names = itertools.count()


def _engines() -> list[str]:
    pg = os.environ.get("ACTIONSEAL_TEST_PG")
    return ["sqlite", "postgres"] if pg and pg != "skip" else ["sqlite"]


@pytest.fixture
def clock():
    return actionseal.ManualClock(START)


@pytest.fixture(params=_engines())
def ledger(request, tmp_path, clock):
    """A fresh ledger on a real engine, on the test's manual ``clock``."""
    if request.param == "sqlite":
        url, drop = f"sqlite:{tmp_path / 'ledger.db'}", None
    else:
        base = os.environ["ACTIONSEAL_TEST_PG"]
        name = f"adapters_{os.getpid()}_{next(_names)}"
        subprocess.run(["psql", "-X", "-q", "-d", base, "-c", f"CREATE DATABASE {name}"], check=True)
        url = urllib.parse.urlunsplit(urllib.parse.urlsplit(base)._replace(path="/" + name))
        drop = (base, name)
    led = actionseal.Ledger(url, clock=clock)
    yield led
    led.close()
    if drop:
        subprocess.run(["psql", "-X", "-q", "-d", drop[0], "-c", f"DROP DATABASE IF EXISTS {drop[1]} WITH (FORCE)"],
                       check=False)


_decisions = itertools.count(1)


def decide(ledger, task_id, *, verdict="approved", ttl_ms=3_600_000, approver="user:bob", role=None):
    """The approval server: a reviewer's decision about the task's current action (in ``role``
    under a quorum)."""
    t = ledger.task(task_id)
    now = ledger.now()
    return ledger.decide({
        "approval_id": t["approval_id"], "decision_id": f"dec-{next(_decisions)}", "job_id": t["job_id"],
        "request_id": t["request_id"], "action_digest": t["action_digest"], "decision": verdict,
        "approver": approver, "decided_at": now, "expires_at": now + ttl_ms,
        **({} if role is None else {"role": role}),
    })["task"]


def decide_batch(ledger, batch_id, *, verdict="approved", deselect=()):
    """The approval server: one reviewer's decision over the batch as shown (after deselecting
    the positions ``deselect``)."""
    b = ledger.batch(batch_id)
    if deselect:
        b = ledger.amend_batch(batch_id, amends=b["digest"], deselect=list(deselect), reviewer="user:bob",
                               reason="not these")
    now = ledger.now()
    return ledger.decide_batch({
        "approval_id": b["approval_id"], "decision_id": f"batch-dec-{next(_decisions)}", "batch_id": batch_id,
        "batch_digest": b["digest"], "decision": verdict, "approver": "user:bob", "decided_at": now,
        "expires_at": now + 3_600_000})


def kinds(ledger, task_id):
    return [e["kind"] for e in ledger.history(task_id)["events"]]


class Body:
    """The tool bodies' call counter and the args each call ran with."""

    def __init__(self):
        self.ran = []

    def __call__(self, tool, args):
        self.ran.append((tool, dict(args)))

    def count(self, tool):
        return sum(1 for t, _ in self.ran if t == tool)


def run_example(name: str) -> str:
    """Runs examples/adapters/<name>.py as a user would (named so as not to shadow the framework
    packages from the script directory); returns what it printed."""
    out = subprocess.run([sys.executable, str(REPO / "examples" / "adapters" / f"{name}.py")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout
