#!/usr/bin/env python3
"""Smoke test of server.py (RFC 3161 §3.4): a fresh TSA on a free port answers a
TimeStampReq POSTed as application/timestamp-query with an application/timestamp-reply
that `openssl ts -verify` accepts against the new root, and refuses other content types."""

import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
QUERY = os.path.join(HERE, "..", "..", "core", "tests", "timestamp", "query-nonce.tsq")


def post(url, body, kind):
    request = urllib.request.Request(url, data=body, headers={"Content-Type": kind})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers.get("Content-Type"), answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read()


def main():
    checks = []
    with tempfile.TemporaryDirectory() as tmp:
        ca = os.path.join(tmp, "ca")
        server = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "server.py"), "--init", ca, "--port", "0"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            url = server.stdout.readline().strip().removeprefix("listening on ")
            query = open(QUERY, "rb").read()
            status, kind, reply = post(url, query, "application/timestamp-query")
            checks.append(("reply", status == 200 and kind == "application/timestamp-reply"))
            path = os.path.join(tmp, "reply.tsr")
            with open(path, "wb") as f:
                f.write(reply)
            verified = subprocess.run(
                ["openssl", "ts", "-verify", "-in", path, "-queryfile", QUERY,
                 "-CAfile", os.path.join(ca, "root.pem"),
                 "-untrusted", os.path.join(ca, "intermediate.pem")],
                capture_output=True,
            ).returncode == 0
            checks.append(("openssl verifies the reply", verified))
            status, _, _ = post(url, query, "application/octet-stream")
            checks.append(("other content type refused (415)", status == 415))
        finally:
            server.terminate()
            server.wait(timeout=10)
    for name, ok in checks:
        print(f"{'ok  ' if ok else 'FAIL'} server: {name}")
    failed = sum(not ok for _, ok in checks)
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
