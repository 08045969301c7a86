"""The Qt binding we run on keeps Python's reference counts straight.

PySide6 6.12.0 drops a reference to True or False on every bool signal it delivers to a
Python slot; after enough emissions the interpreter aborts with "bool_dealloc". llgui emits
bool signals all the time (busy indicators, check boxes), so the binding must not do this.
"""
from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal, Slot


class _Emitter(QObject):
    changed = Signal(bool)


class _Receiver(QObject):
    def __init__(self):
        super().__init__()
        self.seen = 0

    @Slot(bool)
    def on_changed(self, value: bool) -> None:
        self.seen += value


def test_bool_signals_keep_the_reference_count_of_true(qapp):
    emitter, receiver = _Emitter(), _Receiver()
    emitter.changed.connect(receiver.on_changed)
    before = sys.getrefcount(True)
    for _ in range(1000):
        emitter.changed.emit(True)
    assert receiver.seen == 1000
    # Unrelated code may hold a reference or two more; the broken binding loses 1000.
    assert abs(sys.getrefcount(True) - before) < 20
