"""A selection passes nothing to the input it did not take, even an inf or NaN
(docs/errors-and-debugging.md, "Kinks").

np.where, np.maximum/minimum/fmax/fmin, np.clip, np.heaviside, np.select, np.choose,
np.nan_to_num, np.interp (a segment, or left, or right) and the extreme reductions
(np.max and kin, ptp, median, quantiles, the inf-norm) copy each output element from one input
element. Their derivative is that copy: forward mode selects the tangent
(np.where), and reverse mode must select the cotangent the same way, not multiply it by
a 0/1 mask, where an inf or NaN cotangent at an element that was not taken would give
the other input inf * 0 = NaN. Indexing, np.sort and Python's max already move the
cotangent without multiplying; these rows hold the rest to the same answer.

The references are independent of the reverse rules: the Jacobian by forward mode,
checked against central differences where no tie or bound is at the point, with each
output's cotangent sent only along the Jacobian's nonzero entries (the selected
inputs); closed forms for whole functions, whose reference there is also a one-sided
difference (tests/test_masked_kinks.py does the same for masks upstream).
"""
import math

import numpy as np
import pytest

import fwdad
from tests.util import central_jacobian

INF, NAN = np.inf, np.nan
X = np.array([-1.0, 2.0, 3.0])
M = np.array([[1.0, 4.0, 2.0], [-3.0, 0.5, 0.5]])  # (row 1: a tie for the max)
ROWS_CT = np.array([INF, NAN])
XP, FP = np.array([0.0, 1.0, 2.5]), np.array([1.0, 3.0, 2.0])


# ---- (name, g, x, ct, smooth): ct is inf or NaN at an element whose output some input
# did not give; smooth when no tie or bound is at x (then central differences check J)
SELECTIONS = [
    ("where(x > 0, x, 0)", lambda x: np.where(x > 0, x, 0.0), X, [INF, 1.0, NAN], True),
    ("where(x > 0, 0, x)", lambda x: np.where(x > 0, 0.0, x), X, [1.0, INF, NAN], True),
    ("where(x > 0, x, 3 x)", lambda x: np.where(x > 0, x, 3.0 * x), X, [INF, NAN, 1.0],
     True),
    ("where(x > 0, x, x reversed)", lambda x: np.where(x > 0, x, x[::-1]), X,
     [INF, 1.0, NAN], True),
    ("where(scalar, x, 2 x)", lambda x: np.where(x[0] > 0, x, 2.0 * x), X,
     [INF, NAN, 1.0], True),
    ("maximum(x, 0)", lambda x: np.maximum(x, 0.0), X, [INF, 1.0, 1.0], True),
    ("maximum(0, x)", lambda x: np.maximum(0.0, x), X, [NAN, 1.0, 1.0], True),
    ("minimum(x, 0)", lambda x: np.minimum(x, 0.0), X, [1.0, INF, NAN], True),
    ("maximum(x, x reversed), a tie", lambda x: np.maximum(x, x[::-1]), X,
     [1.0, INF, 1.0], False),
    ("minimum(x, x reversed), a tie", lambda x: np.minimum(x, x[::-1]), X,
     [NAN, INF, 1.0], False),
    ("fmax(x, 0)", lambda x: np.fmax(x, 0.0), X, [INF, 1.0, 1.0], True),
    ("fmin(x, 0)", lambda x: np.fmin(x, 0.0), X, [1.0, NAN, INF], True),
    ("fmax(x, nan)", lambda x: np.fmax(x, np.array([NAN, 5.0, 1.0])), X,
     [1.0, INF, NAN], True),
    ("clip(x, 0, 2.5)", lambda x: np.clip(x, 0.0, 2.5), X, [INF, 1.0, NAN], True),
    ("x.clip(0, 2.5)", lambda x: x.clip(0.0, 2.5), X, [NAN, 1.0, INF], True),
    ("clip at a bound", lambda x: np.clip(x, 2.0, 2.5), X, [INF, 1.0, NAN], False),
    ("clip(x, x0 + 0.5, x2 - 0.5)", lambda x: np.clip(x, x[0] + 0.5, x[2] - 0.5), X,
     [INF, 1.0, NAN], True),
    ("select", lambda x: np.select([x > 2.5, x > 0], [x, 2.0 * x], -x), X,
     [INF, NAN, 1.0], True),
    ("choose", lambda x: np.choose(np.array([1, 0, 1]), [x, 2.0 * x]), X,
     [INF, NAN, 1.0], True),
    ("heaviside(x - 2, x)", lambda x: np.heaviside(x - 2.0, x), X, [INF, 1.0, NAN],
     False),
    ("nan_to_num(log(x))", lambda x: np.nan_to_num(np.log(x)), X, [INF, 1.0, NAN], True),
    ("interp in x", lambda x: np.interp(x, XP, FP), X, [INF, 1.0, NAN], True),
    ("interp in fp", lambda fp: np.interp(np.array([0.5, 3.0]), XP, fp), FP, [1.0, INF],
     True),
    ("max over rows", lambda m: np.max(m, axis=1), M, ROWS_CT, False),
    ("min over rows", lambda m: np.min(m, axis=1), M, ROWS_CT, False),
    ("amax over columns", lambda m: np.amax(m, axis=0), M, [INF, NAN, 1.0], True),
    ("m.max over rows", lambda m: m.max(axis=1), M, ROWS_CT, False),
    ("nanmax over rows", lambda m: np.nanmax(m * np.array([1.0, NAN, 1.0]), axis=1), M,
     ROWS_CT, False),
    ("nanmin over rows", lambda m: np.nanmin(m, axis=1), M, ROWS_CT, False),
    ("maximum.reduce over rows", lambda m: np.maximum.reduce(m, axis=1), M, ROWS_CT,
     False),
    ("max over rows, initial wins", lambda m: np.max(m, axis=1, initial=3.0), M,
     ROWS_CT, False),
    ("max over rows, where", lambda m: np.max(m, axis=1, where=np.array(
        [True, False, True]), initial=-10.0), M, ROWS_CT, True),
    ("max over rows with -inf", lambda m: np.max(
        m + np.array([[-INF, 0.0, 0.0], [0.0, 0.0, -INF]]), axis=1), M, ROWS_CT, True),
    ("ptp over rows", lambda m: np.ptp(m, axis=1), M, ROWS_CT, False),
    ("median over rows", lambda m: np.median(m, axis=1), M, ROWS_CT, False),
    ("quantile 1 over rows", lambda m: np.quantile(m, 1.0, axis=1), M, ROWS_CT, False),
    ("quantiles over rows", lambda m: np.quantile(m, [0.5, 0.75], axis=1).ravel(), M,
     [INF, 1.0, NAN, 2.0], False),
    ("percentile 50 over rows", lambda m: np.percentile(m, 50.0, axis=1), M, ROWS_CT,
     False),
    ("norm inf over rows", lambda m: np.linalg.norm(m, np.inf, axis=1), M, ROWS_CT,
     False),
    ("sort, last column", lambda m: np.sort(m, axis=1)[:, -1], M, ROWS_CT, False),
]
SELECTION_IDS = [row[0] for row in SELECTIONS]


def _jacobian_by_forward(g, x):
    with np.errstate(all="ignore"):
        return np.reshape(fwdad.jacfwd(g)(x), (np.size(g(x)), np.size(x)))


def _sent_along(jacobian, ct):
    """ct J with each output's cotangent sent only where J is nonzero: the selected
    inputs (0 elsewhere, whatever ct holds)."""
    with np.errstate(all="ignore"):
        parts = np.where(jacobian != 0, np.reshape(ct, (-1, 1)) * jacobian, 0.0)
    return np.sum(parts, axis=0)


@pytest.mark.parametrize("name, g, x, ct, smooth", SELECTIONS, ids=SELECTION_IDS)
def test_the_forward_jacobian_is_the_reference(name, g, x, ct, smooth):
    """J by forward mode: finite, of 0/±1/0.5 entries, and central differences where no
    tie or bound is at x."""
    jacobian = _jacobian_by_forward(g, x)
    assert np.all(np.isfinite(jacobian))
    if smooth:
        with np.errstate(all="ignore"):
            expected = np.reshape(central_jacobian(g, x), jacobian.shape)
        np.testing.assert_allclose(jacobian, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name, g, x, ct, smooth", SELECTIONS, ids=SELECTION_IDS)
def test_vjp_sends_an_inf_or_nan_cotangent_only_to_the_selected_input(name, g, x, ct,
                                                                       smooth):
    ct = np.asarray(ct, dtype=float)
    expected = _sent_along(_jacobian_by_forward(g, x), ct).reshape(np.shape(x))
    with np.errstate(all="ignore"):
        (got,) = fwdad.vjp(g, x)[1](ct)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name, g, x, ct, smooth", SELECTIONS, ids=SELECTION_IDS)
def test_jacrev_and_hessian_agree_with_forward(name, g, x, ct, smooth):
    """Finite cotangents: jacrev is jacfwd, and the Hessian of a finite weighting of g by
    forward over reverse is forward over forward's (0: g is piecewise linear)."""
    with np.errstate(all="ignore"):
        shape = np.shape(g(x))
    weights = np.arange(1.0, np.prod(shape) + 1.0).reshape(shape)

    def total(x):
        return np.sum(weights * g(x))
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(fwdad.jacrev(g)(x), fwdad.jacfwd(g)(x), rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(fwdad.grad(total)(x), fwdad.jacfwd(total)(x),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(fwdad.hessian(total)(x),
                                   fwdad.jacfwd(fwdad.jacfwd(total))(x), rtol=1e-12,
                                   atol=1e-12)


# ---- whole functions: the cotangent at an element some input did not give is infinite
# (sqrt, cbrt at 0 downstream) or its tangent is (x ** 1.5 at 0, second order).
# (name, f, x, gradient, Hessian or None)
def _sqrt_of(g):
    def total(x):
        return np.sum(np.sqrt(g(x)))
    return total


WHOLE = [
    ("sqrt(maximum(x, 0))", _sqrt_of(lambda x: np.maximum(x, 0.0)), np.array([-1.0, 4.0]),
     [0.0, 0.25], None),
    ("sqrt(maximum(0, x))", _sqrt_of(lambda x: np.maximum(0.0, x)), np.array([-1.0, 4.0]),
     [0.0, 0.25], None),
    ("sqrt(where(x > 0, x, 0))", _sqrt_of(lambda x: np.where(x > 0, x, 0.0)),
     np.array([-1.0, 4.0]), [0.0, 0.25], None),
    ("sqrt(clip(x, 0, 9))", _sqrt_of(lambda x: np.clip(x, 0.0, 9.0)),
     np.array([-1.0, 4.0, 16.0]), [0.0, 0.25, 0.0], None),
    ("sqrt(fmax(x, x reversed - 5))", _sqrt_of(lambda x: np.fmax(x, x[::-1] - 5.0)),
     np.array([0.0, 4.0]), [INF, 0.25], None),
    ("cbrt(minimum(x, 0))", lambda x: np.sum(np.cbrt(np.minimum(x, 0.0))),
     np.array([1.0, -8.0]), [0.0, 1.0 / 12.0], None),
    ("sqrt(max(x))", lambda x: np.sqrt(np.max(x)), np.array([0.0, -1.0]), [INF, 0.0],
     None),
    ("sqrt(max(x, initial=0))", lambda x: np.sqrt(np.max(x, initial=0.0)),
     np.array([-2.0, -1.0]), [0.0, 0.0], None),
    ("where(x > 0, x, 0) ** 1.5", lambda x: np.sum(np.where(x > 0, x, 0.0) ** 1.5),
     np.array([-1.0, 4.0]), [0.0, 3.0], [[0.0, 0.0], [0.0, 0.375]]),
    ("maximum(x, 0) ** 1.5", lambda x: np.sum(np.maximum(x, 0.0) ** 1.5),
     np.array([-1.0, 4.0]), [0.0, 3.0], [[0.0, 0.0], [0.0, 0.375]]),
    ("clip(x, 0, 9) ** 1.5", lambda x: np.sum(np.clip(x, 0.0, 9.0) ** 1.5),
     np.array([-1.0, 4.0]), [0.0, 3.0], [[0.0, 0.0], [0.0, 0.375]]),
    ("sqrt(max over rows)", _sqrt_of(lambda x: np.max(x.reshape(2, 2), axis=1)),
     np.array([0.0, -1.0, 4.0, 1.0]), [INF, 0.0, 0.25, 0.0], None),
]
WHOLE_IDS = [row[0] for row in WHOLE]


@pytest.mark.parametrize("name, f, x, gradient, hessian", WHOLE, ids=WHOLE_IDS)
def test_the_expected_gradient_is_a_one_sided_difference(name, f, x, gradient, hessian):
    """From the side where no bound or branch is crossed: the left at a value clipped
    from below or a constant taken, else the right; inf where the difference blows up."""
    h = 1e-8
    with np.errstate(all="ignore"):
        for i, want in enumerate(gradient):
            step = np.zeros_like(x)
            step[i] = h
            slopes = [(f(x + step) - f(x)) / h, (f(x) - f(x - step)) / h]
            if math.isinf(want):
                assert max(slopes) > 1e3, i
            else:
                assert any(s == pytest.approx(want, abs=1e-5) for s in slopes), i


@pytest.mark.parametrize("name, f, x, gradient, hessian", WHOLE, ids=WHOLE_IDS)
def test_reverse_gives_the_selected_gradient(name, f, x, gradient, hessian):
    """grad and jacrev give 0 to the input not taken, where forward mode, multiplying
    sqrt's infinite partial by that input's zero tangent, gives NaN (IEEE, as
    jacfwd(sum(sqrt(x))) at 0: docs/errors-and-debugging.md); where forward mode is
    finite they agree."""
    with np.errstate(all="ignore"):
        results = {"grad": fwdad.grad(f)(x), "jacrev": fwdad.jacrev(f)(x),
                   "vjp": fwdad.vjp(f, x)[1](1.0)[0]}
        forward = fwdad.jacfwd(f)(x)
    for mode, got in results.items():
        np.testing.assert_allclose(got, gradient, rtol=1e-12, atol=1e-12, err_msg=mode)
    finite = np.isfinite(forward)
    np.testing.assert_allclose(forward[finite], np.asarray(gradient)[finite], rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("name, f, x, gradient, hessian",
                         [row for row in WHOLE if row[4] is not None],
                         ids=[row[0] for row in WHOLE if row[4] is not None])
def test_second_order_selects_the_tangent_of_the_cotangent(name, f, x, gradient, hessian):
    """The cotangent of x ** 1.5 at 0 is 0, but its tangent (0.75 / sqrt(0) times the
    zero tangent of the constant taken there) is NaN in forward over reverse: the
    selection sends it only to the input taken. The reference is the closed form, which
    central differences of the gradient confirm; forward over forward multiplies the
    same inf by 0 (NaN, IEEE, as at first order) and agrees wherever it is finite."""
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(fwdad.hessian(f)(x), hessian, rtol=1e-12, atol=1e-12)
        over_forward = fwdad.jacfwd(fwdad.jacfwd(f))(x)
    finite = np.isfinite(over_forward)
    np.testing.assert_allclose(over_forward[finite], np.asarray(hessian)[finite],
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(central_jacobian(fwdad.jacfwd(f), x), hessian, atol=1e-6)


# ---- forward mode: an inf or NaN tangent of an element not taken stays out
# (name, g, args, tangents, expected tangent)
A, B = np.array([-1.0, 2.0, 0.0]), np.array([1.0, 1.0, 5.0])
DA, DB = np.array([INF, 1.0, NAN]), np.array([2.0, NAN, 3.0])  # (finite where taken)
V, DV = np.array([1.0, 3.0, 3.0, -INF]), np.array([5.0, 1.0, INF, NAN])
FORWARD = [
    ("maximum", np.maximum, (A, B), (DA, DB), [2.0, 1.0, 3.0]),
    ("minimum", np.minimum, (A, B), (DB, DA), [2.0, 1.0, 3.0]),
    ("fmax", np.fmax, (A, B), (DA, DB), [2.0, 1.0, 3.0]),
    ("fmin", np.fmin, (A, B), (DB, DA), [2.0, 1.0, 3.0]),
    ("clip", lambda a, b: np.clip(a, b - 1.5, b), (A, B), (DA, np.array([2.0, 4.0, 3.0])),
     [2.0, 4.0, 3.0]),
    ("where", lambda a, b: np.where(a > b, a, b), (A, B), (DA, DB), [2.0, 1.0, 3.0]),
    ("heaviside", np.heaviside, (A, B), (DA, DB), [0.0, 0.0, 3.0]),
    ("np.max, a tie", np.max, (V,), (DV,), 1.0),
    ("np.min, a tie and inf", lambda v: np.min(-v), (V,), (DV,), -1.0),
    ("np.max of the last three", lambda v: np.max(v[1:]), (V,), (DV,), 1.0),
    ("v.max", lambda v: v.max(), (V,), (DV,), 1.0),
    ("nanmax", lambda v: np.nanmax(v * np.array([1.0, 1.0, 1.0, NAN])), (V,), (DV,),
     1.0),
    ("max, initial wins", lambda v: np.max(v, initial=4.0), (V,), (DV,), 0.0),
    ("ptp", lambda v: np.ptp(v[:3]), (V,), (DV,), -4.0),
    ("median", lambda v: np.median(v[:3]), (V,), (DV,), 1.0),
    ("Python max of an array", max, (V,), (DV,), 1.0),
    ("Python max of items", lambda v: max(v[0], v[1], v[2]), (V,), (DV,), 1.0),
    ("Python max of a list", lambda v: max([v[3], v[1], v[2]]), (V,), (DV,), 1.0),
    ("Python min of items", lambda v: min(v[2], v[1], v[0]), (V,), (DV,), 5.0),
    ("Python max, -inf", lambda v: max(v[3], v[1]), (V,), (DV,), 1.0),
    ("Python max with a key", lambda v: max(v[0], v[1], v[2], key=lambda t: -t),
     (V,), (DV,), 5.0),
    ("sorted", lambda v: sorted(v[:3])[1], (V,), (DV,), 1.0),
    ("np.sort", lambda v: np.sort(v[:3])[1], (V,), (DV,), 1.0),
]
FORWARD_IDS = [row[0] for row in FORWARD]


@pytest.mark.parametrize("name, g, args, tangents, expected", FORWARD, ids=FORWARD_IDS)
def test_forward_selects_the_tangent(name, g, args, tangents, expected):
    """The tangent of the element taken (ties: the first), not mixed with the others'."""
    with np.errstate(all="ignore"):
        _, tangent = fwdad.jvp(g, args, tangents)
    np.testing.assert_allclose(tangent, expected, rtol=1e-12, atol=1e-12)
