"""Random-shape property tests of the NumPy rule families: test_rule (finite differences
and a batch of 3 tangents) at shapes and values drawn by Hypothesis: 0-d arrays, empty
arrays where NumPy allows them, broadcasting, random axes and indices."""
import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fwdad import testing
from fwdad.testing.strategies import (
    NONZERO,
    POSITIVE,
    REAL,
    array_shapes,
    axes_of,
    distinct_values_in,
    values_in,
)

RANDOM = settings(max_examples=10, deadline=None, database=None)


def _array(data, domain=REAL, min_dims=0, min_side=1, max_dims=3, distinct=False):
    shape = data.draw(array_shapes(min_dims, max_dims, min_side), label="shape")
    strategy = distinct_values_in(domain, shape) if distinct else values_in(domain, shape)
    return data.draw(strategy, label="x")


# ---- reductions -----------------------------------------------------------------------
LINEAR_REDUCTIONS = [np.sum, np.mean, np.nansum]
SMOOTH_REDUCTIONS = [np.prod, np.var, np.std]
ORDER_REDUCTIONS = [np.max, np.min, np.median]


@RANDOM
@given(data=st.data(), fn=st.sampled_from(LINEAR_REDUCTIONS + SMOOTH_REDUCTIONS
                                          + ORDER_REDUCTIONS), keepdims=st.booleans())
def test_reductions(data, fn, keepdims):
    distinct = fn in ORDER_REDUCTIONS or fn is np.std
    x = _array(data, min_side=0 if fn is np.sum else 1, distinct=distinct)
    axis = data.draw(axes_of(x.ndim), label="axis")
    if fn is np.median and isinstance(axis, tuple):
        axis = axis[0]
    if fn is np.std:  # d std is infinite where std is 0 (one value)
        assume(np.all(np.std(x, axis=axis) > 0.01))
    testing.test_rule(fn, x, axis=axis, keepdims=keepdims)


@RANDOM
@given(data=st.data(), fn=st.sampled_from([np.cumsum, np.cumprod, np.sort]))
def test_cumulative_and_sort(data, fn):
    x = _array(data, distinct=fn is np.sort, min_side=0 if fn is np.cumsum else 1)
    axis = data.draw(st.none() | st.integers(-1, x.ndim - 1) if x.ndim else st.none())
    if fn is np.sort and x.ndim == 0:
        axis = None
    testing.test_rule(fn, x, axis=axis)


@RANDOM
@given(data=st.data(), ord_=st.sampled_from([None, 1, 2, 3, np.inf, -np.inf, 0.5]))
def test_vector_norms(data, ord_):
    x = _array(data, NONZERO, min_dims=1, max_dims=1, distinct=True)
    assume(np.all(np.abs(x) > 0.05))
    testing.test_rule(np.linalg.norm, x, ord=ord_)


# ---- shapes -----------------------------------------------------------------------------
@RANDOM
@given(data=st.data())
def test_reshape_transpose_and_moves(data):
    x = _array(data, min_side=0)
    testing.test_rule(np.reshape, x, (-1,))
    perm = data.draw(st.permutations(range(x.ndim)), label="axes")
    testing.test_rule(np.transpose, x, tuple(perm))
    if x.ndim:
        a, b = data.draw(st.integers(-x.ndim, x.ndim - 1)), data.draw(
            st.integers(-x.ndim, x.ndim - 1))
        testing.test_rule(np.swapaxes, x, a, b)
        testing.test_rule(np.moveaxis, x, a, b)
        testing.test_rule(np.flip, x, axis=a)
        testing.test_rule(np.roll, x, 1, axis=a)
    testing.test_rule(np.expand_dims, x, 0)
    testing.test_rule(np.squeeze, x[None])


@RANDOM
@given(data=st.data(), shift=st.integers(-7, 7), layout=st.sampled_from(["C", "F", "strided"]))
def test_roll_by_slices_is_np_roll(data, shift, layout):
    """The np.roll rule's primal and tangents (rules/shapes.py: rolled) are np.roll's
    array: values, dtype, shape and memory order, for any axis and layout."""
    from fwdad.rules.shapes import rolled
    x = _array(data, min_side=0)
    x = {"C": x, "F": np.asfortranarray(x), "strided": np.repeat(x, 2, axis=-1)[..., ::2]
         if x.ndim else x}[layout]
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.none(),
                     label="axis")
    want, got = np.roll(x, shift, axis), rolled(x, shift, axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want) and got.strides == want.strides
    testing.test_rule(np.roll, x, shift, axis=axis)


@RANDOM
@given(data=st.data(), fn=st.sampled_from([np.concatenate, np.stack]))
def test_joining(data, fn):
    x = _array(data, min_dims=1)
    y = data.draw(values_in(REAL, x.shape), label="y")
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1 + (fn is np.stack)), label="axis")
    testing.test_rule(fn, [x, y], axis=axis)


# ---- indexing -----------------------------------------------------------------------------
@RANDOM
@given(data=st.data())
def test_basic_indexing_get_and_set(data):
    import operator
    x = _array(data, min_dims=1)
    index = data.draw(hnp.basic_indices(x.shape, allow_newaxis=True), label="index")
    testing.test_rule(operator.getitem, x, index)
    value = data.draw(values_in(REAL, x[index].shape), label="value")
    testing.test_rule(operator.setitem, x, index, value)
    if value.ndim:  # (finite differences perturb a 0-d array into a NumPy scalar)
        testing.test_rule(operator.iadd, x[index].copy(), value)


@RANDOM
@given(data=st.data())
def test_integer_array_indexing(data):
    import operator
    x = _array(data, min_dims=1)
    index = data.draw(hnp.integer_array_indices(x.shape), label="index")
    testing.test_rule(operator.getitem, x, index)
    value = data.draw(values_in(REAL, x[index].shape), label="value")
    testing.test_rule(operator.setitem, x, index, value)  # repeated: the last write wins
    testing.test_rule(np.ufunc.at, np.add, x, index, value)  # repeated: accumulates


# ---- linear algebra --------------------------------------------------------------------------
def _well_conditioned(data, n, stack=()):
    a = data.draw(values_in(REAL, stack + (n, n)), label="a") / 4.0
    return a + 2.0 * np.eye(n)


@RANDOM
@given(data=st.data(), n=st.integers(1, 4), stack=st.sampled_from([(), (2,)]))
def test_solvers(data, n, stack):
    a = _well_conditioned(data, n, stack)
    b = data.draw(values_in(REAL, stack + (n, 2)), label="b")
    testing.test_rule(np.linalg.solve, a, b)
    testing.test_rule(np.linalg.inv, a)
    testing.test_rule(np.linalg.det, a)
    testing.test_rule(np.linalg.slogdet, a)
    testing.test_rule(np.linalg.cholesky, a @ np.swapaxes(a, -1, -2))


@RANDOM
@given(data=st.data(), m=st.integers(1, 4), n=st.integers(1, 4))
def test_decompositions(data, m, n):
    # NONZERO: LAPACK's Householder QR jumps where a leading entry changes sign
    a = data.draw(values_in(NONZERO, (max(m, n), min(m, n))), label="a")
    s = np.linalg.svd(a, compute_uv=False)
    assume(s.min() > 0.1 and (len(s) < 2 or np.min(-np.diff(s)) > 0.1))
    testing.test_rule(np.linalg.qr, a)
    testing.test_rule(np.linalg.svd, a, full_matrices=False)
    testing.test_rule(np.linalg.pinv, a.T.copy())
    sym = a.T @ a + np.diag(np.arange(a.shape[1]) * 0.5)
    w = np.linalg.eigvalsh(sym)
    assume(len(w) < 2 or np.min(np.diff(w)) > 0.1)
    testing.test_rule(np.linalg.eigh, sym)


@RANDOM
@given(data=st.data(), shapes=st.sampled_from([((3,), (3,)), ((2, 3), (3,)),
                                               ((3,), (3, 2)), ((2, 3), (3, 4)),
                                               ((2, 2, 3), (3, 2)), ((2, 3), (2, 3, 2))]),
       fn=st.sampled_from([np.matmul, np.dot]))
def test_products(data, shapes, fn):
    x = data.draw(values_in(REAL, shapes[0]), label="x")
    y = data.draw(values_in(REAL, shapes[1]), label="y")
    if fn is np.matmul and len(shapes[1]) == 3 and len(shapes[0]) == 2:
        y = y[0]
    testing.test_rule(fn, x, y)
    if x.ndim == 2 and y.ndim == 2:
        testing.test_rule(np.einsum, "ij,jk->ik", x, y)
        testing.test_rule(np.einsum, "ij,jk", x, y)


@RANDOM
@given(data=st.data())
def test_ufunc_out_argument(data):
    x = _array(data, POSITIVE, min_dims=1, min_side=0)  # (0-d: as in test_basic_...)
    out = data.draw(values_in(REAL, x.shape), label="out")
    testing.test_rule(np.log, x, out)
    testing.test_rule(np.hypot, x, out, out.copy())
