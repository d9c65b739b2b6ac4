"""Transformations called inside a function that is itself differentiated: every pair
of modes on the perturbation-confusion example, grad∘grad, jvp∘grad, grad∘jvp and
jacfwd∘grad against closed forms and finite differences of the first derivative, and
a clear error for every combination fwdad does not support yet (issue 14)."""
import math

import numpy as np
import pytest

import fwdad
from tests.test_higher_order import rosenbrock, rosenbrock_hessian
from tests.util import fd_jvp

# ---- every pair of modes: d/dx [x * d/dy (x + y)] = 1 -----------------------------------
INNER = {  # name -> d/dy (x + y) at y = 1, by that transformation
    "jvp": lambda x: fwdad.jvp(lambda y: x + y, (1.0,), (1.0,))[1],
    "grad": lambda x: fwdad.grad(lambda y: x + y)(1.0),
    "value_and_grad": lambda x: fwdad.value_and_grad(lambda y: x + y)(1.0)[1],
    "jacfwd": lambda x: fwdad.jacfwd(lambda y: x + y)(1.0),
    "jacrev": lambda x: fwdad.jacrev(lambda y: x + y)(1.0),
    "vjp": lambda x: fwdad.vjp(lambda y: x + y, 1.0)[1](1.0)[0],
    "linearize": lambda x: fwdad.linearize(lambda y: x + y, 1.0)[1](1.0),
    "batched_jvp": lambda x: fwdad.batched_jvp(lambda y: x + y, (1.0,), (np.ones(1),))[1][0],
    "hessian": lambda x: fwdad.hessian(lambda y: x * y * y)(1.0) / 2.0,
    "hvp": lambda x: fwdad.hvp(lambda y: x * y * y, (1.0,), (1.0,))[0] / 2.0,
}
OUTER = {  # name -> d/dx F at x
    "jvp": lambda F, x: fwdad.jvp(F, (x,), (1.0,))[1],
    "grad": lambda F, x: fwdad.grad(F)(x),
    "value_and_grad": lambda F, x: fwdad.value_and_grad(F)(x)[1],
    "jacfwd": lambda F, x: fwdad.jacfwd(F)(x),
    "jacrev": lambda F, x: fwdad.jacrev(F)(x),
    "linearize": lambda F, x: fwdad.linearize(F, x)[1](1.0),
    "batched_jvp": lambda F, x: fwdad.batched_jvp(F, (x,), (np.ones(1),))[1][0],
    "vjp": lambda F, x: fwdad.vjp(F, x)[1](1.0)[0],
    "hessian": lambda F, x: fwdad.hessian(F)(x),
    "hvp": lambda F, x: fwdad.hvp(F, (x,), (1.0,))[0],
}
WORKING_INNER = ["jvp", "grad", "value_and_grad", "jacfwd", "jacrev"]
WORKING_OUTER = ["jvp", "grad", "value_and_grad", "jacfwd", "jacrev", "linearize",
                 "batched_jvp"]
PAIRS = [(o, i) for o in OUTER for i in INNER]
# third order: a jvp inside a function whose Hessian is taken (tests/test_third_order.py)
THIRD_ORDER = [("hessian", "jvp"), ("hvp", "jvp")]


def times_inner(inner):
    return lambda x: x * inner(x)


@pytest.mark.parametrize("outer, inner", [p for p in PAIRS if p[0] in WORKING_OUTER
                                          and p[1] in WORKING_INNER], ids="{0[0]}∘{0[1]}".format)
@pytest.mark.parametrize("x", [-1.5, 3.0])
def test_no_perturbation_confusion(outer, inner, x):
    assert OUTER[outer](times_inner(INNER[inner]), x) == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("outer, inner", [
    p for p in PAIRS if (p[0] not in WORKING_OUTER or p[1] not in WORKING_INNER)
    and p not in THIRD_ORDER], ids="{0[0]}∘{0[1]}".format)
def test_unsupported_pairs_are_refused_naming_the_inner_transformation(outer, inner):
    with pytest.raises(fwdad.FwdadError, match=f"fwdad.{inner}|{inner} is nested"):
        OUTER[outer](times_inner(INNER[inner]), 3.0)


# ---- the reproducer: a closure over the outer variable ---------------------------
def scaled_inner_gradient(a):
    """a * d/db (a b^2) at b = 1 = 2 a^2: d/da is 4a."""
    return a * fwdad.grad(lambda b: a * b * b)(1.0)


@pytest.mark.parametrize("outer", WORKING_OUTER)
def test_inner_gradient_of_a_closure_over_the_outer_variable(outer):
    assert OUTER[outer](scaled_inner_gradient, 3.0) == pytest.approx(12.0, rel=1e-12)


def test_value_and_grad_over_an_inner_gradient_gives_the_value_too():
    value, slope = fwdad.value_and_grad(scaled_inner_gradient)(3.0)
    assert (value, slope) == (pytest.approx(18.0), pytest.approx(12.0))


# ---- second derivatives by composition, against closed forms -----------------------------
X = np.array([1.2, 0.8, -0.5, 0.3])
V = np.array([1.0, 0.0, 2.0, -1.0])


def test_jvp_of_grad_is_the_hessian_times_v():
    _, hv = fwdad.jvp(fwdad.grad(rosenbrock), (X,), (V,))
    np.testing.assert_allclose(hv, rosenbrock_hessian(X) @ V, rtol=1e-12)


def test_jacfwd_of_grad_is_the_hessian():
    np.testing.assert_allclose(fwdad.jacfwd(fwdad.grad(rosenbrock))(X),
                               rosenbrock_hessian(X), rtol=1e-12)


def test_grad_of_jvp_is_the_hessian_times_v():
    slope = fwdad.grad(lambda x: fwdad.jvp(rosenbrock, (x,), (V,))[1])(X)
    np.testing.assert_allclose(slope, rosenbrock_hessian(X) @ V, rtol=1e-12)


def test_grad_of_grad_of_a_scalar_function():
    assert fwdad.grad(fwdad.grad(lambda t: t ** 3 * math.exp(t)))(0.7) == pytest.approx(
        (6 * 0.7 + 6 * 0.7 ** 2 + 0.7 ** 3) * math.exp(0.7), rel=1e-12)


def test_inner_argument_depends_on_the_outer_variable():
    """d/dx sin'(x^2) = -sin(x^2) 2x."""
    slope = fwdad.grad(lambda x: fwdad.grad(np.sin)(x * x))(0.9)
    assert slope == pytest.approx(-math.sin(0.81) * 1.8, rel=1e-12)


# ---- forces of an energy, differentiated again: against finite differences ---------------
def energy(x, w):
    return np.sum(w * x ** 3) + np.sum(np.sin(x[1:] * x[:-1]))


def force_loss(w, x):
    """A loss of the forces (gradients) of the energy, for fitting its weights."""
    force = fwdad.grad(energy)(x, w)
    return np.sum(force ** 2)


def test_grad_of_a_loss_of_gradients_matches_finite_differences():
    w = np.array([0.5, -1.0, 2.0, 1.5])
    direction = np.array([0.3, -0.2, 1.0, 0.5])
    want = fd_jvp(force_loss, (w, X), (direction, np.zeros_like(X)), h=1e-6)
    assert fwdad.grad(force_loss)(w, X) @ direction == pytest.approx(want, rel=1e-7)
    assert fwdad.jvp(force_loss, (w, X), (direction, np.zeros_like(X)))[1] == \
        pytest.approx(want, rel=1e-7)


def test_inner_gradient_with_respect_to_several_arguments():
    def both(x, w):
        gx, gw = fwdad.grad(energy, argnums=(0, 1))(x, w)
        return np.sum(gx * gw)
    w = np.array([0.5, -1.0, 2.0, 1.5])
    want = fd_jvp(both, (X, w), (V, V), h=1e-6)
    assert fwdad.jvp(both, (X, w), (V, V))[1] == pytest.approx(want, rel=1e-7)


def test_inner_grad_of_a_vector_output_is_refused():
    with pytest.raises(fwdad.FwdadError, match="needs a float output"):
        fwdad.jvp(lambda x: fwdad.grad(lambda y: y * x)(np.ones(2)), (1.0,), (1.0,))


def test_grad_of_grad_of_grad_is_refused():
    with pytest.raises(fwdad.FwdadError, match="more than two deep"):
        fwdad.grad(fwdad.grad(fwdad.grad(np.sin)))(0.3)
