"""linearize on what the fuzzer found it refusing, or refusing for the wrong reason: the
complex numbers of `complex(a, b)` and cmath (recorded now), and writes into a global's
container or array (refused as jvp refuses them, no longer as "a rule's tangent was
tested for truth" or "turned into a plain array")."""
import cmath

import numpy as np
import pytest

import fwdad
from fwdad.tangents import inner
from tests.util import assert_close

X = np.array([0.3, -0.5, 0.7])
T = np.array([1.0, 0.5, -0.25])


def through_complex(x):
    z = complex(x[0] * 2.0, float(np.sum(x)))
    w = cmath.exp(z) + cmath.sin(z) * z.conjugate()
    return np.array([w.real, w.imag]) * x[1:]


def through_complex_of_one_argument(x):
    z = complex(x[2]) * 1j + cmath.sqrt(complex(x[0], 1.0))
    return x * abs(z) + cmath.phase(z)


@pytest.mark.parametrize("f", [through_complex, through_complex_of_one_argument],
                         ids=lambda f: f.__name__)
def test_python_complex_numbers_are_recorded(f):
    """complex(a, b) and the cmath rules made their tangent a Python complex with
    complex(t), which a recorded tangent refused ("turned into a float": fuzzer seeds
    100,054,324, 100,054,326 and 100,054,339)."""
    out, lin = fwdad.linearize(f, X.copy())
    h = 1e-6
    assert_close(lin(T), (f(X + h * T) - f(X - h * T)) / (2 * h), rtol=1e-6, atol=1e-8)
    ct = np.array([0.4, -1.1, 0.9])[:np.size(out)]
    assert_close(inner(lin.T(ct)[0], T), inner(ct, lin(T)), rtol=1e-10, atol=1e-12)


STORE = {}
SCRATCH = np.zeros(3)


def _put(table, v):
    table["a"] = v


def into_a_global_dict(x):
    _put(STORE, x * 2.0)  # (not by name, which forward/written_globals.py follows)
    return STORE["a"] + 1.0


NAMED = {}


def into_a_global_dict_by_name(x):
    NAMED["a"] = x * 2.0
    return NAMED["a"] + 1.0


def test_a_write_into_a_global_dict_by_name_is_recorded():
    """linearize follows it as jvp does (refused before: "a value whose derivative
    linearize records ... is written into a list, dict or object")."""
    f = into_a_global_dict_by_name
    out, lin = fwdad.linearize(f, X.copy())
    assert_close(lin(T), fwdad.jvp(f, (X.copy(),), (T,))[1], rtol=1e-12)
    assert_close(lin(T), 2.0 * T, rtol=1e-12)


def _write_tail(a, v):
    a[1:] = v


def into_a_global_array(x):
    _write_tail(SCRATCH, x[:2])  # (not by name, which forward/written_globals.py follows)
    return x * 2.0


@pytest.mark.parametrize("f, message", [
    (into_a_global_dict, "a value whose derivative linearize records .* is written into "
                         "a list, dict or object read from a global or closure variable"),
    (into_a_global_array, r"x\[i\] = v in _write_tail at .*: "
                         r"a value with a derivative was written into "
                          r"an array that fwdad reads as a constant")],
    ids=["dict", "array"])
def test_a_write_into_a_globals_value_is_refused_as_jvp_refuses_it(f, message):
    """jvp refuses both writes (the derivative would be lost at the next read); linearize
    said a rule's tangent "was tested for truth" or "turned into a plain array" (seeds
    100,054,318 and 100,054,301)."""
    with pytest.raises(fwdad.FwdadError, match="value with a derivative|depends on"):
        fwdad.jvp(f, (X.copy(),), (T,))
    with pytest.raises(fwdad.FwdadError, match=message) as info:
        fwdad.linearize(f, X.copy())
    assert not isinstance(info.value, fwdad.UnrecordableError)


def writes_into_its_copy(x):
    v = x * 1.0
    v[0] = np.cos(x[1])
    return np.sum(v * v)


def test_linearize_of_grad_of_a_write_into_a_copy():
    """linearize(grad(f)) of a write into an array f made (found by the fuzzer's lingrad
    oracle, seed 100,147,800): it was refused (a dead temporary of the setitem rule held
    the tangent: tests/test_linearize_grad_writes.py); it gives the Hessian's product,
    as hvp does, against central differences of the gradient."""
    x = np.array([[0.3, 0.7, 1.1], [0.2, -0.4, 0.9]])
    t = np.array([[1.0, -0.5, 0.2], [0.3, 0.8, -1.0]])
    h = 1e-6
    grad = fwdad.grad(writes_into_its_copy)
    want = (grad(x + h * t) - grad(x - h * t)) / (2 * h)
    _, lin = fwdad.linearize(fwdad.grad(writes_into_its_copy), x)
    assert_close(lin(t), want, rtol=1e-6, atol=1e-8)
    assert_close(fwdad.hvp(writes_into_its_copy, (x,), (t,))[0], want, rtol=1e-6, atol=1e-8)
