"""ndarray methods and attributes, NumPy scalars, 0-d arrays, integer and boolean arrays,
and NumPy functions without a rule, end to end: each program is checked by test_rule
(central differences of the same code, and a batch of tangents)."""
import numpy as np
import pytest

import fwdad
from fwdad import testing
from fwdad.errors import FwdadError, MissingRuleError
from fwdad.tangents import NoTangent

M = np.array([[0.3, -1.2, 0.5], [1.1, 0.7, -0.4]])


def methods(m):
    s = m.sum() + m.sum(axis=0).dot(m.mean(axis=0)) + m.max() - m.min(axis=1).sum()
    r = m.reshape(3, 2).T.copy().flatten() + m.ravel()
    t = m.T.dot(m).trace() + m.std() + m.var(ddof=1) + m.prod()
    c = m.clip(-0.45, 0.45).cumsum() + m.cumprod()
    return s + t + r.sum() + c.sum() + m.transpose().swapaxes(0, 1).squeeze().sum()


def attributes(m):
    rows, cols = m.shape
    scale = m.ndim + m.size + rows * cols + (m.dtype == np.float64) + len(m)
    return m.T.T * scale + m.real + m.astype(np.float64).item(0)


def float64_scalars_and_0d_arrays(m):
    a = np.float64(m[0, 0]) * 2 + float(m[0, 1])
    b = np.array(m[1, 1]) * np.sum(m)
    c = m[1, 2].item() + np.asarray(3.0) * a
    return np.sqrt(np.float64(1.5) + m * m) * a + b * c + 0.5


def mixing_python_and_numpy_scalars(m):
    total = 0.0
    for value in m.ravel():
        total = total + value * 2 + np.float64(1.0) - 1
    return total * np.exp(m[0, 0]) + np.pi


def integer_and_boolean_arrays(m):
    ints = np.arange(6).reshape(2, 3)
    mask = m > 0
    whole = m.astype(int)
    return (m * ints)[mask].sum() + whole.sum() + np.count_nonzero(mask) + m[ints % 2 == 0]


def lists_of_values(m):
    values = [m[0, 0], m[1, 1] * 2.0, 3.0]
    v = np.array(values)
    w = np.asarray([[m[0, 1], 1.0], [values[1], m[1, 0]]])
    return v.sum() * w + np.stack([m[0], m[1]]).mean()


def tolist_and_back(m):
    rows = m.tolist()
    return sum(r[0] * r[1] for r in rows) + np.array(rows).sum()


def creation_from_values(m):
    full = np.full((2, 3), m[0, 0]) + np.full_like(m, m[1, 1])
    ramp = np.linspace(m[0, 0], m[1, 0], 3) + np.arange(m[0, 2], 3.0, 1.0)[:1]
    eye = np.eye(3) * m[0, 1] + np.diag(m[1])
    return full.sum() + ramp.sum() + (eye @ m.T).sum() + np.zeros_like(m) + np.ones(3)


PROGRAMS = [methods, attributes, float64_scalars_and_0d_arrays,
            mixing_python_and_numpy_scalars, integer_and_boolean_arrays, lists_of_values,
            tolist_and_back, creation_from_values]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
def test_program(program):
    testing.test_rule(program, M)


def test_float_to_int_has_no_tangent():
    out, dout = fwdad.jvp(lambda m: m.astype(int), (M,), (np.ones_like(M),))
    assert out.dtype.kind == "i" and dout is NoTangent


def test_a_numpy_function_without_a_rule_is_named():
    def f(m):
        return np.histogram(m, bins=3)[1]
    with pytest.raises(MissingRuleError, match="numpy.histogram"):
        fwdad.jvp(f, (M,), (np.ones_like(M),))


def test_a_method_without_a_rule_is_named():
    def f(m):
        return m.partition(1)
    with pytest.raises(MissingRuleError, match="partition"):
        fwdad.jvp(f, (M.copy(),), (np.ones_like(M),))


def test_indexing_through_flat_is_refused_not_wrong():
    def f(m):
        y = m.copy()
        y.flat[1] = m[0, 0] * 2.0
        return y
    with pytest.raises(FwdadError, match="x.flat"):
        fwdad.jvp(f, (M,), (np.ones_like(M),))


def test_a_ufunc_method_without_a_rule_names_the_ufunc():
    def f(m):
        return np.logaddexp.accumulate(m, axis=1)
    with pytest.raises(MissingRuleError, match="numpy.logaddexp.accumulate"):
        fwdad.jvp(f, (M,), (np.ones_like(M),))
