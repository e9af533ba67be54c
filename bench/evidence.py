"""Benchmark: ``verify_evidence(bundle, trust)`` of the typical refund bundle in Python (issue
26), against ``cryptography``'s Ed25519 verification (OpenSSL) of as many signatures as the
bundle holds (the ledger's on its checkpoint, the witness's cosignature, the service's on the
decision): the least a verifier of the bundle does.

    python bench/evidence.py [--seconds 2]

The bundle is bench/payloads/evidence-refund.json, written by ``cargo bench -p
actionseal-bench --bench evidence -- --write-bundle PATH``. Interleaved rounds of CPU time
(``measure`` of bench/python.py); µs per call, median over the rounds with the lowest and
highest round. A measurement, not a test.
"""

import argparse
import json
import platform
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import actionseal
from python import measure, median, ratio

# Until the package's __init__ exports it (issue 26's Python surface), the extension has it.
verify_evidence = getattr(actionseal, "verify_evidence", None) or actionseal._actionseal.verify_evidence
PAYLOAD = Path(__file__).resolve().parent / "payloads" / "evidence-refund.json"
SIGNATURES = 3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU time per contender")
    args = parser.parse_args()

    doc = json.loads(PAYLOAD.read_text("utf-8"))
    bundle, trust = doc["bundle"], doc["trust"]
    key = Ed25519PrivateKey.generate()
    public = key.public_key()
    message = bundle["checkpoint"]["note"].encode()
    sig = key.sign(message)

    def ed25519(_):
        for _ in range(SIGNATURES):
            public.verify(sig, message)  # raises when it does not verify

    assert verify_evidence(bundle, trust)["task"] == bundle["task"]
    ed25519(None)

    rates = measure(
        [
            ("verify", lambda b: verify_evidence(b, trust), bundle),
            ("ed25519", ed25519, None),
        ],
        args.seconds,
    )
    us = {k: [1e6 / r for r in v] for k, v in rates.items()}

    def show(xs):
        return f"{median(xs):.1f} ({min(xs):.1f}–{max(xs):.1f})"

    size = len(json.dumps(bundle, separators=(",", ":"), ensure_ascii=False).encode())
    print(f"Python {platform.python_version()}; µs of CPU per call, median of {len(us['verify'])} interleaved rounds (lowest–highest round)")
    print()
    print(f"| bundle | `verify_evidence` µs | {SIGNATURES} `cryptography` Ed25519 verifications µs | ratio |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| typical refund, witnessed ({size} B) | {show(us['verify'])} | {show(us['ed25519'])} | {ratio(us['verify'], us['ed25519'])} |")


if __name__ == "__main__":
    main()
