"""Higher order: jvp inside a differentiated function (no perturbation confusion),
jvp of jvp against finite differences of jvp, hessian and hvp against closed forms."""
import copy
import math
import operator

import numpy as np
import pytest

import fwdad
from fwdad.higher import Directional
from fwdad.tangents import random_tangent
from tests.corpus import CORPUS
from tests.test_batching import IN_PLACE
from tests.util import assert_close, fd_jvp


# ---- perturbation confusion ----------------------------------------------------------
def confusion(x):
    """x * (d/dy (x + y))(y=1): d/dx is 1 (a confused implementation says 2)."""
    return x * fwdad.jvp(lambda y: x + y, (1.0,), (1.0,))[1]


def closure_product(x):
    """x * (d/dy (x * y))(y=1) = x * x: d/dx is 2x."""
    return x * fwdad.jvp(lambda y: x * y, (1.0,), (1.0,))[1]


def closure_through_helper(x):
    """d/dy (x * y * y) at y=2 is 4x; times x: d/dx is 8x."""
    def helper(z):
        return z * x

    return fwdad.jvp(lambda y: helper(y) * y, (2.0,), (1.0,))[1] * x


def inner_argument_depends_on_x(x):
    """d/dy sin(y) at y = x*x is cos(x*x); d/dx is -sin(x*x) * 2x."""
    return fwdad.jvp(math.sin, (x * x,), (1.0,))[1]


NESTED = [  # (function, derivative)
    (confusion, lambda x: 1.0),
    (closure_product, lambda x: 2.0 * x),
    (closure_through_helper, lambda x: 8.0 * x),
    (inner_argument_depends_on_x, lambda x: -math.sin(x * x) * 2.0 * x),
]


@pytest.mark.parametrize("f, derivative", NESTED, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("x", [-1.3, 0.0, 0.5, 2.0])
def test_nested_jvp_does_not_confuse_perturbations(f, derivative, x):
    out, tangent = fwdad.jvp(f, (x,), (1.0,))
    assert out == pytest.approx(f(x), rel=1e-12)
    assert tangent == pytest.approx(derivative(x), rel=1e-12, abs=1e-12)


def test_nested_jvp_under_jacfwd():
    xs = np.array([0.3, -0.7])
    jac = fwdad.jacfwd(lambda v: np.array([confusion(v[0]), closure_product(v[1])]))(xs)
    np.testing.assert_allclose(jac, np.diag([1.0, 2.0 * xs[1]]), rtol=1e-12)


# ---- jvp of jvp on the corpus -----------------------------------------------------------
def _second_order_cases():
    for example in CORPUS + IN_PLACE:
        yield pytest.param(example, id=str(example))


@pytest.mark.parametrize("example", list(_second_order_cases()))
def test_jvp_of_jvp_matches_finite_differences_of_jvp(example):
    rng = np.random.default_rng(2)
    v = [random_tangent(a, rng) for a in example.args]
    w = [random_tangent(a, rng) for a in example.args]
    out, second = fwdad.jvp(Directional(example.fn, v), copy.deepcopy(example.args), w)
    first = fwdad.jvp(example.fn, copy.deepcopy(example.args), v)[1]
    assert_close(out, first, rtol=1e-12)

    def directional(*args):
        return fwdad.jvp(example.fn, copy.deepcopy(args), v)[1]
    assert_close(second, fd_jvp(directional, example.args, w, h=1e-5),
                 rtol=1e-5, atol=1e-6)


# ---- Hessians ---------------------------------------------------------------------------
def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_hessian(x):
    """The closed form."""
    n = len(x)
    hess = np.zeros((n, n))
    for i in range(n - 1):
        hess[i, i] += 1200.0 * x[i] ** 2 - 400.0 * x[i + 1] + 2.0
        hess[i + 1, i + 1] += 200.0
        hess[i, i + 1] = hess[i + 1, i] = -400.0 * x[i]
    return hess


POINTS = [np.linspace(-1.0, 1.5, 10), np.ones(10), np.random.default_rng(4).normal(size=10)]


@pytest.mark.parametrize("x", POINTS, ids=["ramp", "minimum", "random"])
def test_rosenbrock_hessian_equals_closed_form(x):
    np.testing.assert_allclose(fwdad.hessian(rosenbrock)(x), rosenbrock_hessian(x),
                               rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("x", POINTS, ids=["ramp", "minimum", "random"])
def test_hvp_equals_closed_form(x):
    v = np.arange(10.0) - 4.5
    (hv,) = fwdad.hvp(rosenbrock, (x,), (v,))
    np.testing.assert_allclose(hv, rosenbrock_hessian(x) @ v, rtol=1e-12, atol=1e-9)


def quadratic_form(a, x):
    return x @ (a @ x) + np.sin(x[0])


def test_hessian_with_respect_to_a_later_argument():
    a = np.array([[2.0, 1.0], [0.5, 3.0]])
    x = np.array([0.4, -0.2])
    want = a + a.T - np.diag([np.sin(x[0]), 0.0])
    np.testing.assert_allclose(fwdad.hessian(quadratic_form, argnums=1)(a, x), want,
                               rtol=1e-12)


def test_hessian_of_a_scalar_function_of_a_float():
    assert fwdad.hessian(lambda t: t ** 3 * math.exp(t))(0.7) == pytest.approx(
        (6 * 0.7 + 6 * 0.7 ** 2 + 0.7 ** 3) * math.exp(0.7), rel=1e-12)


def test_hessian_of_a_vector_function_has_output_shape_in_front():
    hess = fwdad.hessian(lambda x: np.array([x[0] * x[1], x[1] ** 2]))(np.ones(2))
    np.testing.assert_allclose(hess, [[[0, 1], [1, 0]], [[0, 0], [0, 2]]])


def _summed(f):
    def summed(x):
        return np.sum(f(x))
    return summed


def test_hessians_of_two_closures_of_one_function_are_their_own():
    """Their rules share code but not the closures' callees (fwdad/forward/nested/levels.py):
    the second Hessian once came out as the first's."""
    x = np.array([0.3, -0.7])
    np.testing.assert_allclose(fwdad.hessian(_summed(lambda t: t ** 3))(x), np.diag(6 * x))
    np.testing.assert_allclose(fwdad.hessian(_summed(np.sin))(x), np.diag(-np.sin(x)))


def test_hessian_needs_one_argnum():
    with pytest.raises(fwdad.FwdadError, match="one argument number"):
        fwdad.hessian(rosenbrock, argnums=(0,))


def two_arguments(x, w):
    return np.sum(np.sin(x) * w) * w[0]


def test_hvp_of_two_arguments_matches_finite_differences_of_gradients():
    x, w = np.array([0.3, -0.2]), np.array([1.5, 0.5])
    v = (np.array([1.0, -1.0]), np.array([0.5, 2.0]))
    hx, hw = fwdad.hvp(two_arguments, (x, w), v)

    def gradient(x, w):
        return np.concatenate(fwdad.jacfwd(two_arguments, argnums=(0, 1))(x, w))
    want = fd_jvp(gradient, (x, w), v, h=1e-5)
    np.testing.assert_allclose(np.concatenate([hx, hw]), want, rtol=1e-6, atol=1e-8)


class Model:
    def __init__(self, k):
        self.k = k

    def energy(self, x):
        return self.k * np.sum(x ** 3)


MODEL = Model(2.0)


def energy_of_global_model(x):
    return MODEL.energy(x) + math.exp(x[0])


def energy_of_model_argument(x, model):
    return model.energy(x) * model.k


def squared_until_large(x):
    y = x
    while y < 10.0:
        y = y * y + 1.0
    return y


HESSIANS = [  # (function, arguments, closed form)
    (energy_of_global_model, (np.array([0.5, -1.0]),),
     np.diag([12 * 0.5 + math.exp(0.5), -12.0])),
    (energy_of_model_argument, (np.array([0.5, -1.0]), Model(3.0)), np.diag([27.0, -54.0])),
    (squared_until_large, (1.5,), 8 * 1.5 ** 2 + 4 * (1.5 ** 2 + 1)),
]


@pytest.mark.parametrize("f, args, want", HESSIANS, ids=lambda v: getattr(v, "__name__", ""))
def test_hessian_through_methods_and_loops(f, args, want):
    np.testing.assert_allclose(fwdad.hessian(f)(*args), want, rtol=1e-12)


class _Scaled:
    def __init__(self, v):
        self.v = v


def _creates_an_instance(x):
    return np.sum(_Scaled(x * 2.0).v * x)


def test_creating_an_instance_at_second_order():
    """Refused until the constructor rules had level-2 rules (the program fuzzer had
    found hessian asking for an frule of an fwdad internal); now the Hessian of
    sum(2 x^2) is 4 I (tests/test_higher_order_instances.py has the other kinds)."""
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(fwdad.hessian(_creates_an_instance)(x), 4.0 * np.eye(2),
                               rtol=1e-12)
    (hv,) = fwdad.hvp(_creates_an_instance, (x,), (np.ones(2),))
    np.testing.assert_allclose(hv, [4.0, 4.0], rtol=1e-12)


def _row_minima(a):
    return np.sum(np.min(a * a, axis=1))


def _norm_times_first(x):
    return np.linalg.norm(x) * x[0]


def test_rules_that_normalize_an_axis_are_differentiated_again():
    """min(axis=1) and norm call NumPy's axis helpers, which had no rule at level 2."""
    a = np.arange(6.0).reshape(2, 3) + 1.0  # each row's minimum is its first entry
    (hv,) = fwdad.hvp(_row_minima, (a,), (np.ones_like(a),))
    np.testing.assert_allclose(hv, [[2.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    x = np.array([1.0, 2.0])
    r = np.linalg.norm(x)  # closed form of the Hessian of |x| x0
    want = (np.outer(x, np.eye(2)[0]) + np.outer(np.eye(2)[0], x)) / r \
        + x[0] * (np.eye(2) / r - np.outer(x, x) / r ** 3)
    np.testing.assert_allclose(fwdad.hessian(_norm_times_first)(x), want, rtol=1e-12)


def _calls_a_methodcaller(x):
    p = operator.methodcaller("dot", x)
    return np.sum(p(x) * x)  # a methodcaller called at second order: refused


def test_a_second_order_refusal_names_the_users_line():
    """The note pointed at the generated first-order rule (`<fwdad f_frule #3>:7`)."""
    inner = lambda x: fwdad.jvp(_calls_a_methodcaller, (x,), (np.ones(2),))[1]  # noqa: E731
    with pytest.raises(fwdad.FwdadError, match="methodcaller") as caught:
        fwdad.jvp(inner, (np.array([0.3, 0.5]),), (np.ones(2),))
    line = _calls_a_methodcaller.__code__.co_firstlineno + 2
    assert f"test_higher_order.py:{line}" in " ".join(caught.value.__notes__)


def _scaled_max(x):
    return float(max(x.ravel())) * 3.0


def test_hessian_where_a_column_has_a_plain_zero_tangent():
    """hessian of a piecewise-linear function: its closed form is 0. Columns whose outer
    tangent is a plain zero sit beside batched ones (found by the fuzzer, seed 99920176)."""
    x = np.array([0.3, 0.8, 0.1])
    np.testing.assert_array_equal(fwdad.hessian(_scaled_max)(x), np.zeros((3, 3)))


def _einsums(x):
    m = np.outer(x, x)
    return np.einsum("ii->i", m).sum() * np.einsum("ij,j->i", m, x).sum() \
        + np.einsum("ij,ij->", m, m) + np.einsum("ii", m)


def test_einsum_to_third_order():
    """einsum's rule, differentiated a third time, met next() of a generator and
    str.count (its subscripts): refused with a message naming neither the call nor
    the line. f(x + tT) is a polynomial in t: its t^3 coefficient times 6."""
    x, t = np.array([0.3, -0.4, 0.8]), np.array([1.0, 0.5, -0.25])
    q, b, c, s, a = x @ x, x @ t, t @ t, x.sum(), t.sum()

    def second(y):
        return fwdad.jvp(lambda z: fwdad.jvp(_einsums, (z,), (t,))[1], (y,), (t,))[1]
    # the t^3 coefficient of Q^2 S + Q^2 + Q, with Q = q + 2bt + ct^2, S = s + at
    cubic = 4 * b * c * s + (4 * b * b + 2 * q * c) * a + 4 * b * c
    assert fwdad.jvp(second, (x,), (t,))[1] == pytest.approx(6 * cubic, rel=1e-12)


def _counts_in_a_label(x):
    label = "a,b,c"
    k = label.count(",") + label.find("b") + len(label.strip().upper())  # 2 + 2 + 5
    return x * x * k


def _slope_times(x):
    return fwdad.jvp(_counts_in_a_label, (x,), (1.0,))[1] * x  # 18 x^2


def test_a_string_method_on_constants_in_code_differentiated_twice_and_three_times():
    """A C function with no rule, called on data alone, needs only its plain call (as
    at first order): at second order it raised a MissingRuleError for str.count, and at
    third one for fwdad's own missing_rule_error."""
    assert fwdad.jvp(_slope_times, (1.5,), (1.0,)) == (pytest.approx(18 * 1.5 ** 2),
                                                       pytest.approx(36 * 1.5))
    second = lambda y: fwdad.jvp(_slope_times, (y,), (1.0,))[1]  # noqa: E731
    assert fwdad.jvp(second, (1.5,), (1.0,))[1] == pytest.approx(36.0)
