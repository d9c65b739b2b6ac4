"""np.arange's start and step carry a derivative by position and by keyword, in both
modes (both refused a keyword with a derivative before): arange(start, stop, step) =
start + step * [0, 1, ...], against central differences. stop only sets the length;
a lone argument is the stop (NumPy's binding, rules/creation.arange_parts)."""
import numpy as np
import pytest

import fwdad
from tests.util import central_difference

X = np.array([0.7, 0.4])  # (x[0], x[1]: a start or step, and a second one)


# (name, f): each a scalar function of x through one arange call
FORMS = [
    ("step by position", lambda x: np.sum(np.arange(0.0, 3.0, x[0]) ** 2)),
    ("step=", lambda x: np.sum(np.arange(0.0, 3.0, step=x[0]) ** 2)),
    ("lone stop, step=", lambda x: np.sum(np.arange(3.0, step=x[0]) ** 2)),
    ("start=, stop=", lambda x: np.sum(np.arange(start=x[0], stop=3.0) ** 2)),
    ("start, stop=", lambda x: np.sum(np.arange(x[0], stop=3.0) ** 2)),
    ("start=, stop=, step=", lambda x: np.sum(np.arange(start=x[0], stop=3.0,
                                                        step=x[1]) ** 3)),
    ("start, stop, step=", lambda x: np.sum(np.sin(np.arange(x[1], 3.0, step=x[0])))),
    ("step=None", lambda x: np.sum(np.arange(x[0], 3.0, step=None) ** 2)),
    ("stop= only (no derivative)", lambda x: np.sum(np.arange(stop=x[0] + 2.0) ** 2)),
]
IDS = [row[0] for row in FORMS]


def _reference(f):
    return np.array([central_difference(f, X, np.eye(2)[i]) for i in range(2)])


@pytest.mark.parametrize("name, f", FORMS, ids=IDS)
def test_every_form_is_differentiated_in_both_modes(name, f):
    want = _reference(f)
    assert np.all(np.isfinite(want))
    jvps = [fwdad.jvp(f, (X,), (np.eye(2)[i],))[1] for i in range(2)]
    for mode, got in {"jvp": jvps, "grad": fwdad.grad(f)(X), "jacfwd": fwdad.jacfwd(f)(X),
                      "jacrev": fwdad.jacrev(f)(X)}.items():
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8, err_msg=mode)


@pytest.mark.parametrize("name, f", FORMS, ids=IDS)
def test_second_order_agrees_across_modes(name, f):
    """The length is fixed near X, so the Hessian is that of a polynomial (or sin)."""
    over_forward = fwdad.jacfwd(fwdad.jacfwd(f))(X)
    np.testing.assert_allclose(fwdad.hessian(f)(X), over_forward, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(fwdad.jacrev(fwdad.jacrev(f))(X), over_forward, rtol=1e-10,
                               atol=1e-10)


def test_a_vector_of_ramps_batches():
    """jacfwd and jacrev of the ramp itself: d/dstart is 1, d/dstep is k."""
    def ramp(x):
        return np.arange(start=x[0], stop=3.0, step=x[1])
    n = len(ramp(X))
    want = np.stack([np.ones(n), np.arange(n, dtype=float)], axis=1)
    np.testing.assert_allclose(fwdad.jacfwd(ramp)(X), want)
    np.testing.assert_allclose(fwdad.jacrev(ramp)(X), want)
