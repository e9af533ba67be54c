"""Benchmark: the cost of proof at dispatch in Python.

    pip install -r bench/requirements.txt   # plus the actionseal wheel
    python bench/proof.py [--seconds 4]

``check`` of the refund example's record as a service-signed envelope (a context requiring
proof, its key set given as data: the envelope is decoded, the signature verified over PAE, the
payload parsed once and compared with its canonical form as it is written, then checked as a
bare record is), beside ``check`` of the bare record, and ``verify_envelope`` alone; against
one Ed25519 verification by OpenSSL of the same PAE bytes, measured in the same rounds
(``cryptography``'s ``Ed25519PublicKey.verify``, which is OpenSSL) and by ``openssl speed
-seconds 2 ed25519`` before, between and after the rounds. Goal (issue 11): the extra cost of
proof (signed - bare) is at most 1.5x one OpenSSL verification.

Interleaved rounds of CPU time (``measure`` of bench/python.py); every figure is the median
over the rounds, with the lowest and highest round. A measurement, not a test.
"""

import argparse
import base64
import platform
import subprocess
import sys
from functools import partial
from pathlib import Path

from cryptography.hazmat.backends.openssl.backend import backend as openssl_backend
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

import actionseal
from python import measure, median

REFUND = Path(__file__).resolve().parents[1] / "examples" / "refund"
ROUNDS = 16


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def openssl_speed():
    """OpenSSL's Ed25519 verifications per user-CPU second, from ``openssl speed``, or None."""
    try:
        out = subprocess.run(["openssl", "speed", "-seconds", "2", "ed25519"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    line = next(l for l in out.splitlines() if "(Ed25519)" in l)
    return float(line.split()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="CPU time per contender")
    args = parser.parse_args()

    record, action, context = (actionseal.loads((REFUND / f"{n}.json").read_bytes()) for n in ("approval", "action", "context"))
    key = actionseal.SigningKey(base64.urlsafe_b64encode(b"*" * 32).rstrip(b"=").decode())
    envelope = key.sign(record)
    keys = {"service_keys": {key.keyid: {"key": key.public_jwk}}}
    plain = dict(context, contract=actionseal.Contract(context["contract"]))
    signed = dict(plain, proof={"required": True, "keys": keys})
    pae = unb64u(actionseal.pae(envelope["payloadType"], envelope["payload"]))
    sig = unb64u(envelope["signatures"][0]["sig"])
    openssl_key = Ed25519PublicKey.from_public_bytes(unb64u(key.public_jwk["x"]))

    # Same answers before timing anything.
    assert actionseal.check(record, action, plain)["outcome"] == "permit"
    assert actionseal.check(envelope, action, signed)["outcome"] == "permit"
    assert actionseal.check(record, action, signed)["reasons"] == ["proof_missing"]
    openssl_key.verify(sig, pae)

    contenders = [
        ("``check(record)``, no proof", partial(actionseal.check, record, action, plain)),
        ("``check(envelope)``, proof required", partial(actionseal.check, envelope, action, signed)),
        ("``verify_envelope(envelope, keys, at)`` alone", partial(actionseal.verify_envelope, envelope, keys, signed["now"])),
        ("cryptography ``verify`` (OpenSSL Ed25519), same PAE", partial(openssl_key.verify, sig, pae)),
    ]
    runs = [(label, lambda f: f(), fn) for label, fn in contenders]
    speed, per_round = [], {label: [] for label, _ in contenders}
    for _ in range(2):
        speed.append(openssl_speed())
        for label, rates in measure(runs, args.seconds / 2, ROUNDS // 2).items():
            per_round[label].extend(1e6 / r for r in rates)
    speed.append(openssl_speed())
    speed = [s for s in speed if s is not None]

    us = [per_round[label] for label, _ in contenders]
    bare, proven, _, openssl = us
    extra = [p - b for p, b in zip(proven, bare)]
    span = lambda xs: f"{min(xs):.2f}–{max(xs):.2f}"  # noqa: E731

    print(
        f"Python {platform.python_version()}, {openssl_backend.openssl_version_text()}, payload "
        f"{len(unb64u(envelope['payload']))} bytes (PAE {len(pae)}); µs of CPU per call, median of "
        f"{len(bare)} interleaved rounds"
    )
    print()
    print("| what | µs/call (median) | range |")
    print("| --- | ---: | ---: |")
    for (label, _), xs in zip(contenders, us):
        print(f"| {label.replace('``', '`')} | {median(xs):.2f} | {span(xs)} |")
    print(f"| **extra cost of proof** (signed - bare, per round) | {median(extra):.2f} | {span(extra)} |")
    ratios = [e / o for e, o in zip(extra, openssl)]
    print()
    print(f"extra cost / one OpenSSL verification (cryptography, same rounds): **{median(ratios):.2f}x** ({span(ratios)})")
    if speed:
        openssl_us = 1e6 / median(speed)
        print(
            f"openssl speed: {', '.join(f'{s:,.0f}' for s in speed)} verify/s, median {openssl_us:.2f} µs; "
            f"extra cost / that: **{median(extra) / openssl_us:.2f}x**"
        )
    print("goal: at most 1.5x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
