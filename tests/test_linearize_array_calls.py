"""linearize through NumPy calls found refused probing beside the fuzzer's array calls
(tests/fuzz/array_calls.py): np.array_split into pieces of unequal sizes (the tape asked
whether a piece shares memory with the list of pieces, which NumPy cannot make an array
of), and a reduction or np.ediff1d of a Python float (the rule made a 0-d array of its
tangent with np.array, which the tape does not record). lin(t) against jvp, lin.T by
the dot-product test."""
import numpy as np
import pytest

import fwdad
from fwdad.tangents import inner, random_tangent
from tests.util import assert_close

X = np.array([0.3, -0.2, 0.5, 1.1, -0.7])


def uneven_pieces(x):
    first, second = np.array_split(x * 3.0, 2)
    return np.sum(first) * second + np.sin(first[:2])[::-1].sum()


def uneven_rows(x):
    parts = np.array_split(np.outer(x, x[:2]), 3, axis=0)
    return np.concatenate([p.sum(axis=0) * (k + 1) for k, p in enumerate(parts)])


def float_ends(x):
    k = float(x[0])
    return np.ediff1d(x * x, to_begin=k, to_end=np.sin(k)) ** 2


def reductions_of_a_float(x):
    k = float(x[1]) * 2.0
    return np.max(np.abs(k)) * x + np.prod(k + 1.0) + np.sum(np.cumsum(k)) + np.mean(k)


@pytest.mark.parametrize("f", [uneven_pieces, uneven_rows, float_ends, reductions_of_a_float],
                         ids=lambda f: f.__name__)
def test_linearize(f):
    rng = np.random.default_rng(4)
    out, lin = fwdad.linearize(f, X.copy())
    assert_close(out, f(X.copy()))
    t = rng.standard_normal(X.shape)
    assert_close(lin(t), fwdad.jvp(f, (X.copy(),), (t,))[1], rtol=1e-12, atol=1e-14)
    ct = random_tangent(out, rng)
    assert inner(ct, lin(t)) == pytest.approx(inner(lin.T(ct), (t,)), rel=1e-10)
