"""Both modes agree at kinks (docs/errors-and-debugging.md, "Kinks").

At a point where a function has no derivative but a standard subgradient (abs and every
norm at 0, std of equal values, hypot at (0, 0)), jvp, grad, jacfwd, jacrev and the
second-order transformations give the same number: the subgradient 0. At ties of
max/min and at clip's bounds they follow the branch the primal took (the first
argument; the value passed through). Where the derivative is infinite (sqrt at 0) both
give IEEE inf. The reference is independent of fwdad: the value each row expects, which
must lie between the two one-sided differences (the subgradient property along each
axis), or for an infinite derivative, a one-sided difference that blows up.
"""
import math

import numpy as np
import pytest

import fwdad

Z1, Z2, Z3, Z22 = np.zeros(1), np.zeros(2), np.zeros(3), np.zeros((2, 2))
TIE, EQUAL = np.array([1.0, 1.0]), np.array([2.0, 2.0, 2.0])


def _norm(*args, **kwargs):
    def norm(x):
        return np.linalg.norm(x, *args, **kwargs)
    return norm


def _sum_of(fn):
    def total(x):
        return np.sum(fn(x))
    return total


def _pair(fn):
    def pair(x):
        return fn(x[0], x[1])
    return pair


def _first(fn):
    def first(x):
        return fn(x[0])
    return first


def _half_power(x):
    return x[0] ** 0.5


def _dist_to_itself(x):
    return math.dist([x[0], x[1]], [0.0, 0.0])


def _std_rows(x):
    return np.sum(np.std(x.reshape(2, 2), axis=1))


def _clip(x):
    return np.sum(np.clip(x, 0.0, 1.0))


# (name, f, x, expected gradient): the convention at the kink
KINKS = [
    ("abs", _first(abs), Z1, [0.0]),
    ("np.abs", _sum_of(np.abs), Z3, [0.0, 0.0, 0.0]),
    ("np.fabs", _sum_of(np.fabs), Z3, [0.0, 0.0, 0.0]),
    *[(f"norm ord={o}", _norm(o), Z3, [0.0] * 3) for o in (None, 1, 2, np.inf, -np.inf, 3,
                                                         0.5, -1)],
    *[(f"matrix norm ord={o}", _norm(o), Z22, np.zeros((2, 2)))
      for o in ("fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf)],
    ("norm axis=1", _sum_of(_norm(axis=1)), np.array([[0.0, 0.0], [3.0, 4.0]]),
     [[0.0, 0.0], [0.6, 0.8]]),
    ("vector_norm", np.linalg.vector_norm, Z3, [0.0] * 3),
    ("matrix_norm", np.linalg.matrix_norm, Z22, np.zeros((2, 2))),
    ("std", np.std, EQUAL, [0.0] * 3),
    ("ndarray.std", lambda x: x.std(), EQUAL, [0.0] * 3),
    ("nanstd", np.nanstd, EQUAL, [0.0] * 3),
    ("std rows", _std_rows, np.array([2.0, 2.0, 1.0, 3.0]), [0.0, 0.0, -0.5, 0.5]),
    ("np.hypot", _pair(np.hypot), Z2, [0.0, 0.0]),
    ("math.hypot", _pair(math.hypot), Z2, [0.0, 0.0]),
    ("math.dist", _dist_to_itself, Z2, [0.0, 0.0]),
    ("np.maximum tie", _pair(np.maximum), TIE, [1.0, 0.0]),
    ("np.minimum tie", _pair(np.minimum), TIE, [1.0, 0.0]),
    ("np.fmax tie", _pair(np.fmax), TIE, [1.0, 0.0]),
    ("np.fmin tie", _pair(np.fmin), TIE, [1.0, 0.0]),
    ("max tie", _pair(max), TIE, [1.0, 0.0]),
    ("min tie", _pair(min), TIE, [1.0, 0.0]),
    ("np.max tie", np.max, TIE, [1.0, 0.0]),
    ("np.min tie", np.min, TIE, [1.0, 0.0]),
    ("relu", _sum_of(lambda x: np.maximum(x, 0.0)), Z2, [1.0, 1.0]),
    ("clip at both bounds", _clip, np.array([0.0, 1.0]), [1.0, 1.0]),
    ("sign", _sum_of(np.sign), Z3, [0.0] * 3),
    ("np.sqrt", _first(np.sqrt), Z1, [np.inf]),
    ("math.sqrt", _first(math.sqrt), Z1, [np.inf]),
    ("np.cbrt", _first(np.cbrt), Z1, [np.inf]),
    ("x ** 0.5", _half_power, Z1, [np.inf]),
]
IDS = [row[0] for row in KINKS]


def _value(f, x):
    try:
        return float(f(x))
    except ValueError:  # (math.sqrt left of 0: out of the domain)
        return math.nan


def _one_sided(f, x, i, h=1e-7, offset=0.0):
    """The right and left differences along axis i at x + offset e_i."""
    e = np.zeros_like(x)
    e.flat[i] = 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        at = _value(f, x + offset * e)
        return ((_value(f, x + (offset + h) * e) - at) / h,
                (at - _value(f, x + (offset - h) * e)) / h)


@pytest.mark.parametrize("name, f, x, expected", KINKS, ids=IDS)
def test_the_convention_is_a_one_sided_derivative_or_between_them(name, f, x, expected):
    """The reference: each component lies between the one-sided differences along its
    axis (a subgradient along that axis), or is +inf where the right difference blows
    up (sqrt at 0: the left side is out of the domain). At sign's jump: the derivative
    on both sides (0)."""
    for i, want in enumerate(np.ravel(expected)):
        right, left = _one_sided(f, x, i)
        if np.isinf(want):
            assert right > 1e3
        elif name == "sign":
            assert _one_sided(f, x, i, offset=1e-3) == _one_sided(f, x, i, offset=-1e-3) \
                == (want, want)
        else:
            tol = 1e-5 * (1.0 + abs(want))
            assert min(left, right) - tol <= want <= max(left, right) + tol, (i, left, right)


def _basis(x, i):
    e = np.zeros_like(x)
    e.flat[i] = 1.0
    return e


@pytest.mark.parametrize("name, f, x, expected", KINKS, ids=IDS)
def test_forward_and_reverse_modes_give_the_convention(name, f, x, expected):
    expected = np.asarray(expected, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        jvps = [fwdad.jvp(f, (x,), (_basis(x, i),))[1] for i in range(x.size)]
        results = {"jvp": np.reshape(jvps, x.shape), "grad": fwdad.grad(f)(x),
                   "jacfwd": fwdad.jacfwd(f)(x), "jacrev": fwdad.jacrev(f)(x)}
    for mode, got in results.items():
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=mode)


# Second order where the first derivative is 0 or a branch's: the same 0 (or the
# branch's) in every composition. 2 and nuc matrix norms are refused at second order
# (repeated singular values: tests/rules), so they are left out.
SECOND_ORDER = [row for row in KINKS if not np.isinf(np.ravel(row[3])[0])
                and row[0] not in ("matrix norm ord=nuc", "matrix norm ord=2",
                                   "matrix norm ord=-2")]


@pytest.mark.parametrize("name, f, x, expected", SECOND_ORDER,
                         ids=[row[0] for row in SECOND_ORDER])
def test_second_order_compositions_agree(name, f, x, expected):
    """Every row's second derivative is 0 (but the nonzero row of "norm axis=1"): on the
    branch the primal takes each is linear
    nearby, or is a norm or std whose first derivative is the constant subgradient 0 at
    the point (std rows: std(c, d) = |c - d| / 2 near (1, 3) is linear too)."""
    want = np.zeros(x.shape * 2)
    if name == "norm axis=1":  # the row (3, 4): (I - u u^T) / 5, u = (0.6, 0.8)
        want[1, :, 1, :] = (np.eye(2) - np.outer([0.6, 0.8], [0.6, 0.8])) / 5.0
    for compose in (fwdad.hessian, lambda g: fwdad.jacfwd(fwdad.jacfwd(g)),
                    lambda g: fwdad.jacrev(fwdad.jacrev(g)),
                    lambda g: fwdad.jacfwd(fwdad.jacrev(g))):
        np.testing.assert_allclose(compose(f)(x), want, atol=1e-12)


def test_an_infinite_derivative_is_inf_in_both_modes_at_second_order_too():
    """sqrt at 0: d/dx = inf, d2/dx2 = -inf (-x ** -1.5 / 4), in each composition."""
    def root(x):
        return math.sqrt(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        assert fwdad.jvp(root, (0.0,), (1.0,))[1] == np.inf
        assert fwdad.grad(root)(0.0) == np.inf
        assert fwdad.hessian(root)(0.0) == -np.inf
