"""Masked arrays (numpy.ma) are refused in both modes, with an error that says what to
pass instead: their operations leave masked entries out, which the rules do not (forward
mode gave d/dx sum(2 * x) = 6 for three entries with one masked, and jacfwd of np.sin
a full row for the masked entry)."""
import numpy as np
import pytest

import fwdad
from tests.util import assert_close

X = np.array([0.3, -0.5, 0.7])
MASK = np.array([False, True, False])
MASKED = np.ma.masked_array(X, mask=MASK)


def doubled_sum(x):
    return np.sum(x * 2.0)


def sines(x):
    return np.sin(x)


def _calls(f, x):
    """Every API that differentiates f at the one argument x."""
    t = np.ones(3)
    return {"jvp": lambda: fwdad.jvp(f, (x,), (t,)),
            "jvp without a tangent": lambda: fwdad.jvp(f, (x,), (None,)),
            "batched_jvp": lambda: fwdad.batched_jvp(f, (x,), (np.eye(3),)),
            "jacfwd": lambda: fwdad.jacfwd(f)(x),
            "linearize": lambda: fwdad.linearize(f, x)[1](t),
            "vjp": lambda: fwdad.vjp(f, x)[1](np.ones_like(f(x))),
            "jacrev": lambda: fwdad.jacrev(f)(x)}


CASES = [(f.__name__, api, call) for f in (doubled_sum, sines)
         for api, call in _calls(f, MASKED).items()]


@pytest.mark.parametrize("name, api, call", CASES, ids=[f"{n}-{a}" for n, a, _ in CASES])
def test_a_masked_argument_is_refused(name, api, call):
    with pytest.raises(fwdad.FwdadError, match=r"is a numpy\.ma\.MaskedArray \(shape \(3,\)\)"
                                               r".*np\.ma\.getdata"):
        call()


@pytest.mark.parametrize("api", ["hessian", "hvp", "grad"])
def test_second_order_and_grad_refuse_a_masked_argument(api):
    calls = {"hessian": lambda: fwdad.hessian(doubled_sum)(MASKED),
             "hvp": lambda: fwdad.hvp(doubled_sum, (MASKED,), (np.ones(3),)),
             "grad": lambda: fwdad.grad(doubled_sum)(MASKED)}
    with pytest.raises(fwdad.FwdadError, match="MaskedArray"):
        calls[api]()


WEIGHTS = np.ma.masked_array([1.0, 2.0, 3.0], mask=MASK)


def weighted_by_a_masked_global(x):
    return np.sum(WEIGHTS * x)


def scaled_by_a_masked_closure():
    scale = np.ma.masked_array([1.0, 2.0, 3.0], mask=MASK)
    return lambda x: np.sum(scale * x)


@pytest.mark.parametrize("api", ["jvp", "jacfwd", "linearize"])
@pytest.mark.parametrize("f, what", [(weighted_by_a_masked_global, "global 'WEIGHTS'"),
                                     (scaled_by_a_masked_closure(), "closure variable 'scale'")],
                         ids=["global", "closure"])
def test_a_masked_global_or_closure_variable_is_refused(api, f, what):
    """(The optimized rule reads them as plain values: refused when the rule is built.)"""
    with pytest.raises(fwdad.FwdadError, match=rf"{what} read by .* \(.*test_masked_arrays"
                                               rf"\.py:\d+\) is a numpy\.ma\.MaskedArray"):
        _calls(f, X.copy())[api]()


def masked_by_hand(x, mask=MASK):
    return np.sum(np.where(mask, 0.0, x * 2.0))


def test_the_suggested_rewrite_is_differentiated():
    """The plain data and the mask as a bool array, against the closed form (2 on the
    entries left in, 0 on the masked one)."""
    assert_close(fwdad.jacfwd(masked_by_hand)(np.ma.getdata(MASKED)), [2.0, 0.0, 2.0])
    assert_close(fwdad.grad(masked_by_hand)(np.ma.getdata(MASKED)), [2.0, 0.0, 2.0])
