"""Benchmark: committing an action's three sensitive fields in Python (``commit_action``: the
arguments validated, the envelope built, three salts from the OS CSPRNG, three disclosures,
committed, fingerprinted) against building the same action under the contract without
``sensitive`` (``action``), on ``bench/payloads/sensitive.json``. Goal: at most 1.5x.

    .venv/bin/python bench/sensitive.py [--seconds 2]

Nine interleaved rounds of CPU time (``time.process_time``); prints calls per CPU-second of
each (median) and the median and spread of the per-round ratio.
"""
import argparse
import json
import time
from pathlib import Path

import actionseal

ROUNDS = 9
PAYLOAD = json.loads((Path(__file__).parent / "payloads" / "sensitive.json").read_text("utf-8"))


def rate(fn, seconds):
    n, start = 0, time.process_time()
    while True:
        for _ in range(50):
            fn()
        n += 50
        used = time.process_time() - start
        if used >= seconds:
            return n / used


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU time per function")
    seconds = parser.parse_args().seconds
    marked, plain = actionseal.Contract(PAYLOAD["marked"]), actionseal.Contract(PAYLOAD["plain"])
    args, ids = PAYLOAD["args"], PAYLOAD["ids"]
    committed = actionseal.commit_action(marked, args, **ids)
    assert len(committed["disclosures"]) == 3
    fns = [lambda: actionseal.commit_action(marked, args, **ids), lambda: actionseal.action(plain, args, **ids)]
    for fn in fns:
        rate(fn, 0.05)
    runs = [[], []]
    for _ in range(ROUNDS):
        for k, fn in enumerate(fns):
            runs[k].append(rate(fn, seconds / ROUNDS))
    ratios = sorted(b / a for a, b in zip(*runs))
    med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    print(f"python: commit_action {med(runs[0]):,.0f}/s, action {med(runs[1]):,.0f}/s: "
          f"**{med(ratios):.2f}x** ({ratios[0]:.2f}-{ratios[-1]:.2f})")


if __name__ == "__main__":
    main()
