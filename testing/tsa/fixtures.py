#!/usr/bin/env python3
"""Regenerates the RFC 3161 fixtures of actionseal-core (core/tests/timestamp/).

Run `testing/tsa/fixtures.sh`, which gives this script a venv with asn1crypto and
cryptography. Every token comes from `openssl ts -reply` (through tsa.sh); the few that
openssl will not make (a signer certificate without a critical EKU, a signer named by its
subjectKeyIdentifier, a token that carries no intermediate, a corrupted signature) are
openssl's tokens re-signed here with the fixture keys. The expected verdicts go to
verdicts.json, which the Rust tests and testing/tsa/crosscheck.sh both read.
"""

import datetime
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from asn1crypto import algos, cms, core, tsp, x509
from cryptography import x509 as cx509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "core", "tests", "timestamp")
DATA = b"actionseal time-stamp fixture\n"
OTHER = b"actionseal time-stamp fixture, edited\n"
NONCE = bytes.fromhex("9a3c5e7f10213243")  # high bit set: DER needs a leading zero
POLICY, OTHER_POLICY, UNKNOWN_POLICY = "1.2.3.4.1", "1.2.3.4.2", "1.2.3.4.9"
HASHES = {"sha256": hashlib.sha256, "sha384": hashlib.sha384, "sha512": hashlib.sha512}


def tsa(*args, stdin=None):
    return subprocess.run(
        [os.path.join(HERE, "tsa.sh"), *args], input=stdin, check=True, stdout=subprocess.PIPE
    ).stdout


class DigestAlgorithm(core.Sequence):
    """asn1crypto's own always writes NULL parameters; RFC 5754 §2 generates them absent."""

    _fields = [
        ("algorithm", algos.DigestAlgorithmId),
        ("parameters", core.Any, {"optional": True}),
    ]


class MessageImprint(core.Sequence):
    _fields = [("hash_algorithm", DigestAlgorithm), ("hashed_message", core.OctetString)]


class TimeStampReq(core.Sequence):
    """RFC 3161 §2.4.1 (no extensions)."""

    _fields = [
        ("version", core.Integer),
        ("message_imprint", MessageImprint),
        ("req_policy", core.ObjectIdentifier, {"optional": True}),
        ("nonce", core.Integer, {"optional": True}),
        ("cert_req", core.Boolean, {"default": False}),
    ]


def query(data, alg="sha256", nonce=NONCE, policy=None):
    """A TimeStampReq as RFC 3161 §2.4.1, SHA-2 parameters absent (RFC 5754 §2)."""
    req = {
        "version": 1,
        "message_imprint": {
            "hash_algorithm": {"algorithm": alg},
            "hashed_message": HASHES[alg](data).digest(),
        },
        "cert_req": True,
    }
    if policy:
        req["req_policy"] = policy
    if nonce is not None:
        req["nonce"] = int.from_bytes(nonce, "big")
    return TimeStampReq(req).dump()


def resign(resp_der, ca, leaf, sid="issuer_and_serial_number", certs=("intermediate",),
           ess_cert=None, rename=True):
    """openssl's response, signed again by `leaf` (signingCertificateV2, SHA-256, naming
    `ess_cert` when given instead of the leaf); with `rename`, the TSTInfo's tsa name becomes
    the leaf's subject, as RFC 3161 §2.4.2 wants."""
    resp = tsp.TimeStampResp.load(resp_der)
    token = resp["time_stamp_token"]
    signed = token["content"]
    info = signed["signer_infos"][0]
    cert_der = open(os.path.join(ca, leaf + ".der"), "rb").read()
    cert = x509.Certificate.load(cert_der)
    key = serialization.load_pem_private_key(
        open(os.path.join(ca, leaf + ".key"), "rb").read(), None
    )
    encap = signed["encap_content_info"]
    if rename:
        tst = tsp.TSTInfo.load(encap["content"].parsed.dump())
        tst["tsa"] = x509.GeneralName(name="directory_name", value=cert.subject)
        encap["content"] = tst
    digest = hashlib.sha256(encap["content"].parsed.dump()).digest()
    attrs = []
    for attr in info["signed_attrs"]:
        name = attr["type"].native
        if name in ("signing_certificate", "signing_certificate_v2"):
            continue
        if name == "message_digest":
            attr = cms.CMSAttribute({"type": "message_digest", "values": [digest]})
        attrs.append(attr)
    ess_der = open(os.path.join(ca, ess_cert + ".der"), "rb").read() if ess_cert else cert_der
    ess = tsp.SigningCertificateV2({"certs": [{"cert_hash": hashlib.sha256(ess_der).digest()}]})
    attrs.append(cms.CMSAttribute({"type": "signing_certificate_v2", "values": [ess]}))
    signed_attrs = cms.CMSAttributes(attrs)
    if sid == "subject_key_identifier":
        info["version"] = "v3"
        info["sid"] = cms.SignerIdentifier(
            name=sid, value=cert.key_identifier_value
        )
    else:
        info["version"] = "v1"
        info["sid"] = cms.SignerIdentifier(
            name=sid,
            value={"issuer": cert.issuer, "serial_number": cert.serial_number},
        )
    info["signed_attrs"] = signed_attrs
    info["digest_algorithm"] = {"algorithm": "sha256"}
    if isinstance(key, ec.EllipticCurvePrivateKey):
        info["signature_algorithm"] = {"algorithm": "sha256_ecdsa"}
        sig = key.sign(signed_attrs.dump(force=True), ec.ECDSA(hashes.SHA256()))
    else:
        info["signature_algorithm"] = {"algorithm": "sha256_rsa"}
        sig = key.sign(signed_attrs.dump(force=True), padding.PKCS1v15(), hashes.SHA256())
    info["signature"] = sig
    signed["certificates"] = [cert] + [
        x509.Certificate.load(open(os.path.join(ca, c + ".der"), "rb").read()) for c in certs
    ]
    return resp.dump(force=True)


def flip_signature(resp_der):
    resp = tsp.TimeStampResp.load(resp_der)
    info = resp["time_stamp_token"]["content"]["signer_infos"][0]
    sig = bytearray(info["signature"].native)
    sig[len(sig) // 2] ^= 0x01
    info["signature"] = bytes(sig)
    return resp.dump(force=True)


def tamper_tst_info(resp_der):
    """openssl's response with the TSTInfo's serial number changed and the signature kept."""
    resp = tsp.TimeStampResp.load(resp_der)
    encap = resp["time_stamp_token"]["content"]["encap_content_info"]
    tst = tsp.TSTInfo.load(encap["content"].parsed.dump())
    tst["serial_number"] = tst["serial_number"].native + 1
    encap["content"] = tst
    return resp.dump(force=True)


def summary(resp_der, ca, leaf):
    """What a verifier must report for a valid token, read by asn1crypto and cryptography."""
    resp = tsp.TimeStampResp.load(resp_der)
    tst = resp["time_stamp_token"]["content"]["encap_content_info"]["content"].parsed
    gen = tst["gen_time"].native
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    cert = cx509.load_der_x509_certificate(open(os.path.join(ca, leaf + ".der"), "rb").read())
    return {
        "gen_time_ms": (gen - epoch) // datetime.timedelta(milliseconds=1),
        "serial": format(tst["serial_number"].native, "x"),
        "policy": tst["policy"].dotted,
        "tsa_name": cert.subject.rfc4514_string(),
        "imprint_algorithm": tst["message_imprint"]["hash_algorithm"]["algorithm"].native,
        "imprint": tst["message_imprint"]["hashed_message"].native.hex(),
    }


def main():
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    work = tempfile.mkdtemp()
    try:
        ca, other = os.path.join(work, "ca"), os.path.join(work, "other")
        tsa("init", ca)
        tsa("init", other)
        # Valid only in 2020: every token made today falls after it.
        tsa("leaf", ca, "tsa-expired", "p256", "v3_tsa", "20200101000000Z", "20210101000000Z")
        tsa("section", ca, "tsa_expired", "tsa-expired", "sha256", "sha256")
        tsa("leaf", ca, "tsa-noncritical", "p256", "v3_tsa_noncritical",
            "20250101000000Z", "20991231235959Z")
        tsa("leaf", ca, "tsa-unknown-critical", "p256", "v3_tsa_unknown_critical",
            "20250101000000Z", "20991231235959Z")
        tsa("section", ca, "tsa_unknown_critical", "tsa-unknown-critical", "sha256", "sha256")

        def put(name, blob):
            with open(os.path.join(OUT, name), "wb") as f:
                f.write(blob)

        put("data.txt", DATA)
        put("other.txt", OTHER)
        shutil.copy(os.path.join(ca, "root.der"), os.path.join(OUT, "root.der"))
        shutil.copy(os.path.join(ca, "intermediate.der"), os.path.join(OUT, "intermediate.der"))
        shutil.copy(os.path.join(other, "root.der"), os.path.join(OUT, "other-root.der"))

        queries = {
            "query-nonce.tsq": query(DATA),
            "query-policy.tsq": query(DATA, nonce=None, policy=OTHER_POLICY),
            "query-sha512.tsq": query(DATA, alg="sha512"),
            "query-unknown-policy.tsq": query(DATA, policy=UNKNOWN_POLICY),
            "query-other-nonce.tsq": query(DATA, nonce=bytes.fromhex("01")),
            "query-nonce-other-policy.tsq": query(DATA, policy=OTHER_POLICY),
        }
        for name, blob in queries.items():
            put(name, blob)

        rsa = tsa("reply", ca, "tsa_rsa", stdin=queries["query-nonce.tsq"])
        put("rsa.tsr", rsa)
        put("rsa.tst", tsp.TimeStampResp.load(rsa)["time_stamp_token"].dump())
        p256 = tsa("reply", ca, "tsa_p256", stdin=queries["query-policy.tsq"])
        put("p256.tsr", p256)
        p384 = tsa("reply", ca, "tsa_p384", stdin=queries["query-sha512.tsq"])
        put("p384.tsr", p384)
        put("expired.tsr", tsa("reply", ca, "tsa_expired", stdin=queries["query-nonce.tsq"]))
        put("rejected.tsr", tsa("reply", ca, "tsa_rsa", stdin=queries["query-unknown-policy.tsq"]))
        put("ski.tsr", resign(rsa, ca, "tsa-rsa", sid="subject_key_identifier"))
        put("leaf-only.tsr", resign(rsa, ca, "tsa-rsa", certs=()))
        put("noncritical.tsr", resign(rsa, ca, "tsa-noncritical"))
        put("bad-signature.tsr", flip_signature(rsa))
        put("ess-other-cert.tsr", resign(rsa, ca, "tsa-rsa", ess_cert="tsa-p256"))
        put("tampered-tst-info.tsr", tamper_tst_info(rsa))
        put("tsa-name-other.tsr", resign(rsa, ca, "tsa-p256", rename=False))
        put("unknown-critical.tsr",
            tsa("reply", ca, "tsa_unknown_critical", stdin=queries["query-nonce.tsq"]))

        nonce = NONCE.hex()
        base = {"data": "data.txt", "roots": ["root.der"]}
        cases = [
            dict(base, name="rsa_valid", token="rsa.tsr", nonce=nonce, policy=POLICY,
                 query="query-nonce.tsq", expect="ok", result=summary(rsa, ca, "tsa-rsa")),
            dict(base, name="rsa_bare_token", token="rsa.tst", expect="ok",
                 result=summary(rsa, ca, "tsa-rsa")),
            dict(base, name="p256_ess_v1", token="p256.tsr", policy=OTHER_POLICY,
                 query="query-policy.tsq", expect="ok", result=summary(p256, ca, "tsa-p256")),
            dict(base, name="p384_sha512_imprint", token="p384.tsr", nonce=nonce,
                 query="query-sha512.tsq", expect="ok", result=summary(p384, ca, "tsa-p384")),
            dict(base, name="signer_by_key_identifier", token="ski.tsr", nonce=nonce,
                 expect="ok", skip={
                     "openssl": "openssl ts reads SignerInfo as PKCS#7, which has no "
                                "subjectKeyIdentifier signer (RFC 5652 §5.3 sid version 3)",
                     "python": "rfc3161-client finds the signer by issuerAndSerialNumber only",
                 }),
            dict(base, name="intermediate_from_trust", token="leaf-only.tsr",
                 extra=["intermediate.der"], expect="ok"),
            dict(base, name="intermediate_missing", token="leaf-only.tsr",
                 expect="timestamp_untrusted"),
            dict(base, name="wrong_imprint", token="rsa.tsr", data="other.txt",
                 expect="timestamp_mismatch"),
            dict(base, name="untrusted_root", token="rsa.tsr", roots=["other-root.der"],
                 expect="timestamp_untrusted"),
            dict(base, name="certificate_expired", token="expired.tsr",
                 expect="timestamp_untrusted"),
            dict(base, name="eku_not_critical", token="noncritical.tsr",
                 expect="timestamp_untrusted"),
            dict(base, name="nonce_mismatch", token="rsa.tsr", nonce="01",
                 query="query-other-nonce.tsq", expect="timestamp_mismatch"),
            dict(base, name="policy_mismatch", token="rsa.tsr", nonce=nonce, policy=OTHER_POLICY,
                 query="query-nonce-other-policy.tsq", expect="timestamp_mismatch"),
            dict(base, name="signature_flipped", token="bad-signature.tsr",
                 expect="timestamp_invalid"),
            dict(base, name="ess_names_another_certificate", token="ess-other-cert.tsr",
                 expect="timestamp_invalid", skip={
                     "python": "rfc3161-client does not compare the ESS certificate hash "
                               "with the signer's certificate (openssl does)",
                 }),
            dict(base, name="tst_info_altered", token="tampered-tst-info.tsr",
                 expect="timestamp_invalid"),
            dict(base, name="tsa_name_not_signer", token="tsa-name-other.tsr",
                 expect="timestamp_invalid", skip={
                     "python": "rfc3161-client does not compare the TSTInfo's tsa name with "
                               "the signer (openssl does)",
                 }),
            dict(base, name="unknown_critical_extension", token="unknown-critical.tsr",
                 expect="timestamp_untrusted"),
            dict(base, name="status_rejection", token="rejected.tsr",
                 expect="timestamp_invalid"),
        ]
        requests = [
            {"file": "query-nonce.tsq", "algorithm": "sha256", "nonce": nonce},
            {"file": "query-policy.tsq", "algorithm": "sha256", "policy": OTHER_POLICY},
            {"file": "query-sha512.tsq", "algorithm": "sha512", "nonce": nonce},
        ]
        with open(os.path.join(OUT, "verdicts.json"), "w") as f:
            json.dump({"cases": cases, "requests": requests}, f, indent=1)
            f.write("\n")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    sys.exit(main())
