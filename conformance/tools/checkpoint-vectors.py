#!/usr/bin/env python3
"""An independent derivation of the signed-checkpoint vectors (conformance/vectors/checkpoint/).

Written from the C2SP texts (signed-note, tlog-checkpoint, tlog-cosignature) with Python's
standard library and `cryptography`'s Ed25519, sharing no code with the Rust core. It computes
every vector's expected result itself and either checks the files against it (default) or
writes them (--write); the Rust test conformance/tests/checkpoint.rs then checks the core
against the same files, so the two agree byte for byte.

    python3 -m venv .venv && .venv/bin/pip install -r conformance/tools/requirements.txt
    .venv/bin/python conformance/tools/checkpoint-vectors.py [--write]
"""

import base64
import binascii
import hashlib
import json
import sys
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

DIR = Path(__file__).resolve().parent.parent / "vectors" / "checkpoint"
DASH = "\u2014 "


class Refused(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def b64(data):
    return base64.b64encode(data).decode()


def unb64(text):
    """Canonical padded standard base64 only: decoding and re-encoding must give the text."""
    try:
        data = base64.b64decode(text, validate=True)
    except binascii.Error:
        raise Refused("checkpoint_invalid")
    if b64(data) != text:
        raise Refused("checkpoint_invalid")
    return data


def key_id(name, kind, public):
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def raw_public(private):
    return private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def valid_name(name):
    return name != "" and "+" not in name and not any(c.isspace() for c in name)


def signer(skey):
    """PRIVATE+KEY+<name>+<hex id>+<base64(0x01 || seed)> -> (name, private key)."""
    parts = skey.split("+", 4)
    if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"] or not valid_name(parts[2]):
        raise Refused("checkpoint_invalid")
    material = unb64(parts[4])
    if len(material) != 33 or material[0] != 1:
        raise Refused("checkpoint_invalid")
    private = Ed25519PrivateKey.from_private_bytes(material[1:])
    if key_id(parts[2], 1, raw_public(private)).hex() != parts[3]:
        raise Refused("checkpoint_invalid")
    return parts[2], private


def vkey(name, kind, public):
    return f"{name}+{key_id(name, kind, public).hex()}+{b64(bytes([kind]) + public)}"


def verifier(text):
    """<name>+<hex id>+<base64(type || key)> -> (name, id, type, public key)."""
    parts = text.split("+", 2)
    if len(parts) != 3 or not valid_name(parts[0]) or len(parts[1]) != 8:
        raise Refused("checkpoint_invalid")
    material = unb64(parts[2])
    if len(material) != 33 or material[0] not in (1, 4):
        raise Refused("checkpoint_invalid")
    if key_id(parts[0], material[0], material[1:]).hex() != parts[1]:
        raise Refused("checkpoint_invalid")
    return parts[0], bytes.fromhex(parts[1]), material[0], material[1:]


def line(name, kid, sig):
    return f"{DASH}{name} {b64(kid + sig)}\n"


def sign(skey, text):
    name, private = signer(skey)
    return text + "\n" + line(name, key_id(name, 1, raw_public(private)), private.sign(text.encode()))


def cosign_message(text, timestamp):
    return f"cosignature/v1\ntime {timestamp}\n{text}".encode()


def cosign(skey, text, timestamp):
    name, private = signer(skey)
    stamped = timestamp.to_bytes(8, "big") + private.sign(cosign_message(text, timestamp))
    return line(name, key_id(name, 4, raw_public(private)), stamped)


def open_note(note, keys):
    """Parses strictly and verifies: {"text", "verified": [{"key", "timestamp"}]}."""
    try:
        text_all = note.encode("utf-8").decode("utf-8")
    except UnicodeError:
        raise Refused("checkpoint_invalid")
    if any(ord(c) < 0x20 and c != "\n" for c in text_all):
        raise Refused("checkpoint_invalid")
    split = note.rfind("\n\n")
    if split < 0 or not note.endswith("\n"):
        raise Refused("checkpoint_invalid")
    text, sigs = note[: split + 1], note[split + 2 :]
    lines = sigs[:-1].split("\n")
    if not sigs or len(lines) > 100:
        raise Refused("checkpoint_invalid")
    known = [(verifier(k), k) for k in keys]
    verified = []
    for i, sig_line in enumerate(lines):
        if not sig_line.startswith(DASH) or " " not in sig_line[len(DASH) :]:
            raise Refused("checkpoint_invalid")
        name, encoded = sig_line[len(DASH) :].split(" ", 1)
        raw = unb64(encoded)
        if not valid_name(name) or len(raw) < 5:
            raise Refused("checkpoint_invalid")
        matches = [(k, s) for k, s in known if k[0] == name and k[1] == raw[:4]]
        if not matches:
            continue
        (_, _, kind, public), key_text = matches[0]
        body, timestamp = raw[4:], None
        if kind == 4:
            timestamp = int.from_bytes(body[:8], "big")
            message, body = cosign_message(text, timestamp), body[8:]
        else:
            message = text.encode()
        try:
            Ed25519PublicKey.from_public_bytes(public).verify(body, message)
        except (InvalidSignature, ValueError):
            raise Refused("checkpoint_untrusted")
        verified.append({"key": key_text, "timestamp": timestamp})
    if not verified:
        raise Refused("checkpoint_untrusted")
    return {"text": text, "verified": verified}


def checkpoint(text):
    if not text.endswith("\n"):
        raise Refused("checkpoint_invalid")
    lines = text[:-1].split("\n")
    if len(lines) < 3 or any(l == "" or any(ord(c) < 0x20 for c in l) for l in lines):
        raise Refused("checkpoint_invalid")
    size = lines[1]
    if not size.isascii() or not size.isdigit() or (size != "0" and size[0] == "0") or int(size) >= 2**64:
        raise Refused("checkpoint_invalid")
    root = unb64(lines[2])
    if len(root) != 32:
        raise Refused("checkpoint_invalid")
    return {"origin": lines[0], "size": size, "root_hex": root.hex(), "extensions": lines[3:]}


def key_pair(name, seed_hex):
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed_hex))
    public = raw_public(private)
    return {
        "signer": f"PRIVATE+KEY+{name}+{key_id(name, 1, public).hex()}+{b64(bytes([1]) + bytes.fromhex(seed_hex))}",
        "verifier": vkey(name, 1, public),
        "cosigner": vkey(name, 4, public),
    }


OPS = {
    "key": lambda v: key_pair(v["name"], v["seed_hex"]),
    "sign": lambda v: {"note": sign(v["signer"], v["text"])},
    "cosign": lambda v: {"line": cosign(v["signer"], v["checkpoint"], v["timestamp"])},
    "open": lambda v: open_note(v["note"], v["keys"]),
    "checkpoint": lambda v: checkpoint(v["text"]),
}


def result(vector):
    try:
        return OPS[vector["op"]](vector)
    except Refused as e:
        return {"error": e.code}


# Fixed inputs: the log's and the witness's keys come from fixed seeds.
LOG = key_pair("log.example/audit", "01" * 32)
WITNESS = key_pair("witness.example/w1", "02" * 32)
CHECKPOINT = "log.example/audit\n5\n" + b64(hashlib.sha256(b"root").digest()) + "\n"
SIGNED = sign(LOG["signer"], CHECKPOINT)
COSIGNED = SIGNED + cosign(WITNESS["signer"], CHECKPOINT, 1764800000)
# golang.org/x/mod/sumdb/note's test key and text.
PETER = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"


def vectors():
    """name -> (description, inputs). Offsets and paths of refusals are the core's, kept from
    the file (this script checks the code only)."""
    return {
        "y_key_from_seed": ("A key pair's three strings from a 32-byte seed: signer, verifier (0x01), cosigner verifier (0x04)",
                            {"op": "key", "name": "log.example/audit", "seed_hex": "01" * 32}),
        "y_sign_go_known_answer": ("Go's sumdb/note TestSign: the same key and text give the same note",
                                   {"op": "sign", "signer": PETER, "text": GO_TEXT}),
        "y_sign_checkpoint": ("A log signs its checkpoint", {"op": "sign", "signer": LOG["signer"], "text": CHECKPOINT}),
        "y_cosign_checkpoint": ("A witness cosigns the checkpoint at a time (tlog-cosignature v1)",
                                {"op": "cosign", "signer": WITNESS["signer"], "checkpoint": CHECKPOINT, "timestamp": 1764800000}),
        "y_open_cosigned": ("The log's signature and the witness's cosignature both verify",
                            {"op": "open", "note": COSIGNED, "keys": [LOG["verifier"], WITNESS["cosigner"]]}),
        "y_open_unknown_key_ignored": ("A signature by an unknown key is ignored when a known one verifies",
                                       {"op": "open", "note": COSIGNED, "keys": [LOG["verifier"]]}),
        "y_open_c2sp_example": ("c2sp.org/signed-note's example note and key",
                                {"op": "open", "note": "This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n",
                                 "keys": ["example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"]}),
        "y_checkpoint_with_extension": ("A checkpoint with an extension line",
                                        {"op": "checkpoint", "text": CHECKPOINT + "ext\n"}),
        "n_checkpoint_invalid_cr": ("A CR before the blank line", {"op": "open", "note": SIGNED.replace("\n\n", "\r\n\n"), "keys": [LOG["verifier"]]}),
        "n_checkpoint_invalid_no_final_newline": ("The last signature line has no newline",
                                                  {"op": "open", "note": SIGNED[:-1], "keys": [LOG["verifier"]]}),
        "n_checkpoint_invalid_unpadded_signature": ("Signature base64 without its '='",
                                                    {"op": "open", "note": SIGNED.replace("=\n", "\n"), "keys": [LOG["verifier"]]}),
        "n_checkpoint_untrusted_altered_text": ("The size altered under the log's signature",
                                                {"op": "open", "note": SIGNED.replace("\n5\n", "\n6\n"), "keys": [LOG["verifier"]]}),
        "n_checkpoint_untrusted_no_known_key": ("Only the witness signed what the verifier trusts the log for",
                                                {"op": "open", "note": COSIGNED, "keys": [WITNESS["verifier"]]}),
        "n_checkpoint_untrusted_cosignature_time": ("The cosignature's timestamp altered (one second later)",
                                                    {"op": "open", "note": retime(COSIGNED), "keys": [LOG["verifier"], WITNESS["cosigner"]]}),
        "n_checkpoint_invalid_size_leading_zero": ("A size with a leading zero", {"op": "checkpoint", "text": CHECKPOINT.replace("\n5\n", "\n05\n")}),
        "n_checkpoint_invalid_key_id": ("A verifier key whose key ID is not its name's and key's",
                                        {"op": "open", "note": SIGNED, "keys": [LOG["verifier"].replace(LOG["verifier"].split("+")[1], "00000000")]}),
    }


def retime(note):
    """The cosignature line with its 8-byte timestamp one second later."""
    text, last = note.rsplit(DASH, 1)
    name, encoded = last.rstrip("\n").split(" ")
    raw = bytearray(base64.b64decode(encoded))
    raw[11] += 1
    return f"{text}{DASH}{name} {b64(bytes(raw))}\n"


def main():
    write = "--write" in sys.argv
    failures = 0
    for name, (description, inputs) in vectors().items():
        path = DIR / f"{name}.json"
        expect = result(inputs)
        if name.startswith("n_") != ("error" in expect):
            print(f"{name}: {'refused' if 'error' in expect else 'accepted'} by this derivation")
            failures += 1
        old = json.loads(path.read_text()) if path.exists() else {}
        # The core's path and offset of a refusal are kept; the code is this script's.
        for member in ("path", "offset"):
            if "error" in expect and member in old.get("expect", {}):
                expect[member] = old["expect"][member]
        doc = {"description": description, **inputs, "expect": expect}
        if write:
            path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        elif old != doc:
            print(f"{name}: the file differs from this derivation")
            failures += 1
    print(f"{len(vectors())} vectors, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
