"""Writes conformance/vectors/webhook/*.json: Standard Webhooks 1.0 symmetric signatures
(spec/standard-webhooks.md, "Signature scheme"), derived here with Python's own hmac and
base64 only, independently of actionseal. Run only when regenerating:

    python3 conformance/tools/webhook-vectors.py

`sign` vectors: secret, id, at_ms, body (a string) -> the three headers. `verify` vectors:
secret, headers, body, now_ms, tolerance_ms (absent: the default, 300000) -> the id, or the
error's code and path."""

import base64
import hashlib
import hmac
import json
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "vectors" / "webhook"
# 24 bytes (the spec's smallest) and 32 bytes, both fixed.
SECRET = "whsec_" + base64.b64encode(bytes(range(1, 25))).decode()
SECRET_32 = "whsec_" + base64.b64encode(hashlib.sha256(b"actionseal webhook vector").digest()).decode()
BODY = '{"type":"approval.needed","task_id":"task_0eca750d0ffe9aee0bff72b0f3d3935c","short":"7734 f7fc 6133 ddc2"}'


def signature(secret: str, msg_id: str, timestamp: str, body: str) -> str:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    mac = hmac.new(key, f"{msg_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def headers(secret: str, msg_id: str, at_ms: int, body: str) -> dict:
    ts = str(at_ms // 1000)
    return {"webhook-id": msg_id, "webhook-timestamp": ts, "webhook-signature": signature(secret, msg_id, ts, body)}


AT = 1_764_849_600_250  # 2025-12-04T12:00:00.250Z
GOOD = headers(SECRET, "msg_task_1_42", AT, BODY)
files = {
    "y_sign_24_byte_secret": {"op": "sign", "secret": SECRET, "id": "msg_task_1_42", "at_ms": AT, "body": BODY,
                              "expect": GOOD},
    "y_sign_32_byte_secret_unicode_body": {
        "op": "sign", "secret": SECRET_32, "id": "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", "at_ms": 1_674_087_231_000,
        "body": '{"note":"caf\u00e9 \u2603"}',
        "expect": headers(SECRET_32, "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", 1_674_087_231_000, '{"note":"caf\u00e9 \u2603"}')},
    "y_verify_same_second": {"op": "verify", "secret": SECRET, "headers": GOOD, "body": BODY, "now_ms": AT,
                             "expect": {"id": "msg_task_1_42"}},
    "y_verify_mixed_case_headers": {
        "op": "verify", "secret": SECRET, "body": BODY, "now_ms": AT,
        "headers": {"Webhook-Id": GOOD["webhook-id"], "WEBHOOK-TIMESTAMP": GOOD["webhook-timestamp"],
                    "Webhook-Signature": GOOD["webhook-signature"], "content-type": "application/json"},
        "expect": {"id": "msg_task_1_42"}},
    "y_verify_rotation_second_signature": {
        "op": "verify", "secret": SECRET, "body": BODY, "now_ms": AT,
        "headers": {**GOOD, "webhook-signature": signature(SECRET_32, "msg_task_1_42", GOOD["webhook-timestamp"], BODY)
                    + " " + GOOD["webhook-signature"]},
        "expect": {"id": "msg_task_1_42"}},
    "y_verify_at_the_tolerance": {"op": "verify", "secret": SECRET, "headers": GOOD, "body": BODY,
                                  "now_ms": AT - 250 + 300_000, "expect": {"id": "msg_task_1_42"}},
    "n_verify_body_changed": {"op": "verify", "secret": SECRET, "headers": GOOD, "body": BODY.replace("7734", "7735"),
                              "now_ms": AT, "expect": {"error": "webhook_unverified", "path": "/webhook-signature"}},
    "n_verify_other_secret": {"op": "verify", "secret": SECRET_32, "headers": GOOD, "body": BODY, "now_ms": AT,
                              "expect": {"error": "webhook_unverified", "path": "/webhook-signature"}},
    "n_verify_timestamp_changed": {
        "op": "verify", "secret": SECRET, "body": BODY, "now_ms": AT,
        "headers": {**GOOD, "webhook-timestamp": str(AT // 1000 + 1)},
        "expect": {"error": "webhook_unverified", "path": "/webhook-signature"}},
    "n_verify_too_old": {"op": "verify", "secret": SECRET, "headers": GOOD, "body": BODY,
                         "now_ms": AT - 250 + 300_001, "expect": {"error": "webhook_unverified", "path": "/webhook-timestamp"}},
    "n_verify_too_new": {"op": "verify", "secret": SECRET, "headers": GOOD, "body": BODY, "now_ms": AT - 250 - 10_001,
                         "tolerance_ms": 10_000, "expect": {"error": "webhook_unverified", "path": "/webhook-timestamp"}},
    "n_verify_v1a_only": {
        "op": "verify", "secret": SECRET, "body": BODY, "now_ms": AT,
        "headers": {**GOOD, "webhook-signature": GOOD["webhook-signature"].replace("v1,", "v1a,")},
        "expect": {"error": "webhook_unverified", "path": "/webhook-signature"}},
    "n_verify_no_signature_header": {
        "op": "verify", "secret": SECRET, "body": BODY, "now_ms": AT,
        "headers": {"webhook-id": GOOD["webhook-id"], "webhook-timestamp": GOOD["webhook-timestamp"]},
        "expect": {"error": "webhook_unverified", "path": "/webhook-signature"}},
    "n_verify_fractional_timestamp": {
        "op": "verify", "secret": SECRET, "body": BODY, "now_ms": AT,
        "headers": {**GOOD, "webhook-timestamp": GOOD["webhook-timestamp"] + ".0"},
        "expect": {"error": "webhook_unverified", "path": "/webhook-timestamp"}},
    "n_verify_header_twice": {
        "op": "verify", "secret": SECRET, "body": BODY, "now_ms": AT,
        "headers": {**GOOD, "Webhook-Id": "msg_other"},
        "expect": {"error": "webhook_unverified", "path": "/webhook-id"}},
    "n_sign_secret_without_prefix": {"op": "sign", "secret": SECRET.removeprefix("whsec_"), "id": "msg_1", "at_ms": AT,
                                     "body": BODY, "expect": {"error": "invalid_key", "path": ""}},
    "n_sign_secret_too_short": {"op": "sign", "secret": "whsec_" + base64.b64encode(bytes(23)).decode(), "id": "msg_1",
                                "at_ms": AT, "body": BODY, "expect": {"error": "invalid_key", "path": ""}},
    "n_sign_id_with_full_stop": {"op": "sign", "secret": SECRET, "id": "msg.1", "at_ms": AT, "body": BODY,
                                 "expect": {"error": "invalid_request", "path": "/webhook-id"}},
}
OUT.mkdir(parents=True, exist_ok=True)
for name, v in files.items():
    (OUT / f"{name}.json").write_text(json.dumps(v, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
print(f"wrote {len(files)} vectors to {OUT}")
