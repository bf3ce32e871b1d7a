"""Work-around for a reference-counting bug in the Qt binding.

PySide6 6.12.0's ``SignalInstance.emit`` returns ``True`` without taking a reference to it, so
every emit from Python releases one reference to ``True`` that it never took. On Python 3.11
``True`` is not immortal: after a few thousand emits (an import reports progress thousands of
times) the interpreter aborts with "bool_dealloc: deallocating True". Every emit in the GUI goes
through ``emit()``, which gives the reference back when — and only when — the binding in use
has the bug (checked once at import).
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from PySide6.QtCore import QObject, Signal, SignalInstance

_PROBES = 8


class _Probe(QObject):
    ping = Signal()


def _emit_steals_true() -> bool:
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(_PROBES):
        probe.ping.emit()
    return before - sys.getrefcount(True) >= _PROBES


_incref = ctypes.pythonapi.Py_IncRef
_incref.argtypes = [ctypes.py_object]
_incref.restype = None
EMIT_STEALS_TRUE = _emit_steals_true()


def emit(signal: SignalInstance, *args: Any) -> None:
    """``signal.emit(*args)``, without the binding's reference leak."""
    signal.emit(*args)
    if EMIT_STEALS_TRUE:
        _incref(True)
