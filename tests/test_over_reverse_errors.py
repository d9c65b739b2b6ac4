"""Errors in forward over reverse (fwdad/over_reverse.py, fwdad/nesting.py): a refusal
(a FwdadError) falls back to forward over forward; the program's own error surfaces as
itself; any other error of the reverse pass on Duals, where forward over forward runs,
is a bug of fwdad's and surfaces as an InternalErrorWarning, with forward over forward's
answer, instead of a silent fallback."""
import weakref

import numpy as np
import pytest

import fwdad
from fwdad import over_reverse

GLOBAL = np.zeros(2)


def _writes_a_global(x):
    GLOBAL[0] = x[0] * x[1]
    return np.sum(GLOBAL * x) + x[0] ** 3


def _closed_form_hessian(x):
    """f = x0^2 x1 + x0^3."""
    return np.array([[2 * x[1] + 6 * x[0], 2 * x[0]], [2 * x[0], 0.0]])


def test_a_global_written_by_name_under_hessian():
    """The pass read the global through a weakref, which forward mode's dynamic call
    could not hash (a TypeError the broad except hid as a refusal); now a refusal of
    reverse mode's own (a FwdadError) sends it to forward over forward."""
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(fwdad.hessian(_writes_a_global)(x), _closed_form_hessian(x))


def _smooth(x):
    return np.sum(np.sin(x) * x[0])


def test_an_internal_error_of_the_pass_on_duals_is_reported(monkeypatch):
    """A bug in the pass (here a TypeError planted in it) is reported, not hidden by
    the fallback (old code passed silently), and the fallback's exact answer is kept:
    an InternalError there made hessian fail on programs it differentiates exactly
    (fuzz seed 100,169,196, through np.ufunc.accumulate)."""
    def broken(held):
        raise TypeError("planted")
    monkeypatch.setattr(over_reverse, "_adjoints", broken)
    x = np.array([0.3, 0.7])
    with pytest.warns(fwdad.InternalErrorWarning, match="TypeError: planted.*report it"):
        got = fwdad.hessian(_smooth)(x)
    want = np.array([[-0.3 * np.sin(0.3) + 2 * np.cos(0.3), np.cos(0.7)],
                     [np.cos(0.7), -0.3 * np.sin(0.7)]])
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_a_refusal_still_falls_back(monkeypatch):
    """A FwdadError in the pass is a refusal: forward over forward gives the Hessian."""
    def refusing(held):
        raise fwdad.FwdadError("refused")
    monkeypatch.setattr(over_reverse, "_adjoints", refusing)
    x = np.array([0.3, 0.7])
    want = np.array([[2 * np.cos(x[0]) - x[0] * np.sin(x[0]), np.cos(x[1])],
                     [np.cos(x[1]), -x[0] * np.sin(x[1])]])
    np.testing.assert_allclose(fwdad.hessian(_smooth)(x), want, rtol=1e-12)


def _raises_past_one(x):
    if x[0] > 1.0:
        raise ValueError("x[0] must be at most 1")
    return np.sum(x ** 3)


def test_the_programs_own_error_surfaces_as_itself():
    with pytest.raises(ValueError, match="at most 1"):
        fwdad.hessian(_raises_past_one)(np.array([2.0, 0.5]))


ARRAY = np.array([3.0, 4.0])
REF = weakref.ref(ARRAY)


def _through_a_weakref(x):
    ref = REF
    return x * ref()[0]


def test_a_dynamic_call_of_an_unhashable_callable():
    """A weakref to an array hashes as the array: forward mode's dynamic call raised a
    bare TypeError from its rule cache (fwdad/forward/dispatch.py)."""
    assert fwdad.jvp(_through_a_weakref, (2.0,), (1.0,)) == (6.0, 3.0)
    assert fwdad.grad(_through_a_weakref)(2.0) == 3.0
