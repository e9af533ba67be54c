"""OpenTelemetry spans and counters for the ledger and the adapters' gate, when the optional
``opentelemetry-api`` is installed; without it ``instrument`` returns the class it is given and
``gate_span`` does nothing, so the only cost is the import check below.

What is emitted is core's table (``Ledger.telemetry_schema()``), the same in Node: span names,
which member of an operation's result each attribute comes from (by JSON Pointer), the event of
a refused call and the counters. This module only walks the pointers and calls the API. No
argument value is ever read: an error's message may quote one, so a refused call records its
code only (the status description and the event), never the message or the exception.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional, TypeVar

from ._actionseal import ActionsealError, Ledger as _Ledger

try:
    from opentelemetry import metrics, trace
except ImportError:  # the optional dependency is absent: everything below is a no-op
    metrics = trace = None  # type: ignore[assignment]

SCHEMA: Optional[Dict[str, Any]] = _Ledger.telemetry_schema() if trace is not None else None

OPS = tuple(op for op in SCHEMA["ops"] if op != "gate") if SCHEMA is not None else ()
"""The ledger operations that have a span: core's table's, the gate's aside (the names of the
ledger's methods); none without OpenTelemetry."""


def _pointer(value: Any, pointer: str) -> Any:
    """The member of ``value`` at an RFC 6901 pointer of the table (its tokens need no
    unescaping: the table's are plain names), or None."""
    for token in pointer.split("/")[1:] if pointer else []:
        if not isinstance(value, dict):
            return None
        value = value.get(token)
    return value


def _attribute(value: Any) -> Any:
    """The value as an attribute (str, bool, int or a list of str), or None to leave it out."""
    if isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def attributes(op: str, result: Any) -> Dict[str, Any]:
    """The attributes of ``op``'s span from its result, as the table maps them."""
    assert SCHEMA is not None
    out: Dict[str, Any] = dict(SCHEMA["constants"].get(op, {}))
    rows = [
        (_pointer(result, SCHEMA["ops"][op][of]), SCHEMA[of])
        for of in ("task", "batch")
        if of in SCHEMA["ops"][op]
    ]
    rows.append((result, SCHEMA["result"].get(op, {})))
    for source, table in rows:
        for name, pointer in table.items():
            v = _attribute(_pointer(source, pointer))
            if v is not None:
                out[name] = v
    return out


class _Counters:
    """The table's counters on the global meter provider (a proxy until the app sets one)."""

    def __init__(self) -> None:
        assert SCHEMA is not None and metrics is not None
        meter = metrics.get_meter(SCHEMA["scope"])
        c = SCHEMA["counters"]
        self.claims, self.refusals, self.drift = (
            meter.create_counter(c[k]["name"], unit=c[k]["unit"], description=c[k]["description"])
            for k in ("claims", "refusals", "drift"))


_counters: Optional[_Counters] = _Counters() if SCHEMA is not None else None


class Recorder:
    """What an operation's span records when its result or refusal is known."""

    def __init__(self, op: str, span: Any) -> None:
        self.op, self.span = op, span

    def result(self, result: Any) -> None:
        assert SCHEMA is not None and _counters is not None
        attrs = attributes(self.op, result)
        self.span.set_attributes(attrs)
        reasons = attrs.get(SCHEMA["refused"]["reasons"]) or []
        if SCHEMA["ops"][self.op].get("claims"):
            tool = attrs.get("gen_ai.tool.name", "")
            outcome = attrs.get("actionseal.outcome", "")
            _counters.claims.add(1, {"actionseal.outcome": outcome, "gen_ai.tool.name": tool})
            if outcome == "tool_args_drift":
                _counters.drift.add(1, {"gen_ai.tool.name": tool})
            if outcome != "claimed":
                self.refused(reasons)
        elif self.op == "gate" and attrs.get("actionseal.outcome") == "refuse":
            self.refused(reasons, count=False)

    def refused(self, reasons: List[str], *, count: bool = True) -> None:
        """The refusal event, and one count per reason (the gate's are counted by the ledger's
        spans under it, or are bad arguments that never reach the ledger)."""
        assert SCHEMA is not None and _counters is not None
        r = SCHEMA["refused"]
        self.span.add_event(r["event"], {r["reasons"]: list(reasons), r["operation"]: self.op})
        if count:
            for reason in reasons:
                _counters.refusals.add(1, {"actionseal.reason": reason, r["operation"]: self.op})

    def error(self, e: BaseException) -> None:
        """A raised call: its code (an ActionsealError's) or its type, never its message."""
        code = e.code if isinstance(e, ActionsealError) else type(e).__name__
        if isinstance(e, ActionsealError):
            self.refused([code])
        self.span.set_status(trace.Status(trace.StatusCode.ERROR, code))


@contextmanager
def span(op: str, name: Optional[str] = None) -> Iterator[Recorder]:
    """The span of ``op`` (core's name unless ``name``), current while the block runs; an
    exception leaving the block is recorded by ``Recorder.error`` and raised again."""
    assert SCHEMA is not None and trace is not None
    tracer = trace.get_tracer(SCHEMA["scope"])
    with tracer.start_as_current_span(name or SCHEMA["ops"][op]["span"], record_exception=False,
                                      set_status_on_exception=False) as s:
        rec = Recorder(op, s)
        try:
            yield rec
        except BaseException as e:
            rec.error(e)
            raise


@contextmanager
def gate_span(tool: str) -> Iterator[Optional[Recorder]]:
    """An adapter's ``execute_tool {tool}`` span (GenAI semantic conventions) around its gate;
    None without OpenTelemetry."""
    if SCHEMA is None:
        yield None
        return
    with span("gate", f"{SCHEMA['ops']['gate']['span']} {tool}") as rec:
        yield rec


L = TypeVar("L", bound=type)


def _traced(op: str, method: Any) -> Any:
    @functools.wraps(method)
    def traced(self: Any, *args: Any, **kwargs: Any) -> Any:
        with span(op) as rec:
            out = method(self, *args, **kwargs)
            rec.result(out)
            return out

    return traced


def instrument(cls: L) -> L:
    """``cls`` with a span around each of ``OPS``, or ``cls`` itself without OpenTelemetry."""
    if SCHEMA is None:
        return cls
    members = {op: _traced(op, getattr(cls, op)) for op in OPS}
    members.update(__module__=cls.__module__, __qualname__=cls.__qualname__, __doc__=cls.__doc__)
    return type(cls.__name__, (cls,), members)  # type: ignore[return-value]
