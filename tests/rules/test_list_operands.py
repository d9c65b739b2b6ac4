"""A list or tuple where NumPy reads an array: `np.sin([x[0], x[1]])`,
`np.outer(x, [1, 2, 3])`, `x * [a, b, c]`.

Such a list reaches a rule as Dual([a, b], [da, db]): its tangent is a list too, with
NoTangent for a constant item and a batch axis on each item under jacfwd. Rules of
NumPy's functions see it as the array NumPy makes (rules/array_like.py), and the
optimizer inlines no NumPy template on what may be a list (forward/optimizer/sequences.py).
Before, `jacfwd` of `np.sin([x[0], x[1]])` was silently wrong, a helper `np.add(m, v)`
given two lists concatenated their tangents, and many rules failed with bare NumPy
errors or returned tangents of dtype object.

The sweep calls every rule case again with one array argument given as a nested list
(constant, active, and batched) and compares with the array; the programs compare
jvp, jacfwd and jacrev with central differences.
"""
import copy
import warnings

import numpy as np
import pytest
import scipy.linalg

import fwdad
from fwdad.core.duals import const
from fwdad.dual import Dual
from fwdad.rules import batching
from fwdad.rules.array_like import ListsAsArrays, reads_lists_as_arrays
from fwdad.rules.registry import get_frule
from fwdad.tangents import NoTangent, random_tangent, stack
from tests.rules.case import unwrap
from tests.rules.cases import CASES
from tests.util import fd_jvp

BATCH = 3


def _list_positions(case):
    """The positions of the case's float arrays that its rule reads as arrays."""
    rule = get_frule(case.fn)
    if not reads_lists_as_arrays(case.fn) or not isinstance(rule, ListsAsArrays):
        return []
    return [i for i, a in enumerate(case.args) if rule.reads(i) and
            isinstance(a, np.ndarray) and a.ndim >= 1 and a.size and
            a.dtype in (np.float64, np.complex128)]  # (tolist keeps these)


SWEPT = [(case, i) for case in map(unwrap, CASES) for i in _list_positions(case)]


def _items(tangent, shape, batched):
    """A tangent array as the nested list of item tangents a list's Dual holds."""
    if tangent is NoTangent:
        return np.full(shape, NoTangent, dtype=object).tolist()
    if not batched:
        return tangent.tolist()
    return _rows(np.moveaxis(tangent, 0, -1))  # each item keeps its batch of tangents


def _rows(block):
    """Nested lists down to the last axis (a batch of one item's tangents)."""
    if block.ndim == 1:
        return block.copy()
    return [_rows(block[k]) for k in range(block.shape[0])]


def _call(case, args, tangents):
    duals = [Dual(copy.deepcopy(a), copy.deepcopy(t)) for a, t in zip(args, tangents)]
    return get_frule(case.fn)(*duals, **{k: const(v) for k, v in case.kwargs.items()})


def _leaves(out):
    """The Duals of an output's arrays (a tuple or list of them: each)."""
    if isinstance(out.primal, (tuple, list)):
        tangents = out.tangent if isinstance(out.tangent, tuple) else \
            (NoTangent,) * len(out.primal)
        return [Dual(p, t) for p, t in zip(out.primal, tangents)]
    return [out]


def _dense(tangent, primal, batched):
    """The tangent as an array, with the batch axis under a batch (a tangent the same
    in every direction, such as a constant's zeros, may come without it)."""
    shape = ((BATCH,) if batched else ()) + np.shape(primal)
    if tangent is NoTangent:
        return np.zeros(shape)
    tangent = np.asarray(tangent)
    return np.broadcast_to(tangent, shape) if tangent.dtype != object else tangent


@pytest.mark.parametrize("batched, active", [(False, False), (True, True)],
                         ids=["constant", "batched"])  # (a list of constants; of variables)
@pytest.mark.parametrize("case, at", SWEPT, ids=[f"{c}@{i}" for c, i in SWEPT])
def test_a_list_reads_as_the_array(case, at, batched, active):
    rng = np.random.default_rng(0)
    array = case.args[at]
    if batched:
        directions = [[random_tangent(a, rng) for a in case.args] for _ in range(BATCH)]
        tangents = [stack([d[i] for d in directions]) for i in range(len(case.args))]
    else:
        tangents = [random_tangent(a, rng) for a in case.args]
    if not active:
        tangents[at] = NoTangent
    listed = list(case.args)
    listed[at] = array.tolist()
    listed_tangents = list(tangents)
    listed_tangents[at] = _items(tangents[at], array.shape, batched)
    with warnings.catch_warnings(), (batching.batch(BATCH) if batched else
                                     _nothing()):
        warnings.simplefilter("ignore")
        try:
            want = _call(case, case.args, tangents)
        except Exception:  # noqa: BLE001 (the sweep's point: cases whose rule runs)
            pytest.skip("the rule refuses this point with an array too")
        got = _call(case, listed, listed_tangents)
    for w, g in zip(_leaves(want), _leaves(got)):
        np.testing.assert_allclose(np.asarray(g.primal), np.asarray(w.primal), rtol=1e-12)
        dense = _dense(g.tangent, g.primal, batched)
        assert dense.dtype != object, "the tangent is an array of objects"
        np.testing.assert_allclose(dense, _dense(w.tangent, w.primal, batched),
                                   rtol=1e-12, atol=1e-14)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# ---- programs ------------------------------------------------------------------------
A = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])


def sin_of_items(x):
    return np.sin([x[0], x[1]])


def sin_of_a_matrix(x):
    return np.sin([[x[0], x[1]], [1.0, x[2]]])


def dot_with_items(x):
    return np.dot(A, [x[0], 1.0, x[2]])


def solve_for_items(x):
    return np.linalg.solve(A, [x[0], 1.0, 2.0])


def solve_a_listed_matrix(x):
    return np.linalg.solve([[x[0], 1.0], [0.5, 3.0]], x[:2])


def scipy_solve_for_items(x):
    return scipy.linalg.solve(A, [x[0], 1.0, x[1]])


def power_of_listed_exponents(x):
    return np.power(x, [1.0, 2.0, 3.0])


def outer_with_a_list(x):
    return np.outer(x, [1, 2, 3])


def exp_dot(x):
    return np.exp([x[0], 2.0]) @ np.array([1.0, 2.0])


def fft_of_items(x):
    return np.fft.fft([x[0], x[1], 1.0]).real


def det_of_items(x):
    return np.linalg.det([[x[0], 1.0], [x[1], 2.0]])


def cross_with_a_list(x):
    return np.cross(x, [1.0, 2.0, 3.0])


def add_two_lists(x):
    return np.add([x[0], 1.0], [2.0, x[1]])


def multiply_two_lists(x):
    return np.multiply([x[0], 1], [2, x[1]])


def arctan2_of_a_list(x):
    return np.arctan2([x[0], 1.0], x[1:])


def kron_of_a_list(x):
    return np.kron([1.0, 2.0], x)


def where_with_a_list(x):
    return np.where(x > 0.5, x, [1.0, 2.0, 3.0])


def lstsq_of_an_outer(x):
    return np.linalg.lstsq(np.outer(x, [1, 2, 3]) + np.eye(3), x, rcond=None)[0]


def exp_times_a_local_list(x):
    v = [x[0], 2.0]
    return np.exp(v) * v


def array_times_items(x):
    v = [x[0], x[1], 2.0]  # as many items as jacfwd's directions
    return np.exp(x) * v


def array_plus_items(x):
    return x + [x[0], x[1], 2.0]


def items_minus_array(x):
    return [x[0], x[1], 2.0] - x


def array_matmul_items(x):
    return x @ [x[0], 1.0, x[2]]


def array_over_a_tuple(x):
    return np.asarray(x) / (x[0], x[1], 1.0)


def array_times_items_with_an_int(x):
    return x * [x[0], 2, x[1]]  # (the int's tangent is NoTangent)


def items_with_an_int_plus_array(x):
    return [x[0], 2, x[1]] + x


def sin_times_a_tuple(x):
    return np.sin(x) * (x[0], 1, 2)


def sin_of_a_tuple_of_arrays(x):
    return np.sum(np.sin((x, 2.0 * x)), axis=0)


def norm_of_a_list_of_arrays(x):
    return np.linalg.norm([x, x ** 2], axis=0)


def einsum_of_listed_rows(x):
    return np.einsum("ij,j->i", [x, np.cos(x)], x)


def add(m, v):
    return np.add(m, v)


def helper_given_lists(x):
    return add([x[0], 1.0], [2.0, x[1]])


def scale(v, k):
    return np.multiply(v, k) + np.sin(v)


def helper_given_a_list_and_an_array(x):
    return scale([x[0], x[1], x[2]], x)


PROGRAMS = [sin_of_items, sin_of_a_matrix, dot_with_items, solve_for_items,
            solve_a_listed_matrix, scipy_solve_for_items, power_of_listed_exponents,
            outer_with_a_list, exp_dot, fft_of_items, det_of_items, cross_with_a_list,
            add_two_lists, multiply_two_lists, arctan2_of_a_list, kron_of_a_list,
            where_with_a_list, lstsq_of_an_outer, exp_times_a_local_list,
            array_times_items, array_plus_items, items_minus_array, array_matmul_items,
            array_over_a_tuple, array_times_items_with_an_int, items_with_an_int_plus_array,
            sin_times_a_tuple, sin_of_a_tuple_of_arrays, norm_of_a_list_of_arrays,
            einsum_of_listed_rows, helper_given_lists, helper_given_a_list_and_an_array]
X = np.array([0.3, 0.8, 1.1])


def _fd_jacobian(f, x):
    return np.stack([fd_jvp(f, (x,), (e,)) for e in np.eye(x.size)], axis=-1)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_jvp_of_list_operands(f):
    t = np.array([1.0, -2.0, 0.5])
    out, tangent = fwdad.jvp(f, (X,), (t,))
    np.testing.assert_allclose(out, f(X))
    assert np.asarray(tangent).dtype != object
    np.testing.assert_allclose(tangent, fd_jvp(f, (X,), (t,)), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("mode", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_jacobians_of_list_operands(f, mode):
    jacobian = np.asarray(getattr(fwdad, mode)(f)(X))
    assert jacobian.dtype != object
    np.testing.assert_allclose(jacobian, _fd_jacobian(f, X), rtol=1e-6, atol=1e-8)


def test_an_optimized_helper_turns_lists_away_on_entry():
    """The helper's optimized rule inlines np.add's template for arrays; its guard
    sends two lists to the plain rule, which adds them as NumPy does."""
    source = fwdad.derive_frule(add).frule.source
    assert "_fw_sequences" in source
    out, tangent = fwdad.jvp(helper_given_lists, (X,), (np.ones(3),))
    np.testing.assert_allclose(tangent, [1.0, 1.0])
    out, tangent = fwdad.jvp(add, (X, X), (np.ones(3), np.ones(3)))  # arrays: inlined
    np.testing.assert_allclose(tangent, 2.0 * np.ones(3))


def weighted_by_items(x0, x):
    return np.sum(x * [x0, 2.0, x0 ** 2])  # (at second order the list holds Duals)


def sin_of_products(x):
    return np.sum(np.sin([x[0] * x[1], x[2]])) + np.dot(x, (x[0], 1.0, x[1]))


def test_second_order_of_list_operands():
    x0 = 0.7
    np.testing.assert_allclose(fwdad.hessian(weighted_by_items, argnums=0)(x0, X),
                               2.0 * X[2], rtol=1e-10)
    hessian = fwdad.hessian(sin_of_products)(X)
    gradient = fwdad.grad(sin_of_products)
    by_differences = np.stack([fd_jvp(gradient, (X,), (e,)) for e in np.eye(3)], axis=-1)
    np.testing.assert_allclose(hessian, by_differences, rtol=1e-6, atol=1e-8)
