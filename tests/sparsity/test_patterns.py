"""Detected patterns against the nonzeros of dense jacfwd, one rule family per row.

Each case's pattern must contain the Jacobian's nonzeros (never miss one) and, for
the families with exact rules, equal them at random inputs. `superset` marks the cases
whose pattern is larger by design: set arithmetic never cancels (x - x), and a
constant's zeros are not looked at (A @ x with a sparse A, a 0/1 mask)."""
from dataclasses import dataclass
from typing import Callable, Tuple

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import sparse

import fwdad
from tests.sparsity.reference import pattern_and_nonzeros

RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 6))
B = RNG.standard_normal((3, 2))


@dataclass
class Case:
    name: str
    fn: Callable
    shape: Tuple[int, ...]
    exact: bool = True            # the pattern equals the nonzeros (at random inputs)
    exact_globally: bool = True   # ... in global mode too

    def __str__(self) -> str:
        return self.name


def tridiagonal(u):
    """A 1-D three-point stencil with fixed ends, written with an in-place update."""
    r = np.zeros_like(u)
    r[1:-1] = u[:-2] - 2.0 * u[1:-1] + u[2:] + 0.1 * u[1:-1] ** 2
    r[0], r[-1] = u[0], u[-1]
    return r


def five_point(u):
    """A 2-D five-point stencil on a 4 x 5 grid, zero outside, with `+=` on slices."""
    u = u.reshape(4, 5)
    r = -4.0 * u + np.sin(u)
    r[1:, :] += u[:-1, :]
    r[:-1, :] += u[1:, :]
    r[:, 1:] += u[:, :-1]
    r[:, :-1] += u[:, 1:]
    return r.ravel()


def overwritten(x):
    y = x.copy()
    y[1] = 5.0          # overwritten by a constant: no dependencies left
    y[2] += x[0]        # an update adds x[0]
    x[3] = x[4] * 2.0   # the argument itself, updated in place
    return y * x


def add_at_an_argument(x):
    """np.add.at into the argument, a repeated index, a value read from x."""
    np.add.at(x, [0, 0, 2], np.cos(x[-1]))
    return x * 1.0


def add_at_a_constant(x):
    z = np.zeros(3)
    np.add.at(z, [0, 0, 2], x[1])  # (the constant has no sets yet: the dense fallback)
    return z * x


def multiply_at(x):
    np.multiply.at(x, [0, 2], x[1])  # (no rule of its own: the dense fallback)
    return x * 1.0


CASES = [
    # elementwise: the union, broadcast
    Case("sin_times_x", lambda x: np.sin(x) * x + np.exp(-x ** 2), (5,)),
    Case("broadcast_outer", lambda x: (x[:, None] * x[None, :]).ravel(), (4,)),
    Case("ufunc_two_args", lambda x: np.hypot(x, 2.0) + np.arctan2(x, x[::-1]), (5,)),
    Case("maximum", lambda x: np.maximum(x, x[::-1]), (5,), exact=False,  # (its frule
         exact_globally=False),  # selects by a 0/1 factor, which sets do not see)
    Case("where", lambda x: np.where(x > 0, x ** 2, np.cos(x[::-1])), (6,),
         exact_globally=False),
    Case("python_scalars", lambda x: np.array([x[0] * x[1], x[2] + 1.0, x[0]]), (3,)),
    Case("python_max_min", lambda x: max(x[0], x[1]) * np.sum(x[1:]) + min(x[2], 0.5),
         (3,), exact_globally=False),
    # reductions: the union over the reduced axes
    Case("sum_axis", lambda x: np.sum(x.reshape(3, 4) ** 2, axis=0), (12,)),
    Case("mean_keepdims", lambda x: np.mean(x.reshape(3, 4), axis=1, keepdims=True).ravel(),
         (12,)),
    Case("prod", lambda x: np.prod(x.reshape(2, 3) + 2.0, axis=1), (6,)),
    Case("cumsum", lambda x: np.cumsum(x), (5,)),
    Case("std", lambda x: np.std(x.reshape(2, 3), axis=1), (6,)),
    Case("max_axis", lambda x: np.max(x.reshape(3, 2), axis=1), (6,),
         exact_globally=False),
    Case("sum_all", lambda x: x.sum() * x, (4,)),
    # matmul and einsum: the structural product
    Case("matmul", lambda x: A @ x, (6,)),
    Case("matmul_2d", lambda x: x.reshape(2, 3) @ B, (6,)),
    Case("einsum", lambda x: np.einsum("ij,j->i", A, x * x), (6,)),
    Case("dot_self", lambda x: np.dot(x.reshape(2, 3), x.reshape(3, 2)).ravel(), (6,)),
    # indexing and slicing: moved sets
    Case("strided", lambda x: x[::2] * x[1::2], (8,)),
    Case("fancy_index", lambda x: x[[3, 0, 0, 2]], (4,)),
    Case("slice_2d", lambda x: x.reshape(3, 4)[1:, :-1].T.ravel(), (12,)),
    # np.roll, concatenation, reshapes
    Case("roll", lambda x: x - np.roll(x, 2), (6,)),
    Case("roll_axis", lambda x: np.roll(x.reshape(2, 3), 1, axis=1).ravel() * x, (6,)),
    Case("concatenate", lambda x: np.concatenate([x[3:] ** 2, x[:2]]), (5,)),
    Case("stack", lambda x: np.stack([x, np.cos(x[::-1])]).ravel(), (4,)),
    Case("reshape_transpose", lambda x: np.tanh(x.reshape(2, 3).T).reshape(-1), (6,)),
    # in-place updates: overwritten items lose their old sets
    Case("in_place", overwritten, (5,)),
    Case("tridiagonal", tridiagonal, (7,)),
    Case("five_point", five_point, (20,)),
    Case("add_at", add_at_an_argument, (4,)),
    Case("add_at_a_constant", add_at_a_constant, (3,), exact=False, exact_globally=False),
    # lists where NumPy reads arrays: np.array's rule stacks the items' sets
    Case("listed_items", lambda x: np.sin([x[0], x[1], x[2] * x[3]]), (4,)),
    Case("listed_rows", lambda x: np.add([x[:2], x[2:] ** 2], 1.0).ravel(), (4,)),
    # superset by design
    Case("cancels", lambda x: x - x + 0.0 * x[::-1], (4,), exact=False,
         exact_globally=False),
    Case("sparse_constant", lambda x: np.diag([1.0, 0.0, 2.0]) @ x, (3,), exact=False,
         exact_globally=False),
]


def _random_input(shape):
    return RNG.uniform(0.5, 1.5, shape) * RNG.choice([-1.0, 1.0], shape)


@pytest.mark.parametrize("mode", ["local", "global"])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_pattern_contains_the_nonzeros_of_jacfwd(case, mode):
    x = _random_input(case.shape)
    pattern, nonzeros = pattern_and_nonzeros(case.fn, x, mode=mode)
    assert pattern.shape == nonzeros.shape
    assert not (nonzeros & ~pattern).any(), "a nonzero of the Jacobian is missing"
    if case.exact and (mode == "local" or case.exact_globally):
        np.testing.assert_array_equal(pattern, nonzeros)


def test_other_ufuncs_at_depend_on_every_input():
    """np.multiply.at has no rule of its own: the array it writes takes every input
    (global mode refuses it: its fallback reads values)."""
    x = _random_input((3,))
    with pytest.warns(fwdad.DenseFallbackWarning, match="ufunc.at"):
        pattern, nonzeros = pattern_and_nonzeros(multiply_at, x, mode="local")
    assert not (nonzeros & ~pattern).any()


@pytest.mark.parametrize("mode", ["local", "global"])
def test_an_operator_with_a_list_depends_on_every_input(mode):
    """`x * [x[0], 2, ...]`: the operators' sparsity rule takes arrays and numbers, so
    the dense fallback (with its warning) gives a superset."""
    x = _random_input((4,))
    with pytest.warns(fwdad.DenseFallbackWarning, match="mul"):
        pattern, nonzeros = pattern_and_nonzeros(lambda x: x * [x[0], 2, x[1], 1.0], x,
                                                 mode=mode)
    assert not (nonzeros & ~pattern).any()


@pytest.mark.parametrize("case", [c for c in CASES if not c.exact_globally], ids=str)
def test_global_pattern_holds_at_other_inputs(case):
    x = _random_input(case.shape)
    pattern = fwdad.jacobian_sparsity(case.fn, x.copy(), mode="global").toarray()
    for _ in range(5):
        _, nonzeros = pattern_and_nonzeros(case.fn, x, at=(_random_input(case.shape),))
        assert not (nonzeros & ~pattern).any()


def test_the_result_is_a_csr_array_of_bools_in_c_order():
    pattern = fwdad.jacobian_sparsity(lambda x: x[:, 0] * x[:, 1], np.ones((3, 2)))
    assert isinstance(pattern, sparse.csr_array) and pattern.dtype == bool
    assert pattern.shape == (3, 6)
    np.testing.assert_array_equal(pattern.toarray(), np.kron(np.eye(3), [1, 1]) > 0)


def test_tuple_outputs_give_their_rows_in_order():
    def f(x):
        return x[0] * 2.0, x[1:] ** 2
    pattern, nonzeros = pattern_and_nonzeros(f, _random_input((3,)))
    np.testing.assert_array_equal(pattern, nonzeros)
    assert pattern.shape == (3, 3)


def test_several_argnums_give_their_columns_in_order():
    def f(x, s, y):
        return x * y[0] + s
    args = (_random_input((3,)), 0.7, _random_input((2,)))
    pattern, nonzeros = pattern_and_nonzeros(f, *args, argnums=(2, 0, 1))
    np.testing.assert_array_equal(pattern, nonzeros)
    assert pattern.shape == (3, 6)


def test_arguments_not_differentiated_are_constants():
    pattern = fwdad.jacobian_sparsity(lambda x, y: x * y, np.ones(3), np.ones(3))
    np.testing.assert_array_equal(pattern.toarray(), np.eye(3, dtype=bool))


def test_the_arguments_are_left_as_they_were():
    x = np.ones(5)
    fwdad.jacobian_sparsity(overwritten, x)
    np.testing.assert_array_equal(x, np.ones(5))


def test_derivatives_after_a_detection_are_plain_numbers():
    """A detection drops the rules it built: jacfwd afterwards is right."""
    def f(x):
        return np.sin(x) * x[0]
    x = _random_input((3,))
    fwdad.jacobian_sparsity(f, x)
    expected = np.diag(np.cos(x) * x[0])
    expected[:, 0] += np.sin(x)
    np.testing.assert_allclose(fwdad.jacfwd(f)(x), expected)


@given(n=st.integers(3, 40), mode=st.sampled_from(["local", "global"]))
def test_tridiagonal_pattern_at_any_size(n, mode):
    pattern = fwdad.jacobian_sparsity(tridiagonal, np.linspace(0.1, 1.0, n), mode=mode)
    expected = np.eye(n, dtype=bool) | np.eye(n, k=1, dtype=bool) | np.eye(n, k=-1, dtype=bool)
    expected[0, 1] = expected[-1, -2] = False
    np.testing.assert_array_equal(pattern.toarray(), expected)


def _five_point_any(m, k):
    def f(u):
        u = u.reshape(m, k)
        r = -4.0 * u
        r[1:, :] += u[:-1, :]
        r[:-1, :] += u[1:, :]
        r[:, 1:] += u[:, :-1]
        r[:, :-1] += u[:, 1:]
        return r.ravel()
    return f


@given(m=st.integers(2, 9), k=st.integers(2, 9))
def test_five_point_pattern_at_any_shape(m, k):
    pattern = fwdad.jacobian_sparsity(_five_point_any(m, k), np.ones(m * k), mode="global")
    lap = lambda n: np.eye(n) + np.eye(n, k=1) + np.eye(n, k=-1)  # noqa: E731
    expected = (np.kron(lap(m), np.eye(k)) + np.kron(np.eye(m), lap(k))) != 0
    np.testing.assert_array_equal(pattern.toarray(), expected)
    assert pattern.nnz == 5 * m * k - 2 * (m + k)


@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
       axis=st.integers(0, 2))
def test_sum_over_an_axis_at_any_shape(shape, axis):
    axis = axis % len(shape)
    f = lambda x: np.sum(np.exp(x), axis=axis)  # noqa: E731
    pattern, nonzeros = pattern_and_nonzeros(f, _random_input(tuple(shape)))
    np.testing.assert_array_equal(pattern, nonzeros)


@pytest.mark.parametrize("mode", ["local", "global"])
@pytest.mark.parametrize("fn", [
    lambda x: np.max(x.reshape(2, 3), 1, None, True).ravel(),
    lambda x: x.reshape(2, 3).max(axis=0, keepdims=True).ravel(),
    lambda x: np.std(x.reshape(2, 3), 0, None, None, 1),
    lambda x: np.var(x.reshape(3, 2), axis=1, ddof=1, keepdims=True).ravel(),
    lambda x: np.array([max(x[0], x[1], x[2]), min(x[3], x[4])]),
], ids=["max_positional", "max_method", "std_positional", "var_keywords", "max_of_three"])
@pytest.mark.filterwarnings("ignore::fwdad.DenseFallbackWarning")
def test_reductions_with_their_other_arguments(fn, mode):
    """Arguments the sparsity rules do not read (positional `out` or `keepdims`) give
    the fallback, still a superset."""
    x = _random_input((6,))
    pattern, nonzeros = pattern_and_nonzeros(fn, x, mode=mode)
    assert not (nonzeros & ~pattern).any()


def _step(x):
    return np.roll(x, 1) * x + x[::-1]


@pytest.mark.usefixtures("restore_rules")  # (a static_graph registers a primitive)
def test_a_static_graph_function_runs_its_derived_rule():
    recorded = fwdad.static_graph(_step)
    x = _random_input((5,))
    fwdad.jvp(recorded, (x,), (np.ones(5),))  # (records a schedule)
    for mode in ("local", "global"):
        pattern, nonzeros = pattern_and_nonzeros(lambda y: recorded(y) * 2.0, x,
                                                 mode=mode)
        np.testing.assert_array_equal(pattern, nonzeros)
