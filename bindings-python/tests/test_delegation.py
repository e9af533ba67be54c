"""Delegation through the Python API: ``sign_delegation``, ``verify_delegation`` and
``delegation_digest``."""

import actionseal
from conftest import error_of

DOCUMENT = {
    "delegation_id": "dlg-1",
    "delegator": "user:carol",
    "delegate": "user:dave",
    "tenant": "tenant-a",
    "tools": ["refund_create"],
    "when": [{"pointer": "/args/amount_minor", "op": "lte", "value": 50000}],
    "not_before": 1764500000000,
    "not_after": 1765000000000,
}
AT = 1764500600000


def test_a_signed_delegation_verifies_against_its_key_set():
    key = actionseal.SigningKey.generate()
    envelope = actionseal.sign_delegation(DOCUMENT, key)
    assert envelope["payloadType"] == "application/vnd.actionseal.delegation+json"
    # Deterministic, and the same from the key's JWK or seed.
    assert actionseal.sign_delegation(DOCUMENT, key.to_jwk()) == envelope
    assert actionseal.sign_delegation(DOCUMENT, key.to_jwk()["d"]) == envelope
    keys = {"service_keys": {key.keyid: {"key": key.public_jwk, "approvers": ["user:carol"]}}}
    verified = actionseal.verify_delegation(envelope, keys, AT)
    digest = actionseal.delegation_digest(DOCUMENT)
    assert verified == {"delegation": DOCUMENT, "digest": digest, "signer": {"keyid": key.keyid, "kind": "service"}}
    # The digest is the document's fingerprint, not the envelope's.
    assert digest == actionseal.fingerprint(DOCUMENT) != actionseal.fingerprint(envelope)
    # A key that may not sign for the delegator.
    other = {"service_keys": {key.keyid: {"key": key.public_jwk, "approvers": ["user:erin"]}}}
    assert error_of(actionseal.verify_delegation, envelope, other, AT).code == "signer_not_allowed"


def test_a_malformed_document_is_refused_everywhere():
    key = actionseal.SigningKey.generate()
    self_delegated = dict(DOCUMENT, delegate="user:carol")
    for fn, args in [
        (actionseal.delegation_digest, (self_delegated,)),
        (actionseal.sign_delegation, (self_delegated, key)),
    ]:
        err = error_of(fn, *args)
        assert (err.code, err.path) == ("invalid_delegation", "/delegate")


def test_arguments_of_the_wrong_type_are_coded_errors():
    for call, code in [
        (lambda: actionseal.verify_delegation(DOCUMENT, {}, -1), "invalid_request"),
        (lambda: actionseal.verify_delegation(DOCUMENT, {}, "0"), "invalid_request"),
        (lambda: actionseal.verify_delegation(DOCUMENT, 7, 0), "invalid_key_set"),
        (lambda: actionseal.sign_delegation(DOCUMENT, 7), "invalid_key"),
        (lambda: actionseal.sign_delegation(DOCUMENT, {1: 2}), "non_string_key"),
        (lambda: actionseal.delegation_digest(object()), "unsupported_type"),
    ]:
        assert error_of(call).code == code
