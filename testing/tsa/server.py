#!/usr/bin/env python3
"""The HTTP front of the throwaway TSA (RFC 3161 §3.4): POST application/timestamp-query,
answered with application/timestamp-reply by `tsa.sh reply`.

    server.py [--init] DIR [--section tsa_rsa] [--port 0]

--init makes the CA in DIR first (tsa.sh init) when DIR has none. It listens on 127.0.0.1
only and prints "listening on http://127.0.0.1:PORT/" once ready (port 0: any free port),
so a test can start it and read the URL from its first line.
"""

import argparse
import fcntl
import http.server
import os
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_QUERY = 64 * 1024  # a TimeStampReq is a few hundred bytes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--init", action="store_true")
    parser.add_argument("--section", default="tsa_rsa")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    tsa = os.path.join(HERE, "tsa.sh")
    if args.init and not os.path.exists(os.path.join(args.dir, "ts.cnf")):
        subprocess.run([tsa, "init", args.dir], check=True)

    # `openssl ts -reply` reads and rewrites the serial file with no lock of its own: two at
    # once can read it half written ("Error during serial number generation"). Two threads of
    # this server, or two servers on one directory (a test binary's tests each start one), so
    # a reply holds both this lock and an exclusive flock of a file beside the serial.
    one_at_a_time = threading.Lock()
    lock_file = os.path.join(args.dir, "reply.lock")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if kind != "application/timestamp-query":
                return self.answer(415, "text/plain", b"expected application/timestamp-query\n")
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                return self.answer(411, "text/plain", b"Content-Length required\n")
            if not 0 < length <= MAX_QUERY:
                return self.answer(413, "text/plain", b"query too large\n")
            query = self.rfile.read(length)
            with one_at_a_time, open(lock_file, "a") as held:
                fcntl.flock(held, fcntl.LOCK_EX)
                reply = subprocess.run(
                    [tsa, "reply", args.dir, args.section],
                    input=query,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
            if reply.returncode != 0:
                # openssl itself failed (a malformed query gets a rejection reply instead).
                return self.answer(500, "text/plain", b"the TSA failed\n")
            self.answer(200, "application/timestamp-reply", reply.stdout)

        def answer(self, status, kind, body):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass  # queries are test traffic; keep the test's output clean

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
