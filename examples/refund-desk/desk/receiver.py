"""The example's webhook receiver on 127.0.0.1: where a team's chat bot or pager would sit. It
verifies each "approval needed" delivery with core's ``verify_webhook`` (the signature over the
exact bytes received, the timestamp within five minutes by THIS receiver's clock), refuses
anything else with 401 and the code, and processes each ``webhook-id`` once.

    python desk/receiver.py --port PORT --secret-file RUN_DIR/webhook.secret

- POST /hooks            a delivery: 204 when verified (a repeat too), 401 {error, path} when not
- GET  /received         {"received": [body...], "refused": [{error, path}...], "answers": [status...]}
- POST /control          {"fail": [503, 400, ...]}: answer the next deliveries with these statuses
                         first, without reading them (for the sender's tests)
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from actionseal import ActionsealError, verify_webhook

LOCK = threading.Lock()
STATE: dict = {"received": [], "refused": [], "answers": [], "fail": [], "seen": set()}


def make_handler(secret: str) -> type:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def answer(self, status: int, body: object = None) -> None:
            data = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path != "/received":
                return self.answer(404, {"error": "not_found"})
            with LOCK:
                self.answer(200, {k: STATE[k] for k in ("received", "refused", "answers")})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            if self.path == "/control":
                with LOCK:
                    STATE["fail"].extend(json.loads(raw)["fail"])
                return self.answer(204)
            if self.path != "/hooks":
                return self.answer(404, {"error": "not_found"})
            with LOCK:
                fail = STATE["fail"].pop(0) if STATE["fail"] else None
                if fail is not None:
                    STATE["answers"].append(fail)
            if fail is not None:
                return self.answer(fail, {"error": "told_to_fail"})
            # The exact bytes received, and this receiver's clock.
            headers = {k.lower(): v for k, v in self.headers.items()}
            try:
                webhook_id = verify_webhook(secret, headers, raw, int(time.time() * 1000))
            except ActionsealError as e:
                with LOCK:
                    STATE["refused"].append({"error": e.code, "path": e.path})
                    STATE["answers"].append(401)
                return self.answer(401, {"error": e.code, "path": e.path})
            with LOCK:
                STATE["answers"].append(204)
                if webhook_id not in STATE["seen"]:  # the id is the delivery's idempotency key
                    STATE["seen"].add(webhook_id)
                    STATE["received"].append(json.loads(raw))
            self.answer(204)

    return Handler


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--secret-file", type=Path, required=True)
    a = p.parse_args()
    secret = a.secret_file.read_text().strip()
    ThreadingHTTPServer(("127.0.0.1", a.port), make_handler(secret)).serve_forever()


if __name__ == "__main__":
    main()
