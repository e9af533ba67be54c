"""Evidence through the Python binding, on SQLite and on PostgreSQL: a ledger opened with its
checkpoint key (``log_key``, the CLI's ``--log-key`` string) makes signed checkpoints and
exports a task's bundle, which ``verify_evidence`` verifies in the same runtime with only the
verifier's trust; a bundle broken after the export raises its code and path."""

import pytest

import actionseal
from conftest import error_of
from evidence_support import LOG_KEY, LOG_VERIFIER, TRUST, broken, exported, refund_story
from ledger_support import COMMON, fresh  # noqa: F401 (a fixture)


def test_a_checkpoint_is_a_signed_note(fresh):
    clock = actionseal.ManualClock(COMMON["start"])
    with actionseal.Ledger(fresh.url(), clock=clock, log_key=LOG_KEY) as ledger:
        refund_story(ledger)
        c = ledger.checkpoint()
        assert set(c) == {"size", "root", "note", "at", "cosignatures"}
        lines = c["note"].split("\n")
        # C2SP tlog-checkpoint: origin, size, base64 root; then the ledger's signature line.
        assert lines[:3] == ["PeterNeumann", str(c["size"]), c["root"]]
        assert lines[4].startswith("\u2014 PeterNeumann ")
        assert (c["at"], c["cosignatures"]) == (COMMON["start"], [])
        assert c["size"] == len(ledger.audit_export().splitlines())


def test_an_exported_bundle_verifies_in_the_same_runtime(fresh):
    bundle, _ = exported(fresh.url())
    assert bundle["version"] == 1 and bundle["keys"] == {"ledger": [LOG_VERIFIER]}
    # The canonical text is what a file holds; it verifies as well as the dict.
    text = actionseal.canonicalize(bundle)
    timeline = actionseal.verify_evidence(actionseal.loads(text), TRUST)
    assert timeline == actionseal.verify_evidence(bundle, TRUST)
    assert (timeline["task"], timeline["state"]) == (bundle["task"], "succeeded")
    assert [s["kind"] for s in timeline["steps"]] == ["proposed", "decided", "claimed", "completed"]
    assert (timeline["exported_by"], timeline["log"]["origin"]) == ("auditor:carol", "PeterNeumann")


@pytest.mark.parametrize("case", range(12))
def test_a_broken_bundle_raises_its_code_and_path(case):
    code, label, bundle, trust = broken(*exported())[case]
    err = error_of(actionseal.verify_evidence, bundle, trust)
    assert err.code == code, (label, str(err))
    assert isinstance(err.path, str) and err.path.startswith("/"), (label, err.path)


def test_an_edited_event_is_named_by_its_pointer():
    code, _, bundle, trust = broken(*exported())[2]
    err = error_of(actionseal.verify_evidence, bundle, trust)
    assert (err.code, err.path.startswith("/events/0")) == (code, True), str(err)


def test_the_contract_may_be_given_as_a_contract_or_a_document():
    clock = actionseal.ManualClock(COMMON["start"])
    with actionseal.Ledger("sqlite::memory:", clock=clock, log_key=LOG_KEY) as ledger:
        task = refund_story(ledger)
        contract = actionseal.Contract(exported()[0]["contract"])
        for given in (contract, contract.document, None):
            bundle = ledger.evidence(task["id"], "auditor:carol", given)
            assert actionseal.verify_evidence(bundle, TRUST)["task"] == task["id"]


def test_bad_keys_and_arguments_are_coded_errors():
    err = error_of(actionseal.Ledger, "sqlite::memory:", log_key="PRIVATE+KEY+nope")
    assert (err.code, err.path) == ("checkpoint_invalid", "/log_key")
    err = error_of(actionseal.Ledger, "sqlite::memory:", log_key=7)
    assert (err.code, err.path) == ("invalid_request", "/log_key")
    with actionseal.Ledger("sqlite::memory:") as keyless:
        task = refund_story(keyless)
        # Without a key there is no checkpoint, and so no bundle (and nothing recorded).
        assert error_of(keyless.checkpoint).code == "invalid_request"
        assert error_of(keyless.evidence, task["id"], "auditor:carol").code == "invalid_request"
        assert [e["kind"] for e in keyless.history(task["id"])["events"]][-1] == "completed"
    with actionseal.Ledger("sqlite::memory:", log_key=LOG_KEY) as ledger:
        err = error_of(ledger.evidence, 7, "auditor:carol")
        assert (err.code, err.path) == ("invalid_request", "/task_id")
        err = error_of(ledger.evidence, "task_x", " ")
        assert (err.code, err.path) == ("invalid_request", "/actor")
        assert error_of(ledger.evidence, "task_" + "0" * 32, "auditor:carol").code == "task_not_found"
