"""Benchmark: actionseal's Python binding against what a Python user would write instead,
side by side in one process, on the payloads in bench/payloads/.

    pip install -r bench/requirements.txt   # plus the actionseal wheel
    python bench/python.py [--seconds 1]

Every contender returns a "sha256:<hex>" fingerprint of a dict parsed from the payload:

- actionseal.fingerprint(d)
- actionseal.fingerprint_json(text): for reference, from the JSON text instead of the dict
- json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + hashlib.sha256:
  the usual hand-rolled "canonical" JSON (not RFC 8785: other key order and number forms)
- orjson.dumps(d, option=OPT_SORT_KEYS) + hashlib.sha256: the fastest JSON library a Python
  user knows (not RFC 8785, and it checks nothing)
- rfc8785.dumps(d) + hashlib.sha256: a pure-Python RFC 8785 implementation
- canonicaljson.encode_canonical_json(d) + hashlib.sha256: Matrix's canonical JSON

Prints calls per CPU second per payload (median of nine interleaved rounds) and how many
times faster actionseal.fingerprint is than each: the median of the rounds' ratios, with the
lowest and highest round.

Then the permit check of the refund scenario (conformance/vectors/permit/y_permit_exact.json:
an approval, the approved action and the executor's context), beside one fingerprint of the
same action, which is the least a check must do:

- actionseal.fingerprint(action)
- actionseal.check(Approval(record), action, context): the approval loaded once too
- actionseal.check(approval, action, context), the context's contract a preloaded Contract
- actionseal.check(approval, action, context), the context's contract a document (compiled
  on every call)

and how many fingerprints of the action each costs (the goal for the preloaded contract: at
most 2). This is a measurement, not a test: nothing here fails on a slow machine.
"""

import argparse
import hashlib
import json
import platform
import sys
import time
from functools import partial
from pathlib import Path

import canonicaljson
import orjson
import rfc8785

import actionseal

PAYLOADS = Path(__file__).resolve().parent / "payloads"
PERMIT = Path(__file__).resolve().parents[1] / "conformance" / "vectors" / "permit" / "y_permit_exact.json"


def json_dumps_sha256(d):
    text = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def orjson_sha256(d):
    return "sha256:" + hashlib.sha256(orjson.dumps(d, option=orjson.OPT_SORT_KEYS)).hexdigest()


def rfc8785_sha256(d):
    return "sha256:" + hashlib.sha256(rfc8785.dumps(d)).hexdigest()


def canonicaljson_sha256(d):
    return "sha256:" + hashlib.sha256(canonicaljson.encode_canonical_json(d)).hexdigest()


# CPU time of this (single-threaded) process rather than wall time: on a shared machine, time
# spent waiting for a core is not the contender's. Rounds also interleave the contenders.
clock = time.process_time


def batch_size(fn, arg):
    """Calls per clock reading, so that reading the clock costs little beside the work."""
    for _ in range(200):  # warm up caches (and CPython's specializing interpreter)
        fn(arg)
    batch, start = 1, clock()
    while clock() - start < 0.01:
        for _ in range(batch):
            fn(arg)
        batch *= 2
    return batch


def rate(fn, arg, batch, seconds):
    """Calls per second of ``fn(arg)`` over about ``seconds``."""
    n, start = 0, clock()
    deadline = start + seconds
    while True:
        for _ in range(batch):
            fn(arg)
        n += batch
        now = clock()
        if now >= deadline:
            return n / (now - start)


ROUNDS = 9


def measure(contenders, seconds, rounds=ROUNDS):
    """Calls per second of each ``(label, fn, arg)`` in each of ``rounds`` rounds. Rounds take
    turns between the contenders, so that a busy machine slows them all alike."""
    batches = {label: batch_size(fn, arg) for label, fn, arg in contenders}
    out = {label: [] for label in batches}
    for _ in range(rounds):
        for label, fn, arg in contenders:
            out[label].append(rate(fn, arg, batches[label], seconds / rounds))
    return out


def median(xs):
    return sorted(xs)[len(xs) // 2]


def ratio(a, b):
    """``**median**x (lowest–highest)`` of the per-round ratios ``a[i] / b[i]``."""
    r = [x / y for x, y in zip(a, b)]
    return f"**{median(r):.2f}x** ({min(r):.2f}–{max(r):.2f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per contender and payload")
    args = parser.parse_args()

    payloads = []
    for name in ("refund.json", "items150.json", "10k.json"):
        text = (PAYLOADS / name).read_text("utf-8")
        d = json.loads(text)
        canonical = actionseal.canonicalize(d)
        # Same answers before timing anything.
        assert rfc8785.dumps(d) == canonical.encode(), name
        assert rfc8785_sha256(d) == actionseal.fingerprint(d) == actionseal.fingerprint_json(text)
        payloads.append((name, len(canonical.encode()), text, d))

    contenders = [
        ("actionseal.fingerprint(dict)", actionseal.fingerprint, False),
        ("actionseal.fingerprint_json(text)", actionseal.fingerprint_json, True),
        ("orjson.dumps(OPT_SORT_KEYS) + sha256", orjson_sha256, False),
        ("json.dumps(sort_keys) + sha256", json_dumps_sha256, False),
        ("rfc8785.dumps + sha256", rfc8785_sha256, False),
        ("canonicaljson + sha256", canonicaljson_sha256, False),
    ]
    results = {}
    for name, _, text, d in payloads:
        runs = [(label, fn, text if takes_text else d) for label, fn, takes_text in contenders]
        for label, ops in measure(runs, args.seconds).items():
            results[label, name] = ops

    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"orjson {orjson.__version__}, "
        f"rfc8785 {rfc8785.__version__ if hasattr(rfc8785, '__version__') else '?'}, "
        f"canonicaljson {canonicaljson.__version__}; calls per CPU second, median of {ROUNDS} "
        "interleaved rounds; ratio: median (lowest-highest) of the rounds' ratios"
    )
    header = "| contender |"
    rule = "| --- |"
    for name, size, _, _ in payloads:
        header += f" {name} ({size} B) ops/s | actionseal is |"
        rule += " ---: | ---: |"
    print(header)
    print(rule)
    for label, _, _ in contenders:
        row = f"| {label} |"
        for name, _, _, _ in payloads:
            ops = results[label, name]
            row += f" {median(ops):,.0f} | {ratio(results['actionseal.fingerprint(dict)', name], ops)} |"
        print(row)
    print()
    permit_check(args.seconds)
    return 0


def permit_check(seconds):
    """Times the permit check of the refund scenario against one fingerprint of its action."""
    vector = json.loads(PERMIT.read_text("utf-8"))
    approval = actionseal.loads(vector["approval"])
    action = actionseal.loads(vector["action"])
    context = actionseal.loads(vector["context"])
    preloaded = dict(context, contract=actionseal.Contract(context["contract"]))
    loaded = actionseal.Approval(approval)
    # Same answers before timing anything: the vector's verdict, either way.
    assert actionseal.check(approval, action, context) == vector["expect"]
    assert actionseal.check(approval, action, preloaded) == vector["expect"]
    assert actionseal.check(loaded, action, preloaded) == vector["expect"]
    assert vector["expect"]["outcome"] == "permit"

    # Each is a partial called through the same lambda, so that the calling overhead is alike.
    contenders = [
        ("actionseal.fingerprint(action)", partial(actionseal.fingerprint, action)),
        ("actionseal.check(Approval, ...), Contract preloaded", partial(actionseal.check, loaded, action, preloaded)),
        ("actionseal.check(record, ...), Contract preloaded", partial(actionseal.check, approval, action, preloaded)),
        ("actionseal.check(...), contract document", partial(actionseal.check, approval, action, context)),
    ]
    results = measure([(label, lambda f: f(), fn) for label, fn in contenders], seconds)
    size = len(actionseal.canonicalize(action).encode())
    print(f"| permit check, refund scenario (action {size} B) | calls/s | costs, in fingerprints of the action |")
    print("| --- | ---: | ---: |")
    base = results["actionseal.fingerprint(action)"]
    for label, _ in contenders:
        print(f"| {label} | {median(results[label]):,.0f} | {ratio(base, results[label])} |")


if __name__ == "__main__":
    sys.exit(main())
