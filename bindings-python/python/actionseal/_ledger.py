"""``actionseal.Ledger``: the compiled ledger, with OpenTelemetry spans around its operations
when ``opentelemetry-api`` is installed (``_telemetry``), else the compiled class itself. Type
checkers see the compiled class's stub either way: the instrumented one only adds spans."""

from typing import TYPE_CHECKING

from . import _actionseal, _telemetry

if TYPE_CHECKING:
    from ._actionseal import Ledger
else:
    Ledger = _telemetry.instrument(_actionseal.Ledger)

__all__ = ["Ledger"]
