"""The scipy.special rules beyond their table rows (tests/rules/scipy_cases.py): random
values and shapes in each function's domain, the limits and closed forms at the edges,
the arguments SciPy has no derivative for (refused in both modes, naming the user's
line), second order by forward over forward against forward over reverse, linearize,
and that importing fwdad without SciPy neither fails nor imports it."""
import copy
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fwdad
from fwdad import testing
from fwdad.errors import FwdadError, NonDifferentiableError
from fwdad.testing.strategies import (
    ABOVE_MINUS_ONE,
    GAMMA_POSITIVE,
    NONZERO,
    POSITIVE,
    REAL,
    UNIT_OPEN,
    broadcastable_shapes,
    scalars_or_arrays,
    values_in,
)
from tests.rules.case import unwrap
from tests.rules.scipy_cases import ERFC_RANGE, PROBABILITY, SCIPY_CASES
from tests.rules.second_order import scalar_function
from tests.rules.second_order_cases import ROWS as SECOND_ORDER_ROWS

sc = pytest.importorskip("scipy.special")
RANDOM = settings(max_examples=10, deadline=None, database=None)

UNARY = [(sc.gammaln, GAMMA_POSITIVE), (sc.loggamma, GAMMA_POSITIVE),
         (sc.gamma, GAMMA_POSITIVE), (sc.psi, GAMMA_POSITIVE), (sc.erf, REAL),
         (sc.erfc, REAL), (sc.erfinv, UNIT_OPEN), (sc.erfcinv, ERFC_RANGE), (sc.ndtr, REAL),
         (sc.log_ndtr, REAL), (sc.ndtri, PROBABILITY), (sc.expit, REAL),
         (sc.logit, PROBABILITY), (sc.log_expit, REAL), (sc.i0, REAL), (sc.i1, REAL),
         (sc.i0e, NONZERO), (sc.i1e, REAL), (sc.entr, POSITIVE)]
BINARY = [(sc.betaln, GAMMA_POSITIVE, GAMMA_POSITIVE), (sc.beta, GAMMA_POSITIVE,
                                                      GAMMA_POSITIVE),
          (sc.xlogy, REAL, POSITIVE), (sc.xlog1py, REAL, ABOVE_MINUS_ONE),
          (sc.rel_entr, POSITIVE, POSITIVE), (sc.kl_div, POSITIVE, POSITIVE)]


@pytest.mark.parametrize("fn, domain", UNARY, ids=lambda v: getattr(v, "__name__", ""))
@RANDOM
@given(data=st.data())
def test_unary_rule_on_random_values(fn, domain, data):
    testing.test_rule(fn, data.draw(scalars_or_arrays(domain, min_side=0), label="x"))


@pytest.mark.parametrize("fn, first, second", BINARY,
                         ids=lambda v: getattr(v, "__name__", ""))
@RANDOM
@given(data=st.data())
def test_binary_rule_on_random_values(fn, first, second, data):
    x_shape, y_shape = data.draw(broadcastable_shapes(min_side=0), label="shapes")
    testing.test_rule(fn, data.draw(values_in(first, x_shape), label="x"),
                      data.draw(values_in(second, y_shape), label="y"))


@pytest.mark.parametrize("fn", [sc.kv, sc.iv, sc.gammainc, sc.gammaincc, sc.polygamma,
                                sc.zeta], ids=lambda f: f.__name__)
@RANDOM
@given(data=st.data())
def test_rule_in_the_second_argument_on_random_values(fn, data):
    shape = data.draw(st.sampled_from([None, (), (3,), (2, 3)]), label="shape")
    order = data.draw(st.integers(0 if fn in (sc.kv, sc.iv, sc.polygamma) else 2, 3))
    testing.test_rule(fn, order, data.draw(values_in(POSITIVE, shape), label="x"))


@st.composite
def reductions(draw):
    """(a, axis, b, keepdims): a 1-3 axis array, an axis (or None, or a tuple), maybe a
    positive b of a's shape (a variable too)."""
    shape = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple))
    a = draw(values_in(REAL, shape))
    axis = draw(st.none() | st.integers(-len(shape), len(shape) - 1)
                | st.just(tuple(range(len(shape)))))
    b = draw(st.none() | values_in(POSITIVE, shape))
    return a, axis, b, draw(st.booleans())


@RANDOM
@given(reductions())
def test_logsumexp_on_random_shapes(call):
    a, axis, b, keepdims = call
    if b is None:
        testing.test_rule(sc.logsumexp, a, axis=axis, keepdims=keepdims)
    else:
        testing.test_rule(sc.logsumexp, a, axis, b, keepdims)


@pytest.mark.parametrize("fn", [sc.softmax, sc.log_softmax], ids=lambda f: f.__name__)
@RANDOM
@given(call=reductions())
def test_softmax_on_random_shapes(fn, call):
    a, axis, _, _ = call
    testing.test_rule(fn, a, axis=axis)


# ---- limits and closed forms ---------------------------------------------------------------
def _gammainc_of_one(x):
    return sc.gammainc(1, x)  # 1 - exp(-x): derivative exp(-x), 1 at x = 0


def _i1_family(x):
    return sc.i1(x) + 2.0 * sc.i1e(x)  # both x / 2 + O(x^2) near 0: derivative 3 / 2


def _log_ndtr(x):
    return sc.log_ndtr(x)


def test_derivatives_at_zero_are_the_limits():
    for f, want in ((_gammainc_of_one, 1.0), (_i1_family, 1.5)):
        assert fwdad.jvp(f, (0.0,), (1.0,))[1] == pytest.approx(want, rel=1e-12)
        assert fwdad.grad(f)(0.0) == pytest.approx(want, rel=1e-12)


def test_log_ndtr_far_in_the_tail():
    """pdf / cdf at x = -t is t / (1 - 1/t^2 + 3/t^4 - 15/t^6 + ...) (Mills' ratio):
    the cdf itself underflows below x = -38, the rule does not."""
    t = 60.0
    want = t / (1.0 - t ** -2 + 3.0 * t ** -4 - 15.0 * t ** -6 + 105.0 * t ** -8)
    assert fwdad.jvp(_log_ndtr, (-t,), (1.0,))[1] == pytest.approx(want, rel=1e-12)
    assert fwdad.grad(_log_ndtr)(-t) == pytest.approx(want, rel=1e-12)


def _nll(log_k, x):
    """The negative log-likelihood of a gamma distribution of shape k and scale 1."""
    k = np.exp(log_k)
    return -np.sum(sc.xlogy(k - 1.0, x) - x - sc.gammaln(k))


def test_hessian_of_a_likelihood_is_the_closed_form():
    """d2/dk2 of n gammaln(k) - (k - 1) sum(log x) is n polygamma(1, k)."""
    x = np.array([0.7, 1.9, 3.2, 0.4])
    k = 2.5
    hess = fwdad.hessian(lambda log_k: _nll(log_k, x))(math.log(k))
    grad = len(x) * sc.psi(k) - np.sum(np.log(x))  # by k; then by log k: k d/dk (k d/dk)
    want = k * grad + k * k * len(x) * sc.polygamma(1, k)
    assert hess == pytest.approx(want, rel=1e-10)


# ---- refusals ------------------------------------------------------------------------------
def _kv(v, x):
    return sc.kv(v, x)


def _iv(v, x):
    return sc.iv(v, x)


def _gammainc(a, x):
    return sc.gammainc(a, x)


def _gammaincc(a, x):
    return sc.gammaincc(a, x)


def _polygamma(n, x):
    return sc.polygamma(n, x)


def _zeta(x, q):
    return sc.zeta(x, q)


REFUSED = [(_kv, "kv", "v"), (_iv, "iv", "v"), (_gammainc, "gammainc", "a"),
           (_gammaincc, "gammaincc", "a"), (_polygamma, "polygamma", "n"),
           (_zeta, "zeta", "x")]


@pytest.mark.parametrize("f, name, arg", REFUSED, ids=lambda v: getattr(v, "__name__", v))
def test_a_tangent_scipy_has_no_derivative_for_is_refused(f, name, arg):
    match = rf"scipy\.special\.{name}\(.*test_scipy_special\.py:\d+.*with respect to {arg}"
    with pytest.raises(NonDifferentiableError, match=match):
        fwdad.jvp(f, (2.0, 1.5), (1.0, 0.0))
    with pytest.raises(NonDifferentiableError, match=match):
        fwdad.grad(f, argnums=0)(2.0, 1.5)
    # the other argument alone: a zero tangent in the first is no derivative asked for
    _, tangent = fwdad.jvp(f, (2.0, 1.5), (0.0, 1.0))
    assert tangent == pytest.approx(fwdad.grad(f, argnums=1)(2.0, 1.5), rel=1e-12)


def _riemann(s):
    return sc.zeta(s)


def test_riemann_zeta_is_refused():
    with pytest.raises(NonDifferentiableError, match=r"scipy\.special\.zeta\(x\).*to x"):
        fwdad.jvp(_riemann, (3.0,), (1.0,))


def _erf_of_complex(z):
    return sc.erf(z * 1.0)


def test_a_complex_input_is_refused():
    with pytest.raises(NonDifferentiableError, match=r"erf\(x\).*real inputs only"):
        fwdad.jvp(_erf_of_complex, (np.array([0.3 + 0.1j]),), (np.array([1.0 + 0j]),))


def _erf_where(x, out):
    return sc.erf(x, out, where=np.array([True, False, True]))


def test_where_is_refused():
    """SciPy 1.17's ufuncs with where= give wrong values and corrupt the heap (a later
    free aborts the process): fwdad does not call them so."""
    x, out = np.array([0.3, -1.2, 0.5]), np.zeros(3)
    with pytest.raises(FwdadError, match=r"erf\(\.\.\., where=\.\.\.\)"):
        fwdad.jvp(_erf_where, (x, out), (np.ones(3), np.zeros(3)))
    with pytest.raises(FwdadError, match=r"erf\(\.\.\., where=\.\.\.\)"):
        fwdad.grad(lambda x: np.sum(_erf_where(x, np.zeros(3))))(x)


# ---- SciPy is optional ---------------------------------------------------------------------
WITHOUT_SCIPY = """
import sys
sys.modules["scipy"] = None  # `import scipy` raises ImportError
import numpy as np
import fwdad
import fwdad.reverse
from fwdad.rules.all import HAS_SCIPY
assert not HAS_SCIPY and "scipy.special" not in sys.modules
assert fwdad.jvp(np.sin, (0.0,), (1.0,))[1] == 1.0 and fwdad.grad(np.sin)(0.0) == 1.0
print("ok")
"""


def test_fwdad_imports_without_scipy():
    done = subprocess.run([sys.executable, "-c", WITHOUT_SCIPY], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


# ---- second order through the reverse rules ------------------------------------------------
def _model(a, b):
    """Every family at once: log-sum-exp with a variable b, softmax, the ufunc tables."""
    return (np.sum(sc.logsumexp(a, 1, b)) + np.sum(sc.softmax(a, axis=0) ** 2)
            + np.sum(sc.log_softmax(a) * b) + np.sum(sc.gammaln(b) + sc.kv(1, b))
            + np.sum(sc.polygamma(1, b) + sc.zeta(3.0, b) + sc.i1e(a) + sc.xlogy(a, b))
            + np.sum(sc.gammainc(2, b) + sc.expit(a) * sc.erf(b) + sc.log_ndtr(a)))


def _flat_model(z):
    return _model(z[:6].reshape(2, 3), z[6:].reshape(2, 3))


def test_hvp_over_reverse_matches_forward_over_forward():
    """fwdad.hvp runs the reverse rules on Duals (forward over reverse); jacfwd of a jvp
    differentiates the forward rules again: two independent second derivatives."""
    a = np.array([[0.3, -1.2, 0.5], [1.1, 0.7, -0.4]])
    z = np.concatenate([a.ravel(), np.abs(a).ravel() + 0.2])
    v = np.random.default_rng(3).standard_normal(z.size)
    (hv,) = fwdad.hvp(_flat_model, (z,), (v,))
    over_forward = fwdad.jacfwd(lambda x: fwdad.jvp(_flat_model, (x,), (v,))[1])(z)
    np.testing.assert_allclose(hv, over_forward, rtol=1e-9)


def _logit(x):
    return sc.logit(x)


def _loggamma(x):
    return sc.loggamma(x)


def _rel_entr(x, y):
    return sc.rel_entr(x, y)


def test_infinite_and_undefined_derivatives_are_numpys():
    """At the edges of a domain the derivative is NumPy's inf or NaN, on Python floats
    too (no ZeroDivisionError), and NaN wherever the value is NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        assert fwdad.jvp(_logit, (0.0,), (1.0,))[1] == np.inf
        assert fwdad.grad(_logit)(1.0) == np.inf
        assert fwdad.jvp(_rel_entr, (0.0, 0.5), (1.0, 0.0))[1] == -np.inf  # x log x at 0
        assert np.isnan(fwdad.jvp(_loggamma, (-0.5,), (1.0,))[1])  # SciPy's value: NaN
        assert np.isnan(fwdad.grad(_loggamma)(-0.5))


def test_linearize_records_every_family():
    """lin(t) is jvp's tangent and lin.T(ct) vjp's cotangents, through every rule."""
    a = np.array([[0.3, -1.2, 0.5], [1.1, 0.7, -0.4]])
    b = np.abs(a) + 0.2
    rng = np.random.default_rng(5)
    t = (rng.standard_normal(a.shape), rng.standard_normal(b.shape))
    out, lin = fwdad.linearize(_model, a, b)
    np.testing.assert_allclose(lin(*t), fwdad.jvp(_model, (a, b), t)[1], rtol=1e-12)
    _, pullback = fwdad.vjp(_model, a, b)
    for got, want in zip(lin.T(1.5), pullback(1.5)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


_SCIPY_FUNCTIONS = {unwrap(row).fn for row in SCIPY_CASES}
SCIPY_ROWS = [row for row in SECOND_ORDER_ROWS if row[0] in _SCIPY_FUNCTIONS]


@pytest.mark.parametrize("row", SCIPY_ROWS,
                         ids=lambda row: getattr(row[1], "__name__", str(row[1])))
def test_forward_over_forward_matches_forward_over_reverse(row):
    """The second-order table checks hessian and hvp, which run the reverse rules on
    Duals; here every row's forward rule is differentiated again (jacfwd of jvp) and
    compared with hvp."""
    _, fn, args, kwargs = row
    f, x = scalar_function(fn, copy.deepcopy(args), kwargs)
    v = np.random.default_rng(2).standard_normal(x.size)
    (hv,) = fwdad.hvp(f, (x,), (v,))
    over_forward = fwdad.jacfwd(lambda z: fwdad.jvp(f, (z,), (v,))[1])(x)
    np.testing.assert_allclose(over_forward, hv, rtol=1e-8, atol=1e-10)
