"""OpenTelemetry through the Python binding, on SQLite and on PostgreSQL, with the SDK's
in-memory exporter and metric reader: the spans of propose, amend, decide, claim, complete and
reconcile, of a batch's (propose_batch, amend_batch, decide_batch, claim_item, complete_item,
claim_batch) and of shredding's (set_retention, redact, retention_run) carry the attributes
core's table (``Ledger.telemetry_schema()``) maps, and no others; a refused call has its event
and an error status with its code; the counters count claims, refusals by reason and drift; an
adapter's gate is an ``execute_tool`` span over the ledger's; no argument value reaches any of
it; and without ``opentelemetry-api`` nothing is wrapped."""

import asyncio
import re
import subprocess
import sys

import pytest

import actionseal
from actionseal import _actionseal, _telemetry
from actionseal.adapters._common import Pause, Run, Seal, Trusted
from ledger_support import COMMON, contract_of, facts_for, fresh  # noqa: F401 (a fixture)

otel = pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry import metrics, trace  # noqa: E402
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

REFUND = contract_of("refund")
IDS = {k: COMMON["ids"][k] for k in ("tenant", "subject", "policy_version")}
ARGS = {"order_id": "order-17", "amount_minor": 2500, "currency": "USD", "reason": "damaged parcel"}
DRIFTED = {**ARGS, "amount_minor": 2600}
RESULT = {"refund": "re_secret_991"}
# Every value of the calls' arguments and business results, as text and as numbers.
VALUES = ["order-17", "2500", "2600", "USD", "damaged parcel", "re_secret_991", "amend-note"]
SCHEMA = actionseal.Ledger.telemetry_schema()

_exporter = InMemorySpanExporter()
_reader = InMemoryMetricReader()


@pytest.fixture(scope="module", autouse=True)
def providers():
    """The global providers can be set once per process: this module's test reads them."""
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(_exporter))
    trace.set_tracer_provider(tp)
    metrics.set_meter_provider(MeterProvider(metric_readers=[_reader]))


@pytest.fixture
def spans():
    _exporter.clear()
    _reader.get_metrics_data()  # cumulative: tests compare against a baseline instead
    return _exporter


def counts():
    """Each counter's points: {name: {frozenset(attributes): value}}."""
    out = {}
    data = _reader.get_metrics_data()
    for rm in data.resource_metrics if data else []:
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                for p in m.data.data_points:
                    out.setdefault(m.name, {})[frozenset(p.attributes.items())] = p.value
    return out


def delta(before, after):
    return {name: {k: v - before.get(name, {}).get(k, 0) for k, v in points.items()
                   if v != before.get(name, {}).get(k, 0)} for name, points in after.items()}


def expected(op, result):
    """The attributes core's table maps from ``result``, walked here independently."""
    def at(v, p):
        for t in p.split("/")[1:] if p else []:
            v = v.get(t) if isinstance(v, dict) else None
        return v
    rows = [(at(result, SCHEMA["ops"][op][of]), SCHEMA[of]) for of in ("task", "batch") if of in SCHEMA["ops"][op]]
    out = dict(SCHEMA["constants"].get(op, {}))
    for src, table in rows + [(result, SCHEMA["result"].get(op, {}))]:
        for name, p in table.items():
            v = at(src, p)
            if v is not None and not isinstance(v, dict):
                out[name] = list(v) if isinstance(v, list) else v
    return out


def attrs(span):
    return {k: list(v) if isinstance(v, tuple) else v for k, v in span.attributes.items()}


def decision(task, decision_id, now):
    return {
        "approval_id": task["approval_id"], "decision_id": decision_id, "job_id": task["job_id"],
        "request_id": task["request_id"], "action_digest": task["action_digest"], "decision": "approved",
        "approver": COMMON["approver"], "decided_at": now, "expires_at": now + 3_600_000,
    }


def emitted_text(finished, metric_counts):
    """Everything emitted, as one text for the checks that no argument value leaks: runs of 16
    or more hex digits (digests, derived ids) masked, since a value's digits occur in a digest
    of salted commitments by chance (2500 in one of about a hundred)."""
    return re.sub(r"[0-9a-f]{16,}", "#", "\n".join(everything_emitted(finished, metric_counts)))


def everything_emitted(finished, metric_counts):
    """Every name, attribute value, event and status text of the spans and counters."""
    out = []
    for s in finished:
        out.append(s.name)
        out.extend(repr(v) for v in s.attributes.values())
        out.append(repr(s.status.description))
        for e in s.events:
            out.append(e.name)
            out.extend(repr(v) for v in e.attributes.values())
    for points in metric_counts.values():
        out.extend(repr(sorted(k)) for k in points)
    return out


def test_the_ledger_is_instrumented_with_opentelemetry():
    assert issubclass(actionseal.Ledger, _actionseal.Ledger) and actionseal.Ledger is not _actionseal.Ledger
    assert set(_telemetry.OPS) | {"gate"} == set(SCHEMA["ops"])
    for op in _telemetry.OPS:
        assert callable(getattr(actionseal.Ledger, op)), op


def test_spans_attributes_events_and_counters_of_a_refund(fresh, spans):
    before = counts()
    with actionseal.Ledger(fresh.url()) as ledger:
        act = actionseal.action(REFUND, ARGS, job_id="job-1", request_id="call-1", **IDS)
        proposed = task = ledger.propose(act, REFUND, proposer="agent")
        amended_act = actionseal.action(REFUND, {**ARGS, "amount_minor": 2400}, job_id="job-1",
                                        request_id="call-1", **IDS)
        amended = ledger.amend(task["id"], amended_act, REFUND, amends=task["action_digest"],
                               reviewer="user:carol", reason="amend-note")
        task = amended["task"]
        decided = ledger.decide(decision(task, "d1", ledger.now()))
        drifted = actionseal.action(REFUND, DRIFTED, job_id="job-1", request_id="call-1", **IDS)
        drift = ledger.claim(task["id"], drifted, facts_for(REFUND), executor="w1", lease_ms=60_000)
        won = ledger.claim(task["id"], amended_act, facts_for(REFUND), executor="w1", lease_ms=60_000)
        with pytest.raises(actionseal.ActionsealError) as refused:
            ledger.claim(task["id"], amended_act, facts_for(REFUND), executor="w2", lease_ms=60_000)
        done = ledger.complete(task["id"], won["claim"]["fence"], "unknown", executor="w1", result=RESULT)
        settled = ledger.reconcile(task["id"], "succeeded", actor="ops", result=RESULT)
    finished = spans.get_finished_spans()
    by_op = [(op, r) for op, r in [("propose", proposed), ("amend", amended), ("decide", decided),
                                    ("claim", drift), ("claim", won), ("claim", None),
                                    ("complete", done), ("reconcile", settled)]]
    assert [s.name for s in finished] == [SCHEMA["ops"][op]["span"] for op, _ in by_op]
    for s, (op, result) in zip(finished, by_op):
        if result is not None:
            assert attrs(s) == expected(op, result), op
    propose, amend, decide, drift_span, won_span, refused_span, complete, reconcile = finished
    # The GenAI names and actionseal's, by value (not only as the table says).
    a = attrs(propose)
    assert (a["gen_ai.tool.name"], a["gen_ai.tool.call.id"], a["actionseal.task.id"]) == (
        "refund_create", "call-1", task["id"])
    assert attrs(amend)["actionseal.amended.pointers"] == ["/args/amount_minor"]
    assert attrs(decide)["actionseal.approver"] == COMMON["approver"]
    assert attrs(decide)["actionseal.fingerprint"] == task["action_digest"]
    d = attrs(drift_span)
    assert (d["actionseal.outcome"], d["actionseal.drift.pointers"]) == ("tool_args_drift", ["/args/amount_minor"])
    assert [e.name for e in drift_span.events] == [SCHEMA["refused"]["event"]]
    assert list(drift_span.events[0].attributes["actionseal.reasons"]) == d["actionseal.reasons"] != []
    assert won_span.events == () or list(won_span.events) == []
    assert drift_span.status.status_code == won_span.status.status_code == trace.StatusCode.UNSET
    # A raised refusal: the event with its code, an error status with the code only.
    code = refused.value.code
    assert refused_span.status.status_code == trace.StatusCode.ERROR
    assert refused_span.status.description == code
    assert [(e.name, list(e.attributes["actionseal.reasons"])) for e in refused_span.events] == [
        (SCHEMA["refused"]["event"], [code])]
    assert attrs(reconcile)["actionseal.outcome"] == "succeeded"
    assert attrs(complete)["actionseal.outcome"] == "unknown"
    # Counters: two claims that returned (one won, one drifted), the drift, every reason.
    got = delta(before, counts())
    claims, refusals, drift_n = (SCHEMA["counters"][k]["name"] for k in ("claims", "refusals", "drift"))
    assert got[claims] == {
        frozenset({("actionseal.outcome", "tool_args_drift"), ("gen_ai.tool.name", "refund_create")}): 1,
        frozenset({("actionseal.outcome", "claimed"), ("gen_ai.tool.name", "refund_create")}): 1}
    assert got[drift_n] == {frozenset({("gen_ai.tool.name", "refund_create")}): 1}
    want = {frozenset({("actionseal.reason", r), ("actionseal.operation", "claim")}): 1
            for r in d["actionseal.reasons"] + [code]}
    assert got[refusals] == want
    # No argument value anywhere, in any spelling the emitted text could carry it.
    emitted = emitted_text(finished, counts())
    for v in VALUES:
        assert v not in emitted, v
    assert "order-17" in repr(won), "the check above would see a value that leaked"


def test_spans_of_a_batch_its_items_claimed_and_completed(fresh, spans):
    before = counts()
    contract = {**REFUND, "batch": {"max_items": 3}}
    actions = [actionseal.action(contract, {**ARGS, "order_id": f"order-1{i}"}, job_id="outage-1",
                                 request_id=f"refund-{i}", **IDS) for i in range(3)]
    with actionseal.Ledger(fresh.url()) as ledger:
        proposed = ledger.propose_batch(actions, contract, semantics="per_item", proposer="agent")
        amended = ledger.amend_batch(proposed["id"], amends=proposed["digest"], deselect=[2],
                                     reviewer="user:carol", reason="amend-note")
        now = ledger.now()
        decided = ledger.decide_batch({
            "approval_id": amended["approval_id"], "decision_id": "bd1", "batch_id": amended["id"],
            "batch_digest": amended["digest"], "decision": "approved", "approver": COMMON["approver"],
            "decided_at": now, "expires_at": now + 3_600_000})
        item = proposed["items"][0]["task_id"]
        won = ledger.claim_item(item, actions[0], facts_for(contract), executor="w1", lease_ms=60_000)
        done = ledger.complete_item(item, won["claim"]["fence"], "succeeded", executor="w1", result=RESULT)
    finished = spans.get_finished_spans()
    by_op = [("propose_batch", proposed), ("amend_batch", amended), ("decide_batch", decided),
             ("claim_item", won), ("complete_item", done)]
    assert [s.name for s in finished] == [SCHEMA["ops"][op]["span"] for op, _ in by_op]
    for s, (op, result) in zip(finished, by_op):
        assert attrs(s) == expected(op, result), op
    propose, amend, decide, claim, complete = (attrs(s) for s in finished)
    assert (propose["actionseal.batch.id"], propose["actionseal.batch.state"]) == (proposed["id"], "awaiting_approval")
    assert (amend["actionseal.batch.digest"], amend["actionseal.batch.proposed_digest"]) == (
        amended["digest"], proposed["digest"])
    assert (decide["actionseal.outcome"], decide["actionseal.approver"]) == ("approved", COMMON["approver"])
    assert (claim["actionseal.outcome"], claim["actionseal.task.id"]) == ("claimed", item)
    assert complete["actionseal.outcome"] == "succeeded"
    got = delta(before, counts())
    assert got[SCHEMA["counters"]["claims"]["name"]] == {
        frozenset({("actionseal.outcome", "claimed"), ("gen_ai.tool.name", "refund_create")}): 1}
    emitted = emitted_text(finished, counts())
    for v in VALUES + ["order-10", "order-11"]:
        assert v not in emitted, v


def test_the_span_of_an_all_or_nothing_batch_claimed_whole(fresh, spans):
    contract = {**REFUND, "batch": {"max_items": 2}}
    actions = [actionseal.action(contract, {**ARGS, "order_id": f"order-2{i}"}, job_id="outage-2",
                                 request_id=f"refund-{i}", **IDS) for i in range(2)]
    drifted = [actions[0], {**actions[1], "args": {**actions[1]["args"], "amount_minor": 2600}}]
    with actionseal.Ledger(fresh.url()) as ledger:
        batch = ledger.propose_batch(actions, contract, semantics="all_or_nothing", proposer="agent")
        now = ledger.now()
        ledger.decide_batch({
            "approval_id": batch["approval_id"], "decision_id": "bd2", "batch_id": batch["id"],
            "batch_digest": batch["digest"], "decision": "approved", "approver": COMMON["approver"],
            "decided_at": now, "expires_at": now + 3_600_000})
        spans.clear()
        drift = ledger.claim_batch(batch["id"], drifted, facts_for(contract), executor="w1", lease_ms=60_000)
        whole = ledger.claim_batch(batch["id"], actions, facts_for(contract), executor="w1", lease_ms=60_000)
    finished = spans.get_finished_spans()
    assert [s.name for s in finished] == [SCHEMA["ops"]["claim_batch"]["span"]] * 2
    assert [attrs(s) for s in finished] == [expected("claim_batch", drift), expected("claim_batch", whole)]
    assert [attrs(s)["actionseal.outcome"] for s in finished] == ["tool_args_drift", "claimed"]
    emitted = emitted_text(finished, counts())
    for v in VALUES + ["order-20", "order-21"]:
        assert v not in emitted, v


def test_spans_of_a_redaction_a_retention_policy_and_a_retention_run(fresh, spans):
    # The reason a customer wrote, marked sensitive (issue 29).
    contract = {**REFUND, "sensitive": {"/args/reason": "pii"}}

    def proposed(ledger, request):
        act = actionseal.action(contract, ARGS, job_id="job-s", request_id=request, **IDS)
        return ledger.propose(act, contract, proposer="agent")

    with actionseal.Ledger(fresh.url()) as ledger:
        policy = ledger.set_retention(IDS["tenant"], "pii", keep_ms=0, at_finish="keep", actor="ops")
        a = proposed(ledger, "call-s1")
        proposed(ledger, "call-s2")
        redacted = ledger.redact(a["id"], actor="ops")
        ran = ledger.retention_run(actor="ops")
        with pytest.raises(actionseal.ActionsealError) as refused:
            ledger.redact("no-such-task", actor="ops")
    finished = spans.get_finished_spans()
    by_op = [("set_retention", policy), ("propose", a), ("propose", None), ("redact", redacted),
             ("retention_run", ran), ("redact", None)]
    assert [s.name for s in finished] == [SCHEMA["ops"][op]["span"] for op, _ in by_op]
    for s, (op, result) in zip(finished, by_op):
        if result is not None:
            assert attrs(s) == expected(op, result), op
    set_span, _, _, redact_span, run_span, refused_span = finished
    assert [attrs(set_span)[k] for k in ("actionseal.tenant", "actionseal.retention.class",
                                          "actionseal.retention.at_finish", "actionseal.actor")] == [
        IDS["tenant"], "pii", "keep", "ops"]
    assert attrs(redact_span)["actionseal.task.id"] == a["id"]
    assert attrs(run_span) == {}
    assert refused_span.status.description == refused.value.code
    emitted = emitted_text(finished, counts())
    for v in VALUES:
        assert v not in emitted, v


def test_every_emitted_name_is_in_the_table(fresh, spans):
    names = set(SCHEMA["task"]) | set(SCHEMA["batch"]) | {n for t in SCHEMA["result"].values() for n in t}
    names |= {n for t in SCHEMA["constants"].values() for n in t}
    test_spans_attributes_events_and_counters_of_a_refund(fresh, spans)
    for s in spans.get_finished_spans():
        assert set(s.attributes) <= names, s.name
        for e in s.events:
            assert set(e.attributes) == {SCHEMA["refused"]["reasons"], SCHEMA["refused"]["operation"]}


TRUSTED = Trusted(tenant=IDS["tenant"], subject=IDS["subject"], policy_version=IDS["policy_version"],
                  approvers={COMMON["approver"]})


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_adapters_gate_is_an_execute_tool_span_over_the_ledgers(fresh, spans, mode):
    with actionseal.Ledger(fresh.url()) as ledger:
        seal = Seal(ledger if mode == "sync" else actionseal.AsyncLedger.of(ledger), {"refund_create": REFUND})

        def gate():
            if mode == "sync":
                return seal.gate("refund_create", ARGS, TRUSTED, job_id="job-9", request_id="call-9")
            return asyncio.run(seal.agate("refund_create", ARGS, TRUSTED, job_id="job-9", request_id="call-9"))

        paused = gate()
        assert isinstance(paused, Pause)
        task = paused.task
        ledger.decide(decision(task, "d9", ledger.now()))
        spans.clear()
        ran = gate()
        assert isinstance(ran, Run)
        seal.finish(ran, "succeeded", RESULT)
    finished = spans.get_finished_spans()
    outer = next(s for s in finished if s.name == "execute_tool refund_create")
    a = attrs(outer)
    assert (a["gen_ai.operation.name"], a["gen_ai.tool.name"], a["gen_ai.tool.call.id"]) == (
        "execute_tool", "refund_create", "call-9")
    assert (a["actionseal.outcome"], a["actionseal.task.id"]) == ("run", task["id"])
    inner = [s.name for s in finished if s.parent is not None and s.parent.span_id == outer.context.span_id]
    assert inner == ["actionseal.propose", "actionseal.claim"]
    emitted = emitted_text(finished, {})
    for v in VALUES:
        assert v not in emitted, v


def test_a_refused_gate_has_the_refusal_event(fresh, spans):
    with actionseal.Ledger(fresh.url()) as ledger:
        seal = Seal(ledger, {"refund_create": REFUND})
        bad = seal.gate("refund_create", {**ARGS, "amount_minor": "2500"}, TRUSTED, job_id="j", request_id="c")
    [outer] = [s for s in spans.get_finished_spans() if s.name.startswith("execute_tool")]
    assert attrs(outer)["actionseal.outcome"] == "refuse"
    assert [list(e.attributes["actionseal.reasons"]) for e in outer.events] == [[bad.code]]
    assert "2500" not in emitted_text([outer], {})


def test_without_opentelemetry_nothing_is_wrapped():
    code = (
        "import sys; sys.modules['opentelemetry'] = None\n"
        "import actionseal, actionseal._actionseal as raw, actionseal._telemetry as t\n"
        "assert actionseal.Ledger is raw.Ledger and t.SCHEMA is None\n"
        "with t.gate_span('x') as rec: assert rec is None\n"
        "print('plain')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "plain\n"
