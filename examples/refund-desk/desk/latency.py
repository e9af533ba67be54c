"""The desk's approve-to-pay latency: for each of N refunds, the time from the reviewer's
approval (the moment its POST is sent to the approval server) to the payment service receiving
the executor's payment request (its `received_at`), on one machine's clock.

    python desk/latency.py --run RUN_DIR --db URL --server URL --payment URL --agent AGENT_PY [--runs N]

Run by `run --latency N` (with the desk's processes up). The agent is started per refund and
waits for its pause; the reviewer signs in over HTTP, as the page does. Prints one JSON line:
{"runs", "ms": [...], "median", "min", "max"}.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

from actionseal import Ledger


def main() -> None:
    p = argparse.ArgumentParser()
    for name in ("--run", "--db", "--server", "--payment", "--agent"):
        p.add_argument(name, required=True)
    p.add_argument("--runs", type=int, default=10)
    a = p.parse_args()
    run = Path(a.run)
    jar = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(path: str, body: dict | None = None, csrf: str = "") -> dict:
        data = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json", "origin": a.server, "x-csrf-token": csrf}
        with jar.open(urllib.request.Request(f"{a.server}{path}", data=data, headers=headers), timeout=30) as r:
            return json.loads(r.read())

    csrf = call("/api/session", {"secret": (run / "reviewer.secret").read_text().strip()})["csrf"]
    ledger = Ledger(a.db)
    latencies = []
    for i in range(a.runs):
        job = f"job-latency-{uuid.uuid4().hex[:8]}"
        agent = subprocess.Popen([sys.executable, a.agent, "--db", a.db, "--server", a.server, "--token-file",
                                  str(run / "agent.token"), "--job", job], stdout=subprocess.PIPE, text=True)
        paused = next(json.loads(line[6:]) for line in agent.stdout if line.startswith("AGENT ")
                      and json.loads(line[6:])["event"] == "paused")
        task = paused["task_id"]
        time.sleep(0.3)  # let the executors settle back into their wait
        sent = int(time.time() * 1000)
        call(f"/api/tasks/{task}/decision", {"decision_id": f"d-{job}", "action_digest": paused["fingerprint"],
                                             "decision": "approved", "ttl_ms": 300_000, "acknowledged": []}, csrf)
        out = ledger.wait(task, ["succeeded", "failed", "unknown"], timeout_ms=30_000)
        assert out["task"]["state"] == "succeeded", out["task"]["state"]
        key = out["task"]["idempotency_key"]
        with urllib.request.urlopen(f"{a.payment}/effects", timeout=10) as r:
            effect = next(e for e in json.loads(r.read())["effects"] if e["idempotency_key"] == key)
        latencies.append(effect["received_at"] - sent)
        agent.wait(timeout=30)
        print(f"latency: run {i + 1}: {latencies[-1]} ms", file=sys.stderr, flush=True)
    ledger.close()
    print(json.dumps({"runs": len(latencies), "ms": latencies, "median": statistics.median(latencies),
                      "min": min(latencies), "max": max(latencies)}))


if __name__ == "__main__":
    main()
