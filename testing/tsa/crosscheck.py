#!/usr/bin/env python3
"""Verifies every fixture of core/tests/timestamp/ with `openssl ts -verify` and with
Python's rfc3161-client (on cryptography), and checks that each accepts exactly the cases
verdicts.json expects "ok" — the verdicts the Rust tests check. Run through crosscheck.sh.
"""

import json
import os
import subprocess
import sys
import tempfile

import cryptography.x509 as cx509
from cryptography.hazmat.primitives.serialization import Encoding
import rfc3161_client
from asn1crypto import cms, tsp
from rfc3161_client import VerifierBuilder

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "..", "core", "tests", "timestamp")


def path(name):
    return os.path.join(FIX, name)


def pem(names, tmp, label):
    """The DER certificates `names` as one PEM file for openssl."""
    out = os.path.join(tmp, label + ".pem")
    with open(out, "wb") as f:
        for name in names:
            cert = cx509.load_der_x509_certificate(open(path(name), "rb").read())
            f.write(cert.public_bytes(Encoding.PEM))
    return out


def openssl(case, tmp):
    token = case["token"]
    args = ["openssl", "ts", "-verify", "-CAfile", pem(case["roots"], tmp, "roots")]
    args += ["-token_in"] if token.endswith(".tst") else []
    args += ["-in", path(token)]
    if case.get("extra"):
        args += ["-untrusted", pem(case["extra"], tmp, "extra")]
    # -queryfile checks imprint, nonce and policy as the request had them; -data the imprint.
    args += ["-queryfile", path(case["query"])] if "query" in case else ["-data", path(case["data"])]
    return subprocess.run(args, capture_output=True).returncode == 0


def wrap(token):
    """A TimeStampResp granting `token` (rfc3161-client reads responses only)."""
    status = bytes.fromhex("3003020100")
    body = status + token
    return b"\x30" + der_length(len(body)) + body


def der_length(n):
    if n < 0x80:
        return bytes([n])
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(raw)]) + raw


def sort_certificates(resp_der):
    """The response with its certificates SET OF in DER order (X.690 §11.6).

    openssl writes the signer's certificate first whatever its encoding, which
    rfc3161-client's strict DER parser refuses (InvalidSetOrdering); the set is not signed,
    so sorting it changes nothing the verification depends on."""
    resp = tsp.TimeStampResp.load(resp_der)
    signed = resp["time_stamp_token"]["content"]
    certs = sorted((c.dump() for c in signed["certificates"]), key=lambda d: d.ljust(8192, b"\0"))
    signed["certificates"] = [cms.CertificateChoices.load(c) for c in certs]
    return resp.dump(force=True)


def python(case):
    raw = open(path(case["token"]), "rb").read()
    if case["token"].endswith(".tst"):
        raw = wrap(raw)
    try:
        raw = sort_certificates(raw)
    except (ValueError, KeyError, TypeError):
        pass  # no token to sort (a rejection): rfc3161-client judges it as it is
    builder = VerifierBuilder()
    for name in case["roots"]:
        builder = builder.add_root_certificate(
            cx509.load_der_x509_certificate(open(path(name), "rb").read())
        )
    for name in case.get("extra", []):
        builder = builder.add_intermediate_certificate(
            cx509.load_der_x509_certificate(open(path(name), "rb").read())
        )
    if "nonce" in case:
        builder = builder.nonce(int(case["nonce"], 16))
    if "policy" in case:
        builder = builder.policy_id(cx509.ObjectIdentifier(case["policy"]))
    try:
        response = rfc3161_client.decode_timestamp_response(raw)
        return builder.build().verify_message(response, open(path(case["data"]), "rb").read())
    except Exception:  # any refusal: parse error, VerificationError, ValueError
        return False


def main():
    cases = json.load(open(path("verdicts.json")))["cases"]
    failures = skipped = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            want = case["expect"] == "ok"
            for tool, check in (("openssl", lambda: openssl(case, tmp)), ("python", lambda: python(case))):
                reason = case.get("skip", {}).get(tool)
                if reason:
                    skipped += 1
                    print(f"skip {case['name']} ({tool}): {reason}")
                    continue
                got = check()
                ok = got == want
                failures += not ok
                print(f"{'ok  ' if ok else 'FAIL'} {case['name']} ({tool}): "
                      f"{'accepts' if got else 'refuses'}, Rust expects {case['expect']}")
    total = 2 * len(cases) - skipped
    print(f"{total - failures} passed, {failures} failed, {skipped} skipped")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
