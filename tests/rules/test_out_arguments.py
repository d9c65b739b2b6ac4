"""`out` given by position or by keyword to NumPy functions beyond the ufuncs, in both
modes: the result is written into `out` as `out[...] = result` is, so out's old
derivative is gone. Three were silently wrong: a function without a derivative given a
variable as `out` (np.fix(w, w), np.round(w, 0, w), np.isposinf(w, out=w)) kept w's
old tangent in the optimized forward rule and its old adjoint in reverse mode, and
np.stack(..., out=o) and ndarray.compress(..., out=o) dropped the result's tangent.
Each row is checked against central differences (jvp) and by the dot-product test
against them (vjp)."""
import numpy as np
import pytest

import fwdad
from tests.util import assert_close

X = np.array([0.3, 1.7, -0.4])
T = np.array([1.0, 0.5, -0.25])


def _into(shape, write):
    """`write(w, o)` into a fresh array o of `shape`, then o times a function of w."""
    def f(w):
        o = np.zeros(shape)
        write(w, o)
        return o * (1.0 + w.sum())
    return f


def _self(write):
    """`write(w)` into w itself, then w times 2."""
    def f(w):
        w = w * 1.0
        write(w)
        return w * 2.0 + w.sum()
    return f


CASES = {
    "fix(w, w)": _self(lambda w: np.fix(w, w)),
    "fix(w, out=w)": _self(lambda w: np.fix(w, out=w)),
    "round(w, 0, w)": _self(lambda w: np.round(w, 0, w)),
    "isposinf(w, w)": _self(lambda w: np.isposinf(w, w)),
    "isneginf(w, out=w)": _self(lambda w: np.isneginf(w, out=w)),
    "stack(.., 0, o)": _into((2, 3), lambda w, o: np.stack((w, w * w), 0, o)),
    "stack(.., out=o)": _into((2, 3), lambda w, o: np.stack((w, np.sin(w)), out=o)),
    "concatenate(.., 0, o)": _into(6, lambda w, o: np.concatenate((w, w * 2), 0, o)),
    "outer(w, w, o)": _into((3, 3), lambda w, o: np.outer(w, np.cos(w), o)),
    "outer(w, w, out=o)": _into((3, 3), lambda w, o: np.outer(w, w, out=o)),
    "compress(c, w, 0, o)": _into(2, lambda w, o: np.compress([True, False, True], w, 0, o)),
    "w.compress(c, 0, out=o)": _into(2, lambda w, o: w.compress([True, False, True], 0,
                                                                out=o)),
    "take(w, i, None, o)": _into(2, lambda w, o: np.take(w, [2, 0], None, o)),
    "cumsum(w, 0, None, o)": _into(3, lambda w, o: np.cumsum(w * w, 0, None, o)),
}


def _fd(f, h=1e-6):
    return (f(X + h * T) - f(X - h * T)) / (2 * h)


@pytest.mark.parametrize("name", list(CASES))
def test_jvp_matches_central_differences(name):
    f = CASES[name]
    out, tangent = fwdad.jvp(f, (X.copy(),), (T.copy(),))
    assert_close(out, f(X.copy()))
    assert_close(tangent, _fd(f), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", list(CASES))
def test_vjp_passes_the_dot_product_test(name):
    f = CASES[name]
    out, pullback = fwdad.vjp(f, X.copy())
    cotangent = np.random.default_rng(1).normal(size=np.shape(out))
    grad, = pullback(cotangent)
    assert_close(np.sum(grad * T), np.sum(cotangent * _fd(f)), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("call", [
    lambda w: np.multiply.accumulate(w, 0, None, np.zeros(3)),
    lambda w: np.add.accumulate(w, out=np.zeros(3)),
])
@pytest.mark.parametrize("mode", ["jvp", "vjp"])
def test_accumulate_with_out_is_refused_clearly(call, mode):
    with pytest.raises(fwdad.MissingRuleError, match="accumulate with out="):
        if mode == "jvp":
            fwdad.jvp(call, (X,), (T,))
        else:
            fwdad.vjp(call, X)
