"""Cross-library check with Python's `cryptography`, run by the test command.

- The signed and passkey vectors verify (or fail) in `cryptography` as they do in core.
- An envelope Python signs with a fresh key verifies in core; a changed payload does not.
- An envelope core signs (actionseal key generate | sign) verifies in `cryptography`, under
  the keyid Python computes as the RFC 7638 thumbprint, over the canonical record.

    python conformance/tools/crosscheck.py path/to/actionseal
"""

import base64
import hashlib
import json
import pathlib
import subprocess
import sys
import tempfile

import cryptography
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAYLOAD_TYPE = "application/vnd.actionseal.approval+json"
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}", file=sys.stderr)


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def pae(kind, body):
    t = kind.encode()
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body)


def canonical(value):
    # The records here hold only strings, safe integers and objects: sorted keys and no
    # whitespace are their RFC 8785 form.
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def thumbprint(x):
    return b64u(hashlib.sha256(('{"crv":"Ed25519","kty":"OKP","x":"%s"}' % x).encode()).digest())


def vectors(kind):
    for path in sorted((ROOT / "conformance/vectors" / kind).glob("*.json")):
        yield path.stem, json.loads(path.read_text())


def ed_verify(raw_key, message, signature):
    try:
        ed25519.Ed25519PublicKey.from_public_bytes(raw_key).verify(signature, message)
        return True
    except (InvalidSignature, ValueError):
        return False


def cose_verify(cose, message, signature):
    """Verifies with a COSE key of the fixed WebAuthn layouts: EC2 {1,3,-1,-2,-3} or OKP."""
    if cose[0] == 0xA5:
        x, y = cose[10:42], cose[45:77]
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b"\x04" + x + y)
        try:
            key.verify(signature, message, ec.ECDSA(hashes.SHA256()))
            return True
        except (InvalidSignature, ValueError):
            return False
    return ed_verify(cose[10:42], message, signature)


def main(cli):
    for name, v in vectors("signed"):
        if v["op"] == "ed25519" and v["expect"].get("error") != "invalid_key":
            ok = ed_verify(
                bytes.fromhex(v["public_key_hex"]),
                bytes.fromhex(v["message_hex"]),
                bytes.fromhex(v["signature_hex"]),
            )
            check(ok == (v["expect"].get("valid") is True), f"signed/{name}: cryptography says {ok}")
        if v["op"] == "verify":
            error = v["expect"].get("error")
            if error not in (None, "invalid_signature", "payload_type_mismatch"):
                continue
            env = json.loads(v["approval"])
            (entry,) = env["signatures"]
            key = json.loads(v["keys"])["service_keys"][entry["keyid"]]["key"]
            x = key if isinstance(key, str) else key["x"]
            ok = ed_verify(unb64u(x), pae(PAYLOAD_TYPE, unb64u(env["payload"])), unb64u(entry["sig"]))
            check(ok == (error is None), f"signed/{name}: cryptography says {ok}")

    for name, v in vectors("passkey"):
        error = v["expect"].get("error")
        if v["op"] != "verify" or error not in (None, "invalid_signature"):
            continue
        assertion = json.loads(v["approval"])["passkey"]
        cose = unb64u(json.loads(v["keys"])["passkeys"][assertion["credential_id"]]["public_key"])
        client_data = unb64u(assertion["client_data_json"])
        message = unb64u(assertion["authenticator_data"]) + hashlib.sha256(client_data).digest()
        ok = cose_verify(cose, message, unb64u(assertion["signature"]))
        check(ok == (error is None), f"passkey/{name}: cryptography says {ok}")

    record = json.loads((ROOT / "examples/refund/approval.json").read_text())
    payload = canonical(record)
    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        # Python signs, core verifies.
        private = ed25519.Ed25519PrivateKey.generate()
        raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        keyid = thumbprint(b64u(raw))
        (d / "keys.json").write_text(json.dumps({"service_keys": {keyid: {"key": b64u(raw)}}}))
        env = {
            "payloadType": PAYLOAD_TYPE,
            "payload": b64u(payload),
            "signatures": [{"keyid": keyid, "sig": b64u(private.sign(pae(PAYLOAD_TYPE, payload)))}],
        }
        verify = [cli, "key", "verify", "--keys", str(d / "keys.json")]
        r = subprocess.run(verify, input=json.dumps(env), capture_output=True, text=True)
        check(r.returncode == 0 and json.loads(r.stdout)["signer"]["keyid"] == keyid,
              f"core verifies a cryptography envelope ({r.returncode} {r.stderr})")
        env["payload"] = b64u(canonical({**record, "decision": "rejected"}))
        r = subprocess.run(verify, input=json.dumps(env), capture_output=True, text=True)
        check(r.returncode == 4 and r.stderr.startswith("error: invalid_signature: "),
              f"core refuses a changed payload ({r.returncode} {r.stderr})")

        # Core signs, Python verifies.
        jwk = json.loads(subprocess.run([cli, "key", "generate", "--out", str(d / "core.jwk")],
                                        capture_output=True, text=True, check=True).stdout)
        check(jwk["kid"] == thumbprint(jwk["x"]), "core keyid is the RFC 7638 thumbprint")
        signed = json.loads(subprocess.run([cli, "key", "sign", "--key", str(d / "core.jwk")],
                                           input=json.dumps(record), capture_output=True, text=True,
                                           check=True).stdout)
        check(unb64u(signed["payload"]) == payload, "core payload is the canonical record")
        sig = unb64u(signed["signatures"][0]["sig"])
        check(ed_verify(unb64u(jwk["x"]), pae(PAYLOAD_TYPE, payload), sig), "cryptography verifies a core signature")
        check(not ed_verify(unb64u(jwk["x"]), pae("application/json", payload), sig),
              "cryptography refuses it under another type")

    print(f"crosscheck (cryptography {cryptography.__version__}): {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: crosscheck.py path/to/actionseal")
    sys.exit(main(sys.argv[1]))
