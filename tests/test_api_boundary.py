"""The boundary of the public transformations: what they accept (negative argnums,
keyword arguments passed to f as constants) against finite differences, and a clear
FwdadError naming f for every call they cannot make sense of (a table: call, error
class, words the message must contain)."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError, NonDifferentiableError, TangentError
from tests.util import assert_close, fd_jvp


def one(x):
    return x * x


def two(x, y):
    return np.sum(np.sin(x) * y)


def scaled(x, y=1.0, *, scale=1.0, offset=None):
    out = np.sum(x * x * y) * scale
    return out if offset is None else out + np.sum(offset * x)


def vector(x):
    return x * 2.0


def none_output(x):
    return None


def int_output(x):
    return 3


def grad_of_int_inside(a):
    def inner(n):
        return a * n
    return fwdad.grad(inner)(3)


def steps(y, a):
    return (y > a).astype(int)


def grad_of_an_int_array_inside(a):
    return fwdad.grad(steps)(np.ones(2), a)


def first_item(pair):
    return pair[0] * 2.0


def grad_of_vector_inside(a):
    def inner(y):
        return y * a
    return fwdad.grad(inner)(np.ones(2))


X, Y = np.array([0.3, -1.2, 0.8]), np.array([1.5, 0.5, -2.0])

ERRORS = [  # (call, error class, words the message must contain)
    # calls f cannot take: f and its signature are named
    (lambda: fwdad.jvp(one, (0.5, 1.0), (1.0, 0.0)), FwdadError, r"jvp calls .*one\(x\)"),
    (lambda: fwdad.batched_jvp(one, (0.5, 1.0), (np.ones(2), np.ones(2))), FwdadError,
     r"batched_jvp calls .*one\(x\) with 2 positional"),
    (lambda: fwdad.vjp(one, 0.5, 1.0), FwdadError, r"vjp calls .*one\(x\)"),
    (lambda: fwdad.grad(one)(), FwdadError, r"grad calls .*one\(x\) with 0 positional"),
    (lambda: fwdad.grad(one)(0.5, 1.0), FwdadError, r"grad calls .*one\(x\)"),
    (lambda: fwdad.grad(one)(0.5, scale=2.0), FwdadError, "unexpected keyword argument"),
    (lambda: fwdad.value_and_grad(one)(), FwdadError, r"value_and_grad calls .*one\(x\)"),
    (lambda: fwdad.jacfwd(one)(0.5, 1.0), FwdadError, r"jacfwd calls .*one\(x\)"),
    (lambda: fwdad.jacrev(one)(), FwdadError, r"jacrev calls .*one\(x\)"),
    (lambda: fwdad.hessian(one)(), FwdadError, r"hessian calls .*one\(x\)"),
    (lambda: fwdad.hvp(one, (0.5, 1.0), (1.0, 0.0)), FwdadError, r"hvp calls .*one\(x\)"),
    (lambda: fwdad.linearize(one, 0.5, 1.0), FwdadError, r"linearize calls .*one\(x\)"),
    # argnums naming no argument, or not an int
    (lambda: fwdad.grad(two, argnums=2)(1.0, 2.0), FwdadError, "argnums must name"),
    (lambda: fwdad.value_and_grad(two, argnums=-3)(1.0, 2.0), FwdadError,
     "argnums must name"),
    (lambda: fwdad.jacfwd(two, argnums=(0, 2))(X, Y), FwdadError, "argnums must name"),
    (lambda: fwdad.jacrev(two, argnums=2)(X, Y), FwdadError, "argnums must name"),
    (lambda: fwdad.hessian(two, argnums=-3)(X, Y), FwdadError, "argnums must name"),
    (lambda: fwdad.grad(one)(x=1.0), FwdadError, "no positional arguments"),
    (lambda: fwdad.grad(one, 0.5), FwdadError, "argnums must be an int or"),
    (lambda: fwdad.value_and_grad(one, "0"), FwdadError, "argnums must be an int or"),
    (lambda: fwdad.jacfwd(one, argnums=(0, 1.0)), FwdadError, "argnums must be an int or"),
    (lambda: fwdad.jacrev(one, argnums=()), FwdadError, "non-empty tuple"),
    (lambda: fwdad.hessian(one, argnums=None), FwdadError, "argnums must be an int or"),
    (lambda: fwdad.hessian(two, argnums=(0, 1)), FwdadError, "one argument number"),
    # not a function
    (lambda: fwdad.grad(one(0.5)), FwdadError, "^grad needs a function"),
    (lambda: fwdad.value_and_grad(one(0.5)), FwdadError, "^value_and_grad needs a function"),
    (lambda: fwdad.jacfwd(one(0.5)), FwdadError, "^jacfwd needs a function"),
    (lambda: fwdad.jacrev(one(0.5)), FwdadError, "^jacrev needs a function"),
    (lambda: fwdad.hessian(one(0.5)), FwdadError, "^hessian needs a function"),
    (lambda: fwdad.vjp(one(0.5), 1.0), FwdadError, "^vjp needs a function"),
    # grad of an int, or of an output that is not a real scalar
    (lambda: fwdad.grad(one)(3), NonDifferentiableError, "requires real-valued inputs"),
    (lambda: fwdad.value_and_grad(one)(3), NonDifferentiableError, "requires real-valued"),
    (lambda: fwdad.grad(two, argnums=(0, 1))(X, 2), NonDifferentiableError, "argument 1"),
    (lambda: fwdad.grad(vector)(X), FwdadError, "needs a float output"),
    (lambda: fwdad.value_and_grad(none_output)(1.0), FwdadError, "needs a float output"),
    (lambda: fwdad.jvp(grad_of_int_inside, (1.0,), (1.0,)), FwdadError,
     r"grad\(tests.test_api_boundary.inner\) inside .* argument 0 is an int"),
    (lambda: fwdad.grad(grad_of_int_inside)(1.0), FwdadError, "argument 0 is an int"),
    (lambda: fwdad.jvp(grad_of_vector_inside, (1.0,), (1.0,)), FwdadError,
     "needs a float output"),
    (lambda: fwdad.jvp(grad_of_an_int_array_inside, (0.5,), (1.0,)), FwdadError,
     "needs a float output"),
    # a tangent for a value without a derivative: advice that works, in plain English
    (lambda: fwdad.jvp(one, (3,), (1.0,)), NonDifferentiableError,
     r"argument 'x' of .*one is an int \(3\).*pass it as a float \(e.g. float\(3\)\)"),
    (lambda: fwdad.jvp(one, (np.array([1, 2]),), (np.ones(2),)), NonDifferentiableError,
     r"is an ndarray .*pass it as a float array \(e.g. value.astype\(float\) or "
     r"np.asarray\(value, dtype=float\)\)"),
    (lambda: fwdad.jvp(one, ("a",), (1.0,)), NonDifferentiableError,
     r"is a str .*fwdad differentiates floats, float arrays"),
    # the index of a part goes on the argument, not on the function
    (lambda: fwdad.jvp(first_item, ((1.0, X),), ((1.0, np.ones(2)),)), TangentError,
     r"the tangent of argument 'pair'\[1\] of .*first_item must be a float array of "
     r"shape \(3,\) \(like its primal\), but it is an ndarray of shape \(2,\)"),
    (lambda: fwdad.batched_jvp(first_item, ({"a": X},), ({"a": np.ones((2, 2))},)),
     TangentError, r"argument 'pair'\['a'\] of .*first_item must"),
    (lambda: fwdad.jvp(first_item, ((1.0, 2.0),), ([1.0],)), TangentError,
     r"the tangent of argument 'pair' of .*first_item must have the structure"),
    # derive_frule of something that is not a function fails at once
    (lambda: fwdad.derive_frule(3), FwdadError,
     r"derive_frule decorates a function \(@fwdad.derive_frule above a def\), but got an "
     r"int: 3"),
]


@pytest.mark.parametrize("call, error, words", ERRORS)
def test_clear_errors(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_an_int_output_has_a_zero_gradient():
    """An int output (`return 0` on a flat branch) is piecewise constant: its gradient
    is zero, of the input's type, never NoTangent."""
    assert fwdad.grad(int_output)(1.5) == 0.0
    np.testing.assert_array_equal(fwdad.grad(lambda x: int(x[0] > 0))(X), np.zeros(3))


def step(y, a):
    return int(y > a)


@pytest.mark.parametrize("inner", [fwdad.grad, fwdad.jacfwd, fwdad.jacrev])
def test_an_inner_derivative_of_an_int_output_is_zero(inner):
    """d/da [a * d/dy step(y, a)] = 0: the inner derivative is zero, at both levels."""
    def outer(a):
        return a * inner(step)(1.0, a) + a * a
    assert fwdad.jvp(outer, (0.5,), (1.0,)) == (pytest.approx(0.25), pytest.approx(1.0))
    assert fwdad.grad(outer)(0.5) == pytest.approx(1.0)


# ---- negative argnums count from the end, everywhere ----------------------------------
def fd_gradient(f, args, at):
    return np.array([fd_jvp(f, args, [np.eye(3)[k] if i == at else np.zeros(3)
                                      for i in range(len(args))]) for k in range(3)])


@pytest.mark.parametrize("argnums", [-1, -2])
def test_negative_argnums(argnums):
    at = argnums % 2
    want = fd_gradient(two, (X, Y), at)
    assert_close(fwdad.grad(two, argnums=argnums)(X, Y), want)
    assert_close(fwdad.value_and_grad(two, argnums=(argnums,))(X, Y)[1][0], want)
    assert_close(fwdad.jacfwd(two, argnums=argnums)(X, Y), want)
    assert_close(fwdad.jacrev(two, argnums=argnums)(X, Y), want)
    hessian = fwdad.hessian(two, argnums=argnums)(X, Y)
    assert_close(hessian, np.array([fd_gradient(lambda *a: fwdad.grad(two, at)(*a)[k],
                                                (X, Y), at) for k in range(3)]), rtol=1e-5)


# ---- keyword arguments pass through, as constants ------------------------------------
KEYWORDS = {"y": 0.5, "scale": 3.0, "offset": np.array([1.0, -2.0, 0.5])}


def scaled_by_keywords(x):
    return scaled(x, **KEYWORDS)


@pytest.mark.parametrize("transformation", ["grad", "value_and_grad", "jacfwd", "jacrev"])
def test_keyword_arguments_are_passed_to_f_undifferentiated(transformation):
    got = getattr(fwdad, transformation)(scaled)(X, **KEYWORDS)
    if transformation == "value_and_grad":
        assert got[0] == pytest.approx(scaled_by_keywords(X))
        got = got[1]
    assert_close(got, fd_gradient(scaled_by_keywords, (X,), 0))


def test_hessian_with_keyword_arguments():
    got = fwdad.hessian(scaled)(X, **KEYWORDS)
    assert_close(got, np.diag([2.0 * 0.5 * 3.0] * 3), rtol=1e-12)  # d2/dx2 of 1.5 x.x


def test_keyword_arguments_with_the_forward_fallback_of_grad():
    """f calls a transformation inside: grad takes the outer derivative by forward mode,
    with the keyword arguments too."""
    def f(x, *, scale):
        return scale * fwdad.grad(lambda t: t ** 3)(x)
    assert fwdad.grad(f)(0.7, scale=2.0) == pytest.approx(2.0 * 6 * 0.7, rel=1e-12)
    assert fwdad.jacrev(f)(0.7, scale=2.0) == pytest.approx(2.0 * 6 * 0.7, rel=1e-12)


def writes_into_its_keyword_argument(x, *, out):
    out[:] = x * x
    return np.sum(out * x)


def test_a_keyword_argument_written_into_by_forward_mode():
    """`out` takes values that depend on x: its tangent (zero, as a constant's) widens
    to hold them, and the derivative is d/dx sum(x^3)."""
    got = fwdad.jacfwd(writes_into_its_keyword_argument)(X, out=np.zeros(3))
    assert_close(got, 3.0 * X * X)


@pytest.mark.parametrize("transformation", [fwdad.grad, fwdad.jacrev])
def test_a_keyword_argument_written_into_by_reverse_mode_is_refused(transformation):
    """Reverse mode refuses writes of variables into a constant array (a positional
    constant argument alike): the derivative through it would be lost."""
    with pytest.raises(FwdadError, match="written into a constant array"):
        transformation(writes_into_its_keyword_argument)(X, out=np.zeros(3))


def inner_gradient_with_a_keyword(a):
    return fwdad.grad(scaled)(np.array([a, 1.0]), scale=a)  # (2 a^2, 2 a)


@pytest.mark.parametrize("outer", ["jvp", "grad", "jacrev"])
def test_keyword_arguments_of_an_inner_transformation_keep_their_outer_tangent(outer):
    f = lambda a: np.sum(inner_gradient_with_a_keyword(a))  # noqa: E731  2 a^2 + 2 a
    got = {"jvp": lambda: fwdad.jvp(f, (0.7,), (1.0,))[1], "grad": lambda: fwdad.grad(f)(0.7),
           "jacrev": lambda: fwdad.jacrev(f)(0.7)}[outer]()
    assert got == pytest.approx(4 * 0.7 + 2, rel=1e-12)
    assert got == pytest.approx(fd_jvp(f, (0.7,), (1.0,)), rel=1e-7)


# ---- None as a tangent: no tangent (a zero), in every transformation --------------------
def mixed(x, pair):
    return np.sum(x * pair[0]) + pair[1] * 2.0


def test_none_is_a_zero_tangent_in_jvp_and_batched_jvp():
    pair = (Y, 0.5)
    want = fwdad.jvp(mixed, (X, pair), (np.ones(3), (np.zeros(3), 0.0)))
    assert fwdad.jvp(mixed, (X, pair), (np.ones(3), None)) == want
    assert fwdad.jvp(mixed, (X, pair), (np.ones(3), (None, 0.0))) == want
    assert fwdad.jvp(mixed, (X, pair), (None, (None, 1.0)))[1] == 2.0
    batch = np.stack([np.ones(3), -np.ones(3)])
    out, tangents = fwdad.batched_jvp(mixed, (X, pair), (batch, (None, None)))
    assert_close(tangents, [np.sum(Y), -np.sum(Y)])


def test_none_is_a_zero_tangent_in_linearize_and_a_zero_cotangent_in_vjp():
    out, lin = fwdad.linearize(two, X, Y)
    assert_close(lin(np.ones(3), None), lin(np.ones(3), np.zeros(3)))
    assert_close(lin(None, np.ones(3)), np.sum(np.sin(X)))
    batch = np.stack([np.ones(3), 2 * np.ones(3)])
    assert_close(lin(batch, None), [lin(b, np.zeros(3)) for b in batch])
    _, pullback = fwdad.vjp(two, X, Y)
    assert_close(pullback(None), (np.zeros(3), np.zeros(3)))
