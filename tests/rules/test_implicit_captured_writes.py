"""jvp and jacfwd of a root finder's solution (the implicit function theorem) whose
function writes into what it captured: fwdad's passes at the solution left their own
tangents there (an appended item carried the batch of unit tangents of dF/dx, and jvp
returned a (2, 2) tangent for a (2,) output). Refused, naming the call and the line, as
linearize refuses it; a function that only reads what it captured is differentiated
(against central differences)."""
import numpy as np
import pytest
import scipy.optimize as so

import fwdad
from fwdad.errors import ImplicitFunctionError
from tests.util import central_difference

X = np.array([0.5, -0.3, 1.2])
T = np.array([1.0, 0.5, -0.25])


def appends_to_a_captured_list(x):
    seen = []

    def g(y):
        seen.append(y[0] * x[2])
        return y ** 3 + y - x[:2]
    root = so.fsolve(g, np.zeros(2), xtol=1e-13)
    return root + seen[-1]


def writes_into_a_captured_array(x):
    last = np.zeros(1)

    def g(y):
        last[0] = y[0] * x[2]
        return y ** 3 + y - x[:2]
    root = so.fsolve(g, np.zeros(2), xtol=1e-13)
    return root + last[0]


def only_reads_what_it_captured(x):
    def g(y):
        return y ** 3 + y * x[2] - x[:2]
    return so.fsolve(g, np.zeros(2), xtol=1e-13)


@pytest.mark.parametrize("f", [appends_to_a_captured_list, writes_into_a_captured_array])
@pytest.mark.parametrize("how", ["jvp", "jacfwd"])
def test_a_write_into_a_captured_value_is_refused(f, how):
    """(jacfwd of the array's write gave a Jacobian without the root's part in it: the
    last pass wrote back the values that were there)"""
    with pytest.raises(ImplicitFunctionError, match=r"fsolve in .* writes into") as raised:
        if how == "jvp":
            fwdad.jvp(f, (X.copy(),), (T,))
        else:
            fwdad.jacfwd(f)(X.copy())
    assert "test_implicit_captured_writes.py:" in str(raised.value)


def test_a_function_that_only_reads_is_differentiated():
    got = fwdad.jvp(only_reads_what_it_captured, (X.copy(),), (T,))[1]
    want = central_difference(only_reads_what_it_captured, X, T)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
