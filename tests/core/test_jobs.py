"""`collector_paused`: the cyclic garbage collector off while a job loads its libraries, on
again (if it was) when the last such block ends, and what was loaded frozen out of its way."""
from __future__ import annotations

import gc
import threading

import pytest

from llgui.core.jobs import collector_paused


def _frozen(obj) -> bool:
    """Whether `obj` is in the collector's permanent generation (`gc.freeze`): not in the
    generations it scans (`gc.get_objects`). Asked of the objects themselves: the freeze
    count moves with any frozen object freed on another thread (a suite's Qt and job
    threads: off by 2 once under load)."""
    return id(obj) not in {id(o) for o in gc.get_objects()}


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_off_in_the_block_and_on_after(collector_on):
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_what_the_block_made_is_frozen_after(collector_on):
    with collector_paused():
        made = [[k] for k in range(5000)]   # 5,001 containers the collector tracks
        assert not _frozen(made) and not _frozen(made[-1])
    assert _frozen(made) and _frozen(made[0]) and _frozen(made[-1])


def test_nested_blocks_share_one_pause(collector_on):
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "the inner block's end turned the collector on"
    assert gc.isenabled()


def test_concurrent_blocks_share_one_pause(collector_on):
    """Two jobs load their libraries at once: the first to finish leaves the collector off
    while the other still loads."""
    inside, first_done, seen = threading.Event(), threading.Event(), {}

    def other() -> None:
        with collector_paused():
            inside.set()
            first_done.wait(10)
            seen["while the other loads"] = gc.isenabled()

    thread = threading.Thread(target=other)
    thread.start()
    assert inside.wait(10)
    with collector_paused():
        pass
    seen["after the first block"] = gc.isenabled()
    first_done.set()
    thread.join(10)
    assert seen == {"after the first block": False, "while the other loads": False}
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off(collector_on):
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_the_collector_comes_back_when_the_block_raises(collector_on):
    with pytest.raises(ImportError):
        with collector_paused():
            raise ImportError("no numba")
    assert gc.isenabled()


def test_a_block_without_freeze_freezes_nothing_unless_one_sharing_it_asks(collector_on):
    with collector_paused(freeze=False):
        made = [[k] for k in range(5000)]   # 5,001 containers the collector tracks
        assert not gc.isenabled()
    assert gc.isenabled() and not _frozen(made) and not _frozen(made[0])
    with collector_paused(freeze=False):
        with collector_paused():   # a job's imports inside the pause: frozen at its end
            pass
        assert not _frozen(made), "frozen before the last block ended"
    assert _frozen(made) and _frozen(made[0])
    more = [[k] for k in range(5000)]
    with collector_paused(freeze=False):   # the next pause starts without the last's wish
        pass
    assert not _frozen(more) and not _frozen(more[-1])
