"""Third and fourth derivatives by repeated jvp: closed forms, central differences of
the derivative one order lower (the corpus), perturbation confusion across three
levels, and closures made inside functions differentiated three and four times."""
import contextlib
import copy
import dataclasses
import math
import typing

import numpy as np
import pytest

import fwdad
from fwdad.higher import Directional
from fwdad.tangents import random_tangent
from tests.corpus import CORPUS
from tests.language.classes import Polynomial
from tests.test_batching import IN_PLACE
from tests.util import assert_close, fd_jvp


def d(f):
    """x -> f'(x), by a jvp inside: d(d(d(f))) nests three levels of jvp."""
    return lambda x: fwdad.jvp(f, (x,), (1.0,))[1]


def derivatives(f, x, orders=4):
    """[f'(x), f''(x), ...] by repeated jvp."""
    out, g = [], f
    for _ in range(orders):
        g = d(g)
        out.append(g(x))
    return out


# ---- closed forms -----------------------------------------------------------------------
def exp_cubic(x):
    return np.exp(x) * x ** 3


def exp_cubic_derivatives(x):
    e = math.exp(x)
    return [e * (x**3 + 3 * x**2), e * (x**3 + 6 * x**2 + 6 * x),
            e * (x**3 + 9 * x**2 + 18 * x + 6), e * (x**3 + 12 * x**2 + 36 * x + 24)]


def sines_in_a_loop(x):
    """sum_k sin(k x) for k = 0, 1, 2, with a branch on a value."""
    total = 0.0
    for k in range(3):
        if total > -10.0:
            total = total + math.sin(k * x)
    return total


def sines_derivatives(x):
    phases = [math.cos, lambda t: -math.sin(t), lambda t: -math.cos(t), math.sin]
    return [sum(k ** n * phases[n - 1](k * x) for k in range(3)) for n in range(1, 5)]


def closure_inside(x):
    """A lambda made inside the function, over x: x * (x * x^2) = x^4."""
    cube = lambda z: x * z * z  # noqa: E731
    return cube(x) * x


def fourth_power_derivatives(x):
    return [4 * x**3, 12 * x**2, 24 * x, 24.0]


def nested_def_of_exp(x):
    """exp(x^2) through a def that reads x."""
    def inner(z):
        return math.exp(x * z)
    return inner(x)


def exp_square_derivatives(x):
    e = math.exp(x * x)
    return [2 * x * e, (4 * x**2 + 2) * e, (8 * x**3 + 12 * x) * e,
            (16 * x**4 + 48 * x**2 + 12) * e]


def polynomial_in_a_class(x):
    """An instance made inside, whose field is a list holding x: 1 + x*x + 2 x^3."""
    return Polynomial([1.0, 0.0, x, 2.0])(x)


def polynomial_derivatives(x):
    return [3 * x**2 + 6 * x**2, 6 * x + 12 * x, 6.0 + 12.0, 0.0]


@dataclasses.dataclass
class Pair:
    a: float
    b: float = 2.0


class Scaled(typing.NamedTuple):
    value: float
    scale: float = 3.0


def records_and_builtins(x):
    """A dataclass, a NamedTuple, sorted, zip, enumerate, max and a `with`, for |x| < 1:
    sorted([x^2, 2]) weighted (2, 1) is 2 x^2 + 2; plus 3x and max(x, 0.5)."""
    pair, scaled = Pair(x * x), Scaled(x)
    total = 0.0
    with contextlib.nullcontext():
        for i, (u, w) in enumerate(zip(sorted([pair.b, pair.a]), [pair.b, 1.0])):
            total = total + u * w
    return total + scaled.value * scaled.scale + max(x, 0.5)


def records_derivatives(x):
    return [4 * x + 3 + (x > 0.5), 4.0, 0.0, 0.0]


CLOSED_FORMS = [
    (exp_cubic, exp_cubic_derivatives),
    (sines_in_a_loop, sines_derivatives),
    (closure_inside, fourth_power_derivatives),
    (nested_def_of_exp, exp_square_derivatives),
    (polynomial_in_a_class, polynomial_derivatives),
    (records_and_builtins, records_derivatives),
]


@pytest.mark.parametrize("f, want", CLOSED_FORMS, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("x", [-0.6, 0.7])
def test_third_and_fourth_derivatives_equal_closed_forms(f, want, x):
    np.testing.assert_allclose(derivatives(f, x), want(x), rtol=1e-10, atol=1e-12)


def test_fourth_derivative_through_in_place_array_updates():
    """Central differences of the third derivative, for lack of a closed form."""
    def f(x):
        v = np.array([1.0, 2.0, 3.0]) * x
        v[1] = v[1] ** 2
        return np.sum(np.tanh(v))
    third = d(d(d(f)))
    for x in (-0.4, 0.7):
        h = 1e-5
        assert d(third)(x) == pytest.approx((third(x + h) - third(x - h)) / (2 * h),
                                            rel=1e-6, abs=1e-6)


# ---- perturbation confusion across three levels ---------------------------------------
def three_levels(x):
    """d/dy [x * d/dz (x y z)] at y = z = 1 is x^2: d/dx is 2x."""
    return fwdad.jvp(lambda y: x * fwdad.jvp(lambda z: x * y * z, (1.0,), (1.0,))[1],
                     (1.0,), (1.0,))[1]


def middle_reads_x(x):
    """x * d/dy d/dz (y z) = x: d/dx is 1."""
    return fwdad.jvp(lambda y: x * fwdad.jvp(lambda z: y * z, (1.0,), (1.0,))[1],
                     (1.0,), (1.0,))[1]


def innermost_reads_x(x):
    """d/dy (d/dz (x z)) * y = x: d/dx is 1."""
    return fwdad.jvp(lambda y: fwdad.jvp(lambda z: x * z, (1.0,), (1.0,))[1] * y,
                     (1.0,), (1.0,))[1]


def made_outside_called_deepest(x):
    """A lambda over x made at the outer level, differentiated two levels down:
    d/dy (d/dz (x z) * y) = x, so d/dx is 1."""
    scaled = lambda z: x * z  # noqa: E731
    return fwdad.jvp(lambda y: fwdad.jvp(scaled, (1.0,), (1.0,))[1] * y,
                     (1.0,), (1.0,))[1]


@pytest.mark.parametrize("f, derivative", [
    (three_levels, lambda x: 2 * x), (middle_reads_x, lambda x: 1.0),
    (innermost_reads_x, lambda x: 1.0), (made_outside_called_deepest, lambda x: 1.0)],
    ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("x", [-1.5, 2.0])
def test_three_levels_do_not_confuse_perturbations(f, derivative, x):
    assert d(f)(x) == pytest.approx(derivative(x), rel=1e-12)


def test_hessian_and_hvp_of_a_function_that_calls_jvp():
    """x * d/dy (x y^2) at y = 1 is 2 x^2: its second derivative is 4."""
    def f(x):
        return x * fwdad.jvp(lambda y: x * y * y, (1.0,), (1.0,))[1]
    assert fwdad.hessian(f)(0.8) == pytest.approx(4.0, rel=1e-12)
    assert fwdad.hvp(f, (0.8,), (1.0,))[0] == pytest.approx(4.0, rel=1e-12)


# ---- the corpus: jvp of jvp of jvp against differences of jvp of jvp -------------------
@pytest.mark.parametrize("example", [pytest.param(e, id=str(e)) for e in CORPUS + IN_PLACE])
def test_third_derivative_matches_differences_of_the_second(example):
    rng = np.random.default_rng(3)
    v = [random_tangent(a, rng) for a in example.args]
    second = Directional(Directional(example.fn, v), v)

    def along_v_twice(*args):
        return second(*copy.deepcopy(args))
    _, third = fwdad.jvp(second, copy.deepcopy(example.args), v)
    assert_close(third, fd_jvp(along_v_twice, example.args, v, h=1e-4),
                 rtol=1e-5, atol=1e-6)


def test_jacfwd_and_hessian_over_nested_jvps_of_a_vector():
    """Batched outer tangents over two levels of jvp inside (a third level in all)."""
    f = exp_cubic
    x = 0.7
    first, second, third = exp_cubic_derivatives(x)[:3]

    def g(v):
        return d(d(f))(v[0]) * v + v[1] * d(f)(v[2])
    v = np.array([x, -0.3, 0.4])
    want = np.stack([fd_jvp(g, (v,), (e,), h=1e-6) for e in np.eye(3)], axis=1)
    assert_close(fwdad.jacfwd(g)(v), want, rtol=1e-6, atol=1e-8)
    hessian = fwdad.hessian(lambda v: d(f)(v[0]) * v[1] ** 2)(v)
    np.testing.assert_allclose(hessian, [[third * 0.09, -0.6 * second, 0.0],
                                         [-0.6 * second, 2.0 * first, 0.0],
                                         [0.0, 0.0, 0.0]], rtol=1e-12)


# ---- a third derivative off by 5e-4 (fuzzer seed 99,985,473): i0e far from 0 ------------
def _i0e_of_a_square(x):
    """i0e at x^2 = 19044 (near where the fuzzer's program calls it), and i1e at -3x."""
    import scipy.special
    return scipy.special.i0e(x * x) + scipy.special.i1e(-3.0 * x)


def test_third_derivative_of_i0e_far_from_zero_matches_differences():
    """i0e' was i1e - i0e, whose derivatives difference nearly equal numbers: the third
    derivative came out 4e-4 relative off at 19044 (fwdad/rules/scaled_bessel.py)."""
    pytest.importorskip("scipy")
    second = d(d(_i0e_of_a_square))
    for x in (138.0, -40.0):
        by_differences = [(second(x + h) - second(x - h)) / (2 * h) for h in (2e-3, 1e-3)]
        assert by_differences[0] == pytest.approx(by_differences[1], rel=1e-8)
        assert d(second)(x) == pytest.approx(by_differences[1], rel=1e-7)



@dataclasses.dataclass
class _Record:
    a: float
    v: np.ndarray


def _renewed(r, s=1.0):
    return _Record(r.a * s, r.v + np.sin(r.a))


def _pinned(x0):
    """The fuzzer's program, shrunk: i0e of squares near 19044, where its derivative rule
    cancelled (the parts removed alone each moved i0e's argument closer to 0)."""
    import scipy.special
    x0[:, 0] *= (0.5 + 0.25 * math.tanh((float(np.sum(x0)) - float(np.sum(x0)))))
    rec0 = _Record((float(np.sum(x0)) + 0.3), x0.sum(axis=0) + np.zeros(3))
    rec0 = _renewed(rec0, (float(np.sum(x0)) * float(np.sum(x0))))
    v1 = 0.25 * np.sum(rec0.v) + 0.1 * rec0.a + rec0.v[2] * rec0.a
    v2 = scipy.special.gammaln(1.5 + (v1 * np.ones((3,)) + x0[1, :]) ** 2)
    x0[1:, :] -= (float(np.sum(v2)) + np.log1p(v1 * v1))
    v4 = scipy.special.i0e(np.square(v2))
    return math.cos(v1 * float(np.sum(np.cumsum(v4)))) * (1.0 + 0.1 * float(np.sum(x0)))


def test_pinned_third_derivative_of_a_fuzzed_program():
    pytest.importorskip("scipy")
    x = np.array([[-0.02023680705293016, 1.2615557039981795, 0.4705085055171931],
                  [0.9019730913574375, -1.370741290778798, 0.5132519049393776]])
    t = np.array([[0.30654993227751093, -0.46225204666716935, -1.5868695776152029],
                  [-0.6219048129923195, -0.25992207852614535, -1.333252276310155]])
    second = Directional(Directional(_pinned, (t,)), (t,))
    got = Directional(second, (t,))(x.copy())
    by_differences = [(second(x + h * t) - second(x - h * t)) / (2 * h) for h in (3e-4, 1e-4)]
    assert abs(by_differences[0] - by_differences[1]) < 1e-5 * abs(by_differences[1])
    assert_close(got, by_differences[1], rtol=2e-5)


# ---- np.select and np.choose at third order (fuzzer seed 100,149,031) --------------------
def _selected(x):
    y = np.select([x > 0.35, x < -0.3], [np.sin(x), x * x], default=0.5 * x)
    return np.sum(y * x * x)


def _chosen(x):
    return np.sum(np.choose(np.array([0, 1, 0]), [np.sin(x), x * x], mode="clip") * x)


@pytest.mark.parametrize("f", [_selected, _chosen], ids=lambda f: f.__name__)
def test_select_and_choose_to_third_order(f):
    """Their rules took the batch size by next() of a generator, which the third level
    refused as "second derivatives through next() of this iterator", at the user's line
    that has no next()."""
    x, t = np.array([0.3, -0.4, 0.8]), np.array([1.0, 0.5, -0.25])

    def second(y):
        return fwdad.jvp(lambda z: fwdad.jvp(f, (z,), (t,))[1], (y,), (t,))[1]
    assert fwdad.jvp(second, (x,), (t,))[1] == pytest.approx(fd_jvp(second, (x,), (t,),
                                                                    h=1e-5), rel=1e-6)
