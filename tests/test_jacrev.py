"""jacrev: Jacobians by reverse mode, against central finite differences (float64) and
against jacfwd (same shapes, nesting and dtypes); inside differentiated functions, and
over inner transformations (where it falls back to forward mode)."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError, NonDifferentiableError
from tests.test_higher_order import rosenbrock, rosenbrock_hessian
from tests.util import assert_close, fd_jvp


def fd_jacobian(f, args, at=0, h=1e-6):
    """Central differences along each entry of argument `at`: out.shape + x.shape."""
    x = np.asarray(args[at], dtype=float)
    columns = []
    for e in np.eye(x.size):
        direction = [np.zeros_like(np.asarray(a, float)) for a in args]
        direction[at] = e.reshape(x.shape) if x.ndim else float(e[0])
        columns.append(np.asarray(fd_jvp(f, args, direction, h=h)))
    out = np.stack(columns, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


def vector_map(x):
    return np.sin(x) * x[::-1] + np.array([1.0, 2.0, 3.0]) * x[0]


def matrix_map(a):
    return np.tanh(a * a.sum()) @ a.T


def vector_to_scalar(x):
    return np.sum(np.sin(x) * x)


def scalar_to_vector(t):
    return np.array([t, t * t, np.exp(t)])


def updates_its_input(x):
    x *= 2.0
    x[1:] += x[:-1] ** 2
    return x * np.cos(x)


CASES = [  # (function, point, Jacobian shape)
    (vector_map, np.array([0.3, -1.2, 2.0]), (3, 3)),
    (matrix_map, np.arange(6.0).reshape(2, 3) / 10, (2, 2, 2, 3)),
    (vector_to_scalar, np.linspace(0.0, 1.0, 4), (4,)),
    (scalar_to_vector, 0.3, (3,)),
    (np.sin, 0.3, ()),
    (updates_its_input, np.array([0.4, -0.3, 0.9]), (3, 3)),
]


@pytest.mark.parametrize("f, x, shape", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_jacobian_matches_finite_differences_and_jacfwd(f, x, shape):
    jac = fwdad.jacrev(f)(x)
    assert np.shape(jac) == shape
    assert_close(jac, fd_jacobian(f, (x,)), rtol=1e-6, atol=1e-8)
    assert_close(jac, fwdad.jacfwd(f)(x), rtol=1e-12, atol=1e-14)


def test_the_callers_input_is_left_alone():
    x = np.array([0.4, -0.3, 0.9])
    fwdad.jacrev(updates_its_input)(x)
    np.testing.assert_array_equal(x, [0.4, -0.3, 0.9])


CALLS = []


def counted(x):
    CALLS.append(1)
    return np.sin(x) * 2.0


def test_f_runs_once_for_all_rows():
    CALLS.clear()
    jac = fwdad.jacrev(counted)(np.array([0.1, 0.2, 0.3, 0.4]))
    assert len(CALLS) == 1
    np.testing.assert_allclose(jac, np.diag(2.0 * np.cos([0.1, 0.2, 0.3, 0.4])), rtol=1e-14)


def two_arguments(x, y):
    return {"scaled": x * y, "pair": (x[0] * y, 3)}


@pytest.mark.parametrize("argnums", [(0, 1), (1, 0), 1, -2, (-1,)])
def test_argnums_and_nested_outputs_as_jacfwd_gives_them(argnums):
    x, y = np.array([1.0, 2.0, 3.0]), 0.5
    got = fwdad.jacrev(two_arguments, argnums=argnums)(x, y)
    assert_close(got, fwdad.jacfwd(two_arguments, argnums=argnums)(x, y), rtol=1e-14)
    many = argnums if isinstance(argnums, tuple) else (argnums,)
    for k, at in enumerate(many):
        block = got["scaled"][k] if isinstance(argnums, tuple) else got["scaled"]
        assert_close(block, fd_jacobian(lambda *a: two_arguments(*a)["scaled"], (x, y), at))


def test_int_output_leaves_get_zero_blocks():
    jac = fwdad.jacrev(two_arguments, argnums=0)(np.array([1.0, 2.0]), 0.5)
    np.testing.assert_array_equal(jac["pair"][1], np.zeros(2))


def tuple_input(pair):
    a, b = pair
    return a * b.sum()


def test_nested_input_gives_nested_jacobian():
    a, b = 2.0, np.array([1.0, 3.0])
    assert_close(fwdad.jacrev(tuple_input)((a, b)), fwdad.jacfwd(tuple_input)((a, b)))
    da, db = fwdad.jacrev(tuple_input)((a, b))
    assert da == pytest.approx(4.0)
    np.testing.assert_allclose(db, [2.0, 2.0])


def scaled(x, *, scale=1.0, shift=None):
    return np.sin(x) * scale + (0.0 if shift is None else shift)


def test_keyword_arguments_are_constants():
    x = np.array([0.2, 0.7])
    got = fwdad.jacrev(scaled)(x, scale=3.0, shift=np.ones(2))
    assert_close(got, fd_jacobian(lambda z: scaled(z, scale=3.0, shift=np.ones(2)), (x,)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_result_dtype_is_jacfwds_for_one_dtype(dtype):
    x = np.array([1.0, 2.0], dtype=dtype)
    got, want = fwdad.jacrev(vector_to_scalar)(x), fwdad.jacfwd(vector_to_scalar)(x)
    assert got.dtype == want.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


def widened(x, y):
    return x.astype(np.float64) * y


def test_each_block_has_its_inputs_dtype_as_a_gradient_does():
    x, y = np.array([1.0, 2.0], dtype=np.float32), np.array([0.5, 3.0])
    dx, dy = fwdad.jacrev(widened, argnums=(0, 1))(x, y)
    assert (dx.dtype, dy.dtype) == (np.float32, np.float64)
    assert_close(dx, np.diag(y))
    assert_close(dy, np.diag(x.astype(float)))
    assert fwdad.jacrev(np.sin)(np.float32(0.3)).dtype == np.float32


ERRORS = [  # (call, error class, words the message must contain)
    (lambda: fwdad.jacrev(two_arguments, argnums=2)(np.ones(2), 1.0), FwdadError,
     "argnums must name"),
    (lambda: fwdad.jacrev(two_arguments, argnums=0.5), FwdadError, "must be an int"),
    (lambda: fwdad.jacrev(lambda n: n * 2.0)(3), NonDifferentiableError, "no floats"),
    (lambda: fwdad.jacrev(vector_map)(np.ones(3, complex)), FwdadError,
     "Pass holomorphic=True"),
    (lambda: fwdad.jacrev(lambda x: np.exp(1j * x))(np.ones(3)), FwdadError,
     "an output is complex"),
    (lambda: fwdad.jacrev(vector_map)(np.ones(3), 2.0), FwdadError, r"vector_map\(x\)"),
    (lambda: fwdad.jacrev(np.sin(1.0)), FwdadError, "jacrev needs a function"),
]


@pytest.mark.parametrize("call, error, words", ERRORS)
def test_clear_errors(call, error, words):
    with pytest.raises(error, match=words):
        call()


# ---- nesting ---------------------------------------------------------------------------
X = np.array([1.2, 0.8, -0.5, 0.3])


@pytest.mark.parametrize("outer, inner", [(fwdad.jacrev, fwdad.jacfwd),
                                          (fwdad.jacfwd, fwdad.jacrev),
                                          (fwdad.jacrev, fwdad.jacrev),
                                          (fwdad.jacrev, fwdad.grad)])
def test_second_derivatives_by_composition_are_the_hessian(outer, inner):
    np.testing.assert_allclose(outer(inner(rosenbrock))(X), rosenbrock_hessian(X),
                               rtol=1e-12)


def inner_jacobian_of_a_closure(a):
    return np.sum(fwdad.jacrev(lambda b: np.sin(a * b))(np.array([0.5, 1.0])) ** 2)


def test_inner_jacrev_of_a_closure_over_the_outer_variable():
    a, v = np.array([0.3, -0.7]), np.array([1.0, 0.5])
    want = fd_jvp(inner_jacobian_of_a_closure, (a,), (v,))
    assert fwdad.jvp(inner_jacobian_of_a_closure, (a,), (v,))[1] == pytest.approx(want,
                                                                               rel=1e-7)
    assert fwdad.grad(inner_jacobian_of_a_closure)(a) @ v == pytest.approx(want, rel=1e-7)


def test_jacrev_nested_three_deep_is_refused():
    with pytest.raises(FwdadError, match="more than two deep"):
        fwdad.grad(fwdad.grad(lambda x: fwdad.jacrev(np.sin)(x)))(0.3)
