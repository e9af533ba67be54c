"""A fake payment service on 127.0.0.1: it honours idempotency keys and counts effects.

    python desk/payment.py --port PORT

- POST /payments {idempotency_key, order_id, amount_minor, currency}: the first request with a
  key has the effect (a refund is paid); later ones with the same key return that payment.
- GET  /payments/{key}: what happened under a key (404 when nothing did): what reconcile asks.
- GET  /effects: every payment with how many requests its key received, and when the first one
  arrived (`received_at`, ms since the epoch: what the desk's latency script measures to).
- POST /control {slow: {idempotency_key: ms}}: answer the payment of a key only after a delay (the
  payment is made at once): a timeout at the executor, an outcome in doubt.
- POST /control {fail: [idempotency_key, ...]}: refuse every payment of these keys with 402
  `{"status": "failed", "error": "declined"}` and no effect (the provider said no, for certain:
  a failed outcome, not one in doubt). What trips a batch's breaker in the desk's test.
- GET  /refusals: the keys refused so, each with how many requests it received.
- `receipt_to` in a payment (refund_receipt): the customer's e-mail, where the receipt goes. The
  service keeps it (GET /receipts: key -> address); it is outside the ledger, which shreds its
  own copy, so it stays here. Never in the payment it answers, which the executor hands to the
  ledger as the task's result.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
PAYMENTS: dict = {}   # idempotency key -> the payment (the effect, once)
REQUESTS: dict = {}   # idempotency key -> how many requests named it
SLOW: dict = {}       # idempotency key -> delay of the answer, ms
RECEIVED: dict = {}   # idempotency key -> when its first request arrived, ms
FAIL: set = set()     # idempotency keys whose payments are declined
RECEIPTS: dict = {}   # idempotency key -> where the receipt was sent (the customer's e-mail)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def answer(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the caller timed out; the payment stands

    def body(self) -> dict:
        return json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")

    def do_GET(self) -> None:
        if self.path == "/effects":
            with LOCK:
                effects = [{**p, "requests": REQUESTS[k], "received_at": RECEIVED[k]} for k, p in PAYMENTS.items()]
            return self.answer(200, {"effects": effects})
        if self.path == "/receipts":
            with LOCK:
                return self.answer(200, {"receipts": dict(RECEIPTS)})
        if self.path == "/refusals":
            with LOCK:
                refusals = [{"idempotency_key": k, "requests": REQUESTS.get(k, 0)} for k in sorted(FAIL)]
            return self.answer(200, {"refusals": refusals})
        if self.path.startswith("/payments/"):
            key = self.path[len("/payments/"):]
            with LOCK:
                p = PAYMENTS.get(key)
            return self.answer(200, {"status": "succeeded", "payment": p}) if p else \
                self.answer(404, {"status": "not_found"})
        self.answer(404, {"error": "not_found"})

    def do_POST(self) -> None:
        b = self.body()
        if self.path == "/control":
            with LOCK:
                SLOW.update(b.get("slow", {}))
                FAIL.update(b.get("fail", []))
                now = {"slow": dict(SLOW), "fail": sorted(FAIL)}
            return self.answer(200, now)
        if self.path != "/payments":
            return self.answer(404, {"error": "not_found"})
        key = b.get("idempotency_key")
        if not isinstance(key, str) or not key:
            return self.answer(400, {"error": "idempotency_key required"})
        with LOCK:
            RECEIVED.setdefault(key, int(time.time() * 1000))
            REQUESTS[key] = REQUESTS.get(key, 0) + 1
            duplicate = key in PAYMENTS
            # A key paid before it was marked keeps its payment: a decline never contradicts an effect.
            declined = key in FAIL and not duplicate
            if not declined and not duplicate:
                PAYMENTS[key] = {"idempotency_key": key, "order_id": b.get("order_id"),
                                 "amount_minor": b.get("amount_minor"), "currency": b.get("currency"),
                                 "payment_id": f"pay_{len(PAYMENTS) + 1}"}
                if isinstance(b.get("receipt_to"), str):
                    RECEIPTS[key] = b["receipt_to"]
            payment, delay = PAYMENTS.get(key), SLOW.get(key, 0)
        if declined:
            return self.answer(402, {"status": "failed", "error": "declined"})
        if delay and not duplicate:
            time.sleep(delay / 1000)
        self.answer(200, {"status": "succeeded", "payment": payment, "duplicate": duplicate})


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    a = p.parse_args()
    ThreadingHTTPServer(("127.0.0.1", a.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
