"""np.linalg.norm where it is 0 (fwdad/rules/norms.py, fwdad/reverse/rules_reductions.py).

norm(x + h t) = |h| norm(t) at x = 0: no derivative, except along a t that keeps the
norm at 0. The reference is independent of fwdad: the two one-sided differences. Where
they agree, the tangent must be their value; where they do not (a kink), both modes give
the subgradient 0, which lies between them (the norm is never below 0, its value there).
That is also the true derivative of norm(v - v). tests/test_kink_conventions.py checks
the modes against each other at every kind of kink."""
import numpy as np
import pytest

import fwdad

Z3, Z22 = np.zeros(3), np.zeros((2, 2))
E1 = np.array([0.0, 1.0, 0.0])
PARTLY = np.array([0.0, 1.0, 2.0])  # one zero entry: min |x_i| (ord < 0) is 0 there
ROWS = np.array([[0.0, 0.0], [3.0, 4.0]])  # the norm of the first row is 0
COLUMN = np.array([[0.0, 1.0], [0.0, 2.0]])  # a zero column: ord -1 is 0
VECTOR_ORDS = [None, 1, 2, np.inf, -np.inf, 3, 0.5, -1, 0]
MATRIX_ORDS = [None, "fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf]

CASES = [  # (x, t, kwargs); (ord 0 counts nonzeros: piecewise constant, tangent 0)
    *[(Z3, E1, {"ord": o}) for o in VECTOR_ORDS if o != 0],
    (Z3, np.array([1.0, 1.0, 1.0]), {"ord": -np.inf}),  # every zero entry moves
    (Z3, np.array([1.0, 1.0, 1.0]), {"ord": -1}),
    *[(Z3, Z3, {"ord": o}) for o in VECTOR_ORDS],
    *[(PARTLY, E1, {"ord": o}) for o in VECTOR_ORDS],  # keeps the zero entry at 0
    *[(PARTLY, np.array([1.0, 0.0, 0.0]), {"ord": o}) for o in (-np.inf, -1)],
    (ROWS, np.array([[0.0, 0.0], [1.0, 1.0]]), {"axis": 1}),
    (ROWS, np.array([[1.0, 0.0], [1.0, 1.0]]), {"axis": 1}),
    (ROWS, np.array([[0.0, 0.0], [1.0, 1.0]]), {"ord": 1, "axis": 1, "keepdims": True}),
    (ROWS.T, np.array([[1.0, 0.0], [-1.0, 1.0]]), {"ord": np.inf, "axis": 0}),
    *[(Z22, np.eye(2), {"ord": o}) for o in MATRIX_ORDS],
    *[(Z22, Z22, {"ord": o}) for o in MATRIX_ORDS],
    (COLUMN, np.array([[0.0, 1.0], [0.0, 0.0]]), {"ord": -1}),  # the zero column stays
    (COLUMN, np.array([[1.0, 0.0], [0.0, 0.0]]), {"ord": -1}),
    (COLUMN.T, np.array([[0.0, 0.0], [1.0, 0.0]]), {"ord": -np.inf}),
    (COLUMN.T, np.array([[1.0, 0.0], [0.0, 0.0]]), {"ord": -np.inf}),
    (np.zeros((2, 2, 2)), np.ones((2, 2, 2)), {"ord": "fro", "axis": (0, 2)}),
    (COLUMN, np.array([[0.0, 1.0], [0.0, 0.0]]), {"ord": -2}),
]


def _norm(x, kwargs):
    return np.asarray(np.linalg.norm(x, **kwargs), dtype=float)


def _reference(x, t, kwargs, h=1e-7):
    """The derivative along t where both one-sided differences agree; at a kink, the
    subgradient 0, checked to lie between them."""
    at = _norm(x, kwargs)
    right = (_norm(x + h * t, kwargs) - at) / h
    left = (at - _norm(x - h * t, kwargs)) / h
    kink = np.abs(right - left) > 1e-5 * (1.0 + np.abs(right))
    assert np.all(~kink | ((at == 0) & (left <= 1e-6) & (right >= -1e-6)))
    return np.where(kink, 0.0, right)


@pytest.mark.parametrize("x, t, kwargs", CASES, ids=str)
def test_norm_tangent_where_the_norm_is_zero(x, t, kwargs):
    def norm(v):
        return np.linalg.norm(v, **kwargs)
    with np.errstate(divide="ignore"):  # (NumPy's own 1 / |0| for negative ords)
        _, tangent = fwdad.jvp(norm, (x,), (t,))
        want = _reference(x, t, kwargs)
    np.testing.assert_allclose(tangent, want, rtol=1e-5, atol=1e-6)


def _norm_of_difference(x):
    v = x
    return np.linalg.norm(v - v)


def test_norm_of_an_expression_that_is_identically_zero():
    """The norm of v - v is 0 for every input: jvp (which sees the tangent of v - v is
    0) and grad (the subgradient 0 at a zero norm) both give the true derivative, 0; the
    program fuzzer found both NaN (0/0)."""
    assert fwdad.jvp(_norm_of_difference, (np.ones(3),), (np.ones(3),))[1] == 0.0
    np.testing.assert_array_equal(fwdad.grad(_norm_of_difference)(np.ones(3)), 0.0)


@pytest.mark.parametrize("x, ord", [(Z3, o) for o in VECTOR_ORDS] +
                         [(Z22, o) for o in MATRIX_ORDS] +
                         [(PARTLY, -np.inf), (COLUMN, -1), (COLUMN, -2)], ids=str)
def test_gradient_where_the_norm_is_zero_is_the_subgradient_zero(x, ord):
    """Where the norm is 0 it moves like |h| (or is flat: ord 0) and has no gradient; a
    gradient cannot see the direction, so grad gives the subgradient 0: the norm is
    never below 0, its value there, so f(x + d) >= f(x) + <0, d> for every d."""
    with np.errstate(divide="ignore"):
        gradient = fwdad.grad(lambda v: np.linalg.norm(v, ord))(x)
        assert np.linalg.norm(x, ord) == 0.0
    np.testing.assert_array_equal(gradient, np.zeros_like(x))
