"""fwdad/scratch.py: work arrays kept between calls and lent to one borrower at a time,
and values held until the next call's."""
import gc
import threading
import weakref

import numpy as np

from fwdad import scratch
from fwdad.scratch import FRESH, Scratch


def test_an_array_is_kept_between_loans_while_its_shape_and_dtype_stay():
    kept = Scratch()
    with kept.lend() as work:
        first = work.array("seeds", (4, 10), np.float64)
    with kept.lend() as work:
        assert work.array("seeds", (4, 10), np.float64) is first
        assert work.array("other", (4, 10), np.float64) is not first
        assert work.array("seeds", (3, 10), np.float64).shape == (3, 10)
    with kept.lend() as work:
        assert work.array("seeds", (3, 10), np.float32).dtype == np.float32


def test_a_nested_loan_gets_fresh_arrays_and_holds_nothing():
    kept = Scratch()
    with kept.lend() as outer:
        lent = outer.array("seeds", (5,), np.float64)
        with kept.lend() as inner:
            assert inner is FRESH
            assert not np.shares_memory(inner.array("seeds", (5,), np.float64), lent)
    with kept.lend() as work:  # (given back: lent again)
        assert work.array("seeds", (5,), np.float64) is lent


def test_a_loan_on_another_thread_is_never_waited_for():
    kept, got = Scratch(), []
    with kept.lend() as work:
        work.array("seeds", (5,), np.float64)
        other = threading.Thread(target=lambda: got.append(kept.lend().__enter__()))
        other.start()
        other.join(timeout=10)
    assert got == [FRESH]


def _held_and_dropped(kept: Scratch, size: int = 1000) -> weakref.ref:
    """Hold a fresh array under "passes", let go of every other reference to it, and
    return a weak reference to it."""
    value = np.zeros(size)
    gone = weakref.ref(value)
    with kept.lend() as work:
        work.hold("passes", value)
    del value
    gc.collect()
    return gone


def test_a_held_value_lives_until_the_next_hold_of_its_name():
    kept = Scratch()
    gone = _held_and_dropped(kept)
    assert gone() is not None
    with kept.lend() as work:
        work.hold("passes", np.zeros(1000))
    gc.collect()
    assert gone() is None


def test_a_value_past_the_hold_limit_is_not_held(monkeypatch):
    monkeypatch.setattr(scratch, "HOLD_LIMIT", 100)
    kept = Scratch()
    gone = _held_and_dropped(kept)
    assert gone() is None
