"""grad, value_and_grad and vjp at their boundary: argnums (negative ones count from
the end, as in jacfwd and hessian), the dtype of a gradient, and the clear errors for
int arguments, out-of-range argnums and outputs that are not real scalars."""
import math

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError, NonDifferentiableError
from tests.util import assert_close, fd_jvp


def _scaled(n, x):
    return n * x


def _two(x, w):
    return np.sum(np.sin(w * x) ** 2)


def _complex_output(x):
    return x * (1 + 1j)


def _complex_constant(x):
    return 1j


def _vector_output(x):
    return x * np.ones(2)


X2, W2 = np.array([0.3, -1.2]), np.array([0.7, 0.4])


def _fd_gradient(f, args, i):
    """The gradient with respect to argument i by central differences, one basis
    direction at a time (float64)."""
    x = np.asarray(args[i], float)
    flat = []
    for e in np.eye(x.size):
        direction = [None] * len(args)
        direction[i] = e.reshape(x.shape) if x.ndim else float(e[0])
        tangents = [0.0 * np.asarray(a, float) if d is None else d
                    for a, d in zip(args, direction)]
        flat.append(float(fd_jvp(f, args, tangents)))
    return np.array(flat).reshape(x.shape)


# (f, args, argnums): the gradient must match finite differences for the argument named
ARGNUMS = [(_scaled, (3, 2.0), -1), (_scaled, (3, 2.0), 1), (_two, (X2, W2), -2),
           (_two, (X2, W2), -1), (_two, (X2, W2), (-1, 0)), (_two, (X2, W2), [0, 1])]


@pytest.mark.parametrize("f, args, argnums", ARGNUMS)
def test_argnums_count_from_the_end(f, args, argnums):
    value, got = fwdad.value_and_grad(f, argnums=argnums)(*args)
    assert value == pytest.approx(f(*args))
    wrt = [argnums] if isinstance(argnums, int) else list(argnums)
    want = [_fd_gradient(f, args, i) for i in wrt]
    assert_close(got if not isinstance(argnums, int) else [got], want)
    assert isinstance(got, tuple) or isinstance(argnums, int)


@pytest.mark.parametrize("argnums", [-1, -2, 0, 1])
def test_jacfwd_and_hessian_agree_with_grad_on_negative_argnums(argnums):
    i = argnums % 2
    assert_close(fwdad.jacfwd(_two, argnums=argnums)(X2, W2), _fd_gradient(_two, (X2, W2), i))
    assert_close(fwdad.hessian(_two, argnums=argnums)(X2, W2),
                 fwdad.hessian(_two, argnums=i)(X2, W2))


# (call, error class, words the message must contain)
ERRORS = [
    (lambda: fwdad.grad(_scaled)(3, 1.0), NonDifferentiableError, "requires real-valued"),
    (lambda: fwdad.grad(_scaled, argnums=(0, 1))(3, 1.0), NonDifferentiableError,
     "argument 0"),
    (lambda: fwdad.grad(_scaled, argnums=2)(3, 1.0), FwdadError, "argnums must name"),
    (lambda: fwdad.grad(_scaled, argnums=-3)(3, 1.0), FwdadError, "argnums must name"),
    (lambda: fwdad.grad(_scaled, argnums=True)(3, 1.0), FwdadError, "argnums must be an int"),
    (lambda: fwdad.value_and_grad(_scaled, argnums=(1, 5))(3, 1.0), FwdadError,
     "argnums must name"),
    (lambda: fwdad.jacfwd(_scaled, argnums=-3)(3, 1.0), FwdadError, "argnums must name"),
    (lambda: fwdad.hessian(_scaled, argnums=2)(3, 1.0), FwdadError, "argnums must name"),
    (lambda: fwdad.grad(_complex_output)(1.0), FwdadError, "pass holomorphic=True"),
    (lambda: fwdad.grad(_complex_constant)(1.0), FwdadError, "real scalar"),
    (lambda: fwdad.grad(_vector_output)(1.0), FwdadError, "real scalar"),
    (lambda: fwdad.grad(3.0), FwdadError, "needs a function"),
]


@pytest.mark.parametrize("call, error, words", ERRORS)
def test_clear_errors(call, error, words):
    with pytest.raises(error, match=words) as info:
        call()
    assert "_scaled" in str(info.value) or "output" in str(info.value) or \
        "function" in str(info.value) or "complex" in str(info.value)


def _square_sum(x):
    return np.sum(x * x)


def _fields(p):
    return np.sum(p["a"] ** 2) * p["b"] + p["c"][0] * p["n"]


# (argument, dtype its gradient must have): JAX's rule, a gradient has its input's dtype
DTYPES = [(np.ones(3, np.float32), np.float32), (np.float32(2.0), np.float32),
          (np.ones((2, 2), np.float16), np.float16), (np.ones(3), np.float64), (1.5, float)]


@pytest.mark.parametrize("x, dtype", DTYPES, ids=str)
def test_a_gradient_has_the_dtype_of_its_input(x, dtype):
    got = fwdad.grad(_square_sum)(x)
    assert np.asarray(got).dtype == dtype and type(got) is type(x)
    assert_close(got, 2.0 * np.asarray(x, float), rtol=1e-3)


def test_dtypes_inside_containers_and_vjp():
    point = {"a": np.ones(2, np.float16), "b": np.float32(3.0), "c": [np.float32(1.0)],
             "n": 3}
    ct = fwdad.grad(_fields)(point)
    assert ct["a"].dtype == np.float16 and type(ct["b"]) is np.float32
    assert type(ct["c"][0]) is np.float32 and ct["n"] is fwdad.NoTangent
    assert_close([ct["a"], ct["b"], ct["c"][0]], [6.0 * np.ones(2), 2.0, 3.0])
    _, pullback = fwdad.vjp(_square_sum, np.ones(2, np.float32))
    assert pullback(1.0)[0].dtype == np.float32


def _float32_layer(x):
    return np.tanh(x * np.float32(1.7)) + x * x


@pytest.mark.parametrize("x", [np.array([0.3, -1.2, 0.5], np.float32),
                               np.array([[0.3, 1.2]], np.float16), np.float32(0.4)],
                         ids=lambda x: str(np.asarray(x).dtype))
def test_the_primal_of_vjp_is_what_the_function_returns(x):
    """Reverse mode computed on float64 copies of float32 arguments: vjp's primal came
    out float64 (and its values rounded differently). Now the values are the plain
    call's, bitwise; the cotangent keeps the argument's dtype."""
    want = _float32_layer(x)
    out, pullback = fwdad.vjp(_float32_layer, x)
    assert type(out) is type(want) and out.dtype == want.dtype
    np.testing.assert_array_equal(out, want)
    assert pullback(np.ones_like(want))[0].dtype == np.asarray(x).dtype
    value, _ = fwdad.value_and_grad(lambda v: np.sum(_float32_layer(v)))(x)
    assert value == np.sum(want) and value.dtype == want.dtype


def test_grad_of_an_int_argument_is_refused_before_f_runs():
    calls = []

    def counted(n, x):
        calls.append(n)
        return n * x
    with pytest.raises(NonDifferentiableError):
        fwdad.grad(counted)(3, 1.0)
    assert not calls and math.isclose(fwdad.grad(counted, argnums=1)(3, 1.0), 3.0)


# ---- outputs of one entry: grad takes them, as autograd does -----------------------------
def _sum_of_cubes_kept(x):
    return np.sum(x ** 3, keepdims=True)  # shape (1,)


def _quadratic_form_1x1(x):
    return (x[None, :] @ x[:, None]) * np.sin(x[0])  # shape (1, 1)


def _gradient_norm_kept(x):
    """grad of a shape-(1,) output inside a function grad differentiates again."""
    return np.sum(fwdad.grad(_sum_of_cubes_kept)(x) ** 2, keepdims=True)


@pytest.mark.parametrize("f", [_sum_of_cubes_kept, _quadratic_form_1x1, _gradient_norm_kept])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_grad_of_an_output_of_one_entry_matches_forward_mode(f, dtype):
    x = np.array([0.3, -1.2, 0.5], dtype)
    value, gradient = fwdad.value_and_grad(f)(x)
    assert np.shape(value) == np.shape(f(x)) and gradient.dtype == dtype
    jacobian = fwdad.jacfwd(f)(x.astype(np.float64))  # the other mode: (1, ..., 3)
    assert_close(gradient, jacobian.reshape(x.shape), rtol=1e-5 if dtype == np.float32
                 else 1e-12)


def test_grad_of_an_array_of_two_entries_is_still_refused():
    with pytest.raises(FwdadError, match="float array of one entry"):
        fwdad.grad(_vector_output)(1.0)


def test_forward_mode_over_grad_of_an_output_of_one_entry():
    """jacfwd of grad (forward over reverse) of a shape-(1,) output: its Hessian,
    diag(6 x), in closed form."""
    x = np.array([0.3, -1.2, 0.5])
    assert_close(fwdad.jacfwd(fwdad.grad(_sum_of_cubes_kept))(x), np.diag(6.0 * x))
