"""Memory layout: a reshape or ravel is a view or a copy as the array's layout decides,
and a write through the view reaches the array. Each derivative must follow the value
(fwdad/rules/layout.py): arrays made in F order, transposed, or given F-ordered, then
written through a reshape of them, in every mode, against central differences."""
import itertools
import warnings

import numpy as np
import pytest

import fwdad


def _filled(make):
    def made(y):
        z = make()
        z += y
        return z
    return made


MAKERS = {
    "product": lambda y: y * 2.0,
    "transposed": lambda y: (y * 2.0).T,
    "asfortranarray": lambda y: np.asfortranarray(y * 2.0),
    "asfortranarray_T": lambda y: np.asfortranarray(y * 2.0).T,
    "ascontiguousarray_of_T": lambda y: np.ascontiguousarray((y * 2.0).T),
    "array_F_T": lambda y: np.array(y * 2.0, order="F").T,
    "asarray_F": lambda y: np.asarray(y * 2.0, order="F"),
    "copy_F_T": lambda y: (y * 2.0).copy(order="F").T,
    "np_copy_F_T": lambda y: np.copy(y * 2.0, order="F").T,
    "astype_F_T": lambda y: (y * 2.0).astype(np.float64, order="F").T,
    "zeros_F_T": lambda y: _filled(lambda: np.zeros((2, 3), order="F"))(y).T,
    "full_F": lambda y: _filled(lambda: np.full((2, 3), 1.5, order="F"))(y),
    "sin_of_F_T": lambda y: np.sin(np.asfortranarray(y)).T,
}

VIEWS = {
    "reshape": lambda a: a.reshape(-1),
    "reshape_F": lambda a: a.reshape(-1, order="F"),
    "reshape_A": lambda a: a.reshape(-1, order="A"),
    "ravel": lambda a: np.ravel(a),
    "ravel_K": lambda a: a.ravel(order="K"),
    "transposed_reshape": lambda a: a.T.reshape(-1),
}


def _program(make, view):
    def f(x):
        a = make(x)
        b = view(a)
        b[0] = 100.0 * x[0, 0] ** 2  # (reaches `a` only where b is a view of it)
        b[-1] = b[-1] * x[1, 1]
        return a.sum() * 3.0 + np.sum(b * np.arange(b.size)) + np.sum(a * a)
    return f


def _directions(x):
    return [np.asfortranarray(e.reshape(x.shape)) if np.isfortran(x) else e.reshape(x.shape)
            for e in np.eye(x.size)]


def _differences(f, x):
    return np.array([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in _directions(x)])


def _by_mode(f, x, mode):
    fresh = x.copy(order="K")
    if mode == "jvp":
        return np.array([fwdad.jvp(f, (fresh.copy(order="K"),), (e,))[1]
                         for e in _directions(x)])
    if mode == "jvp_C_tangent":  # (the tangent in another order than its argument)
        return np.array([fwdad.jvp(f, (fresh.copy(order="K"),), (np.ascontiguousarray(e),))[1]
                         for e in _directions(x)])
    if mode == "jacfwd":
        return fwdad.jacfwd(f)(fresh).reshape(-1)
    if mode == "grad":
        return fwdad.grad(f)(fresh).reshape(-1)
    _, lin = fwdad.linearize(f, fresh)
    if mode == "linearize":
        return np.array([lin(np.ascontiguousarray(e)) for e in _directions(x)])
    cotangent = lin.T(1.0)[0].reshape(-1)
    return np.array([np.sum(cotangent * e.reshape(-1)) for e in _directions(x)])


MODES = ["jvp", "jvp_C_tangent", "jacfwd", "grad", "linearize", "transpose"]
CASES = list(itertools.product(["C", "F"], MAKERS, VIEWS))


@pytest.mark.parametrize("order, make, view", CASES, ids=["-".join(c) for c in CASES])
def test_writes_through_a_reshape_reach_the_derivative_as_they_reach_the_value(order, make,
                                                                               view):
    x = np.array(np.arange(1.0, 7.0).reshape(2, 3) / 3, order=order)
    f = _program(MAKERS[make], VIEWS[view])
    want = _differences(f, x)
    for mode in MODES:
        np.testing.assert_allclose(_by_mode(f, x, mode), want, rtol=1e-6, atol=1e-5,
                                   err_msg=mode)


def test_the_hessian_of_a_fortran_ordered_argument_written_through_a_reshape():
    def f(x):
        a = x.T
        b = a.reshape(-1)
        b[0] = x[0, 0] ** 3
        return np.sum(a * a) + a[0, 0] * a[1, 1]
    x = np.asfortranarray(np.arange(1.0, 7.0).reshape(2, 3) / 3)
    gradient = fwdad.grad(f)
    want = np.array([(gradient(x + 1e-5 * e) - gradient(x - 1e-5 * e)).reshape(-1) / 2e-5
                     for e in _directions(x)])
    np.testing.assert_allclose(fwdad.hessian(f)(x).reshape(6, 6), want, atol=1e-6)


def test_a_view_whose_derivative_would_be_a_copy_is_refused():
    """An F-ordered array in a list, with a C-ordered tangent (tangents in containers
    keep the order given): its transpose is a C-ordered view of it, whose reshape is a
    view too, but the tangent's transpose is not, so its reshape would be a copy."""
    def f(arrays):
        flat = arrays[0].T.reshape(-1)
        flat[0] = 5.0
        return np.sum(arrays[0] ** 2)
    x = np.asfortranarray(np.ones((2, 3)))
    with pytest.raises(fwdad.FwdadError, match="laid out in memory in another order"):
        fwdad.jvp(f, ([x],), ([np.ones((2, 3))],))


OTHER_VIEWS = {
    "einsum_transpose": lambda a: np.einsum("ij->ji", a),
    "einsum_diagonal": lambda a: np.einsum("ii->i", a[:, :2]),
    "einsum_sublists": lambda a: np.einsum(a, [0, 1], [1, 0]),
    "real_of_real": lambda a: np.real(a),
    "mT": lambda a: a.mT,
}


@pytest.mark.parametrize("view", list(OTHER_VIEWS))
def test_functions_that_give_views_give_views_of_the_derivative(view):
    """NumPy gives these as views of their argument: a write through one reaches it."""
    def f(x):
        a = x * 2.0
        b = OTHER_VIEWS[view](a)
        b[(0,) * b.ndim] = 100.0 * x[0, 0] ** 2
        return np.sum(a * a) + np.sum(b) * 3.0
    x = np.arange(1.0, 7.0).reshape(2, 3) / 3
    want = _differences(f, x)
    for mode in ["jvp", "jacfwd", "grad", "linearize", "transpose"]:
        np.testing.assert_allclose(_by_mode(f, x, mode), want, rtol=1e-6, atol=1e-5,
                                   err_msg=mode)


@pytest.mark.parametrize("order, make, view", CASES, ids=["-".join(c) for c in CASES])
def test_sparsity_detection_follows_writes_through_a_reshape(order, make, view):
    """Dependency sets are tangents too: laid out as their values (the elementwise and
    dense-fallback rules of fwdad/sparsity make new ones), a pattern misses no nonzero."""
    x = np.array(np.arange(1.0, 7.0).reshape(2, 3) / 3, order=order)

    def f(flat):
        a = MAKERS[make](flat.reshape(2, 3))
        b = VIEWS[view](a)
        b[0] = 100.0 * flat[0] ** 2
        return a.reshape(-1) * 1.0
    flat = x.reshape(-1).copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fwdad.DenseFallbackWarning)
        pattern = fwdad.jacobian_sparsity(f, flat).toarray()
    nonzeros = fwdad.jacfwd(f)(flat) != 0
    assert not (nonzeros & ~pattern).any(), (pattern, nonzeros)
