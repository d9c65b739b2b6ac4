"""jvp never writes into the caller's tangent, nor gives it back, lent or copied
(fwdad/lent_tangents.py): each function below writes into its argument in one way, or
writes nothing and returns a view of it; the caller's tangent must be unchanged, no
output tangent may share memory with it, and the derivative must match central
differences."""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import pytest

import fwdad
from fwdad import lent_tangents, write_free
from fwdad.errors import InternalError
from tests.util import central_difference


@pytest.fixture(autouse=True)
def _lend_small_arrays(monkeypatch):
    """The arrays here are small: lend them too (jvp copies small ones)."""
    monkeypatch.setattr(lent_tangents, "LEND_FROM", 0)


def _set_item(w):
    w[0] = 3.0 * w[1]
    return w * w


def _augmented(w):
    w *= 2.0
    return np.sin(w)


def _out(w):
    np.multiply(w, w, out=w)
    return w


def _add_out(w):
    np.add(w, w[::-1], out=w)
    return w * w


def _view_written(w):
    v = w[1:]
    v *= 3.0
    return w + 1.0


def _scale_first(a):
    a[0] = a[0] * 5.0


def _helper_writes(w):
    _scale_first(w)
    return w ** 2


@dataclass
class _Holder:
    a: np.ndarray

    def double(self):
        self.a *= 2.0


def _method_writes(w):
    h = _Holder(w)
    h.double()
    return np.sin(w)


def _copyto(w):
    np.copyto(w, w[::-1] * 2.0)
    return w


def _sort(w):
    w.sort()
    return w * w


def _fill(w):
    y = w * 2.0
    w.fill(1.5)
    return y + w


def _put(w):
    w.put([0, 2], w[1:3] * 2.0)
    return w * w


def _loop(w):
    for i in range(1, len(w)):
        w[i] = w[i] + w[i - 1]
    return w


WRITERS = [_set_item, _augmented, _out, _add_out, _view_written, _helper_writes,
           _method_writes, _copyto, _sort, _fill, _put, _loop]


_SCALE = np.array([1.0, -2.0, 0.5, 3.0])


def _mlp(w):
    return np.tanh(np.tanh(_SCALE * w) @ np.ones((4, 4))), w[::-1]


def _twice(w):
    return 2.0 * w


def _calls_helper(w):
    return _twice(w) + w, w


READERS = [
    lambda w: w,
    lambda w: w.T,
    lambda w: w[1:],
    lambda w: w.reshape(2, 2),
    lambda w: np.asarray(w),
    lambda w: (w, w[::2]),
    lambda w: [w, 2.0 * w],
    lambda w: {"a": w, "b": np.sin(w)},
    _mlp,
    _calls_helper,
]


def _flat(y):
    """An output (an array, or a tuple, list or dict of them) as one vector."""
    if isinstance(y, dict):
        y = list(y.values())
    if isinstance(y, (tuple, list)):
        return np.concatenate([np.ravel(v) for v in y])
    return np.ravel(y)


def _leaves(t):
    if isinstance(t, dict):
        return list(t.values())
    return list(t) if isinstance(t, (tuple, list)) else [t]


def _check(f, w, dw):
    w, dw = w.copy(), dw.copy()  # (a failed check may have written into them)
    given = dw.copy()
    out, tangent = fwdad.jvp(f, (w.copy(),), (dw,))
    assert np.array_equal(dw, given), "jvp wrote into the caller's tangent"
    for leaf in _leaves(tangent):
        assert not np.may_share_memory(leaf, dw), "the output tangent is the caller's"
    got = np.concatenate([np.ravel(leaf) for leaf in _leaves(tangent)])
    want = central_difference(lambda v: _flat(f(v)), w, dw)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


_W = np.array([0.3, -1.1, 0.7, 1.9])
_DW = np.array([0.5, 0.25, -1.0, 2.0])


@pytest.mark.parametrize("f", WRITERS, ids=lambda f: f.__name__)
def test_a_function_that_writes_into_its_argument_leaves_the_callers_tangent(f):
    assert write_free.verdict(f) is None
    _check(f, _W, _DW)


@pytest.mark.parametrize("f", READERS, ids=["itself", "T", "slice", "reshape", "asarray",
                                             "tuple", "list", "dict", "mlp", "helper"])
def test_a_function_that_writes_nothing_gets_the_tangent_and_gives_none_back(f):
    assert write_free.verdict(f) is not None  # (the tangent is lent, uncopied)
    _check(f, _W, _DW)


def test_a_function_given_the_same_tangent_twice_gives_neither_back():
    dw = _DW.copy()
    out, tangent = fwdad.jvp(lambda a, b: (a, b.T), (_W.copy(), _W.copy()), (dw, dw))
    assert not any(np.may_share_memory(t, dw) for t in tangent)
    np.testing.assert_array_equal(tangent[0], _DW)


# ---- what may run user code is not lent -----------------------------------------------
class _Sneaky:
    """An operand whose `@` writes into the other operand (user code a pure primitive
    runs)."""

    def __matmul__(self, other):
        other[0] = 0.0
        return other * 2.0


_SNEAKY = _Sneaky()


def _with_global_object(w):
    return _SNEAKY @ w


def _with_argument_object(s, w):
    return s @ w


def _with_default_object(w, s=_Sneaky()):
    return s @ w


def test_a_global_that_runs_user_code_gets_a_copy():
    dw = _DW.copy()
    _, tangent = fwdad.jvp(_with_global_object, (_W.copy(),), (dw,))
    np.testing.assert_array_equal(dw, _DW)
    np.testing.assert_array_equal(tangent, 2.0 * np.r_[0.0, _DW[1:]])


def test_an_argument_or_default_that_runs_user_code_gets_a_copy():
    dw = _DW.copy()
    _, tangent = fwdad.jvp(_with_argument_object, (_Sneaky(), _W.copy()), (None, dw))
    np.testing.assert_array_equal(dw, _DW)
    _, tangent = fwdad.jvp(_with_default_object, (_W.copy(),), (dw,))
    np.testing.assert_array_equal(dw, _DW)
    np.testing.assert_array_equal(tangent, 2.0 * np.r_[0.0, _DW[1:]])


def _rebound(w):
    return _helper(w)


def _helper(w):
    return w * 3.0


def test_a_callee_rebound_to_one_that_writes_gets_a_copy(monkeypatch):
    dw = _DW.copy()
    assert write_free.verdict(_rebound) is not None
    np.testing.assert_allclose(fwdad.jvp(_rebound, (_W.copy(),), (dw,))[1], 3.0 * _DW)

    def writes(w):
        w[0] = 0.0
        return w * 3.0
    monkeypatch.setattr(sys.modules[__name__], "_helper", writes)
    _, tangent = fwdad.jvp(_rebound, (_W.copy(),), (dw,))
    np.testing.assert_array_equal(dw, _DW)
    np.testing.assert_allclose(tangent, 3.0 * np.r_[0.0, _DW[1:]])


def _claims_to_write_nothing(f):
    return write_free.Verdict((f,), frozenset(), frozenset())


def test_a_write_the_analysis_missed_is_an_internal_error(monkeypatch):
    """The lent view is read-only: a write into it is refused, not made."""
    monkeypatch.setattr(write_free, "verdict", _claims_to_write_nothing)
    dw = _DW.copy()
    with pytest.raises(InternalError, match="writes into none of its arguments"):
        fwdad.jvp(_set_item, (_W.copy(),), (dw,))
    np.testing.assert_array_equal(dw, _DW)


def test_small_arrays_are_copied_and_large_ones_lent(monkeypatch):
    monkeypatch.setattr(write_free, "verdict", _claims_to_write_nothing)
    monkeypatch.setattr(lent_tangents, "LEND_FROM", 5)
    dw = _DW.copy()
    _, tangent = fwdad.jvp(_set_item, (_W.copy(),), (dw,))  # (4 numbers: a copy)
    np.testing.assert_array_equal(dw, _DW)
    np.testing.assert_allclose(tangent, 2.0 * np.r_[3.0 * _DW[1], _DW[1:]] * np.r_[
        3.0 * _W[1], _W[1:]])
    w, dw = np.ones(5), np.ones(5)
    with pytest.raises(InternalError):
        fwdad.jvp(_set_item, (w,), (dw,))
    np.testing.assert_array_equal(dw, np.ones(5))


def test_an_output_tangent_shares_memory_with_no_lent_array_at_any_depth():
    from collections import OrderedDict, namedtuple
    pair = namedtuple("pair", "a b")
    dw, other = np.arange(6.0), np.ones(2)
    out = lent_tangents.unshared(
        (pair(dw[1:], 2.0), {"k": [dw, other]}, OrderedDict(x=dw.T)), [dw])
    assert type(out[0]) is pair and out[0].b == 2.0 and out[1]["k"][1] is other
    for leaf in (out[0].a, out[1]["k"][0], out[2]["x"]):
        assert not np.may_share_memory(leaf, dw)
    np.testing.assert_array_equal(out[1]["k"][0], np.arange(6.0))


def _with_own_rule(w):
    return w * 2.0


def test_a_function_with_a_registered_frule_that_writes_gets_a_copy():
    """jvp runs the registered rule, not one derived from the function's code."""
    from fwdad.dual import Dual
    from fwdad.rules.registry import rules_restored

    with rules_restored():
        @fwdad.frule(_with_own_rule)
        def _(w: Dual) -> Dual:
            w.tangent[0] = 0.0  # (a rule that writes into its argument's tangent)
            return Dual(w.primal * 2.0, 2.0 * w.tangent)
        dw = _DW.copy()
        _, tangent = fwdad.jvp(_with_own_rule, (_W.copy(),), (dw,))
        np.testing.assert_array_equal(dw, _DW)
        np.testing.assert_array_equal(tangent, 2.0 * np.r_[0.0, _DW[1:]])
