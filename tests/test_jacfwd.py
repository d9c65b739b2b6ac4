"""jacfwd: whole Jacobians in one batched pass, shaped like jax.jacfwd's, against
central finite differences (float64) and closed forms."""
import pathlib
import sys

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError, NonDifferentiableError
from tests.util import central_gradient

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # bench/ is not an installed package
    sys.path.insert(0, str(ROOT))
from bench.workloads_jacobian import pde_point, pde_residual, pde_residual_hand_jacobian  # noqa: E402


def fd_jacobian(f, x, h=1e-6):
    """Central differences, one column per input entry: shape out.shape + x.shape."""
    x = np.asarray(x, dtype=float)
    columns = []
    for e in np.eye(x.size):
        step = h * e.reshape(x.shape)
        columns.append((np.asarray(f(x + step)) - np.asarray(f(x - step))) / (2 * h))
    out = np.stack(columns, axis=-1)
    return out.reshape(np.shape(f(x)) + x.shape)


def test_pde_residual_jacobian_matches_finite_differences():
    u = pde_point(100)
    jac = fwdad.jacfwd(pde_residual)(u)
    assert jac.shape == (100, 100)
    np.testing.assert_allclose(jac, fd_jacobian(pde_residual, u), rtol=1e-6, atol=1e-4)


def test_pde_residual_jacobian_matches_hand_written():
    u = pde_point(30)
    np.testing.assert_allclose(fwdad.jacfwd(pde_residual)(u),
                               pde_residual_hand_jacobian(u)[1], rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("chunk_size", [1, 7, 30, 1000])
def test_chunks_give_the_same_jacobian(chunk_size):
    u = pde_point(30)
    np.testing.assert_allclose(fwdad.jacfwd(pde_residual, chunk_size=chunk_size)(u),
                               fwdad.jacfwd(pde_residual)(u), rtol=1e-14)


def matrix_map(a):
    return np.tanh(a * a.sum())


def vector_to_scalar(x):
    return np.sum(np.sin(x) * x)


def scalar_to_vector(t):
    return np.array([t, t * t, np.exp(t)])


SHAPES = [  # (function, point, Jacobian shape)
    (matrix_map, np.arange(6.0).reshape(2, 3) / 10, (2, 3, 2, 3)),
    (vector_to_scalar, np.linspace(0.0, 1.0, 4), (4,)),
    (scalar_to_vector, 0.3, (3,)),
    (np.sin, 0.3, ()),
]


@pytest.mark.parametrize("f, x, shape", SHAPES, ids=lambda v: getattr(v, "__name__", ""))
def test_jacobian_shape_and_values(f, x, shape):
    jac = fwdad.jacfwd(f)(x)
    assert np.shape(jac) == shape
    np.testing.assert_allclose(jac, fd_jacobian(f, x), rtol=1e-6, atol=1e-8)


def two_arguments(x, y):
    return {"scaled": x * y, "pair": (x[0] * y, 3)}


def test_argnums_tuple_and_nested_outputs():
    x, y = np.array([1.0, 2.0, 3.0]), 0.5
    jac = fwdad.jacfwd(two_arguments, argnums=(0, 1))(x, y)
    dscaled_dx, dscaled_dy = jac["scaled"]
    np.testing.assert_allclose(dscaled_dx, np.eye(3) * y)
    np.testing.assert_allclose(dscaled_dy, x)
    (dpair_dx, dpair_dy), (dint_dx, dint_dy) = jac["pair"]
    np.testing.assert_allclose(dpair_dx, [y, 0.0, 0.0])
    assert dpair_dy == pytest.approx(x[0])
    np.testing.assert_allclose(dint_dx, np.zeros(3))  # an int output has no derivative


@pytest.mark.parametrize("argnums", [(0, 0), (1, 0, 1)], ids=["0,0", "1,0,1"])
@pytest.mark.parametrize("options", [{}, {"chunk_size": 1}], ids=["budget", "chunk_size"])
def test_an_argument_named_twice_has_its_block_at_each_place(argnums, options):
    """argnums naming one argument twice: each place has the whole block (the first
    place's was zeros: the seeds of the second replaced them), as jacrev's."""
    def f(x, y):
        return np.sin(x) * y ** 2

    x, y = np.array([0.3, -1.2]), 0.7
    got = fwdad.jacfwd(f, argnums=argnums, **options)(x, y)
    want = {0: fd_jacobian(lambda v: f(v, y), x), 1: fd_jacobian(lambda v: f(x, v), y)}
    assert len(got) == len(argnums)
    for block, i in zip(got, argnums):
        np.testing.assert_allclose(block, want[i], rtol=1e-7, atol=1e-9)


def test_argnums_selects_the_second_argument():
    jac = fwdad.jacfwd(two_arguments, argnums=1)(np.array([1.0, 2.0]), 0.5)
    np.testing.assert_allclose(jac["scaled"], [1.0, 2.0])


def tuple_input(pair):
    a, b = pair
    return a * b.sum()


def test_nested_input_gives_nested_jacobian():
    a, b = 2.0, np.array([1.0, 3.0])
    da, db = fwdad.jacfwd(tuple_input)((a, b))
    assert da == pytest.approx(4.0)
    np.testing.assert_allclose(db, [2.0, 2.0])


def test_bad_argnums_is_reported():
    with pytest.raises(FwdadError, match="argnums"):
        fwdad.jacfwd(two_arguments, argnums=2)(np.ones(2), 1.0)


def test_integer_argument_is_reported():
    with pytest.raises(NonDifferentiableError, match="no floats"):
        fwdad.jacfwd(lambda n: n * 2.0)(3)


class Holder:
    def __init__(self, values):
        self.values = values


def sines_of_held(h):
    return np.sin(h.values)


@pytest.mark.parametrize("jacobian", [fwdad.jacfwd, fwdad.jacrev], ids=["jacfwd", "jacrev"])
def test_an_instance_argument_gives_a_tangent_of_blocks(jacobian):
    """(tests/test_instance_jacobians.py checks nested instances)"""
    values = np.array([0.5, 2.0])
    jac = jacobian(sines_of_held)(Holder(values))
    assert isinstance(jac, fwdad.Tangent)
    np.testing.assert_allclose(jac.values, np.diag(np.cos(values)), rtol=1e-12)


@pytest.mark.parametrize("jacobian", [fwdad.jacfwd, fwdad.jacrev], ids=["jacfwd", "jacrev"])
def test_an_instance_without_floats_is_named_with_what_to_do(jacobian):
    with pytest.raises(NonDifferentiableError, match=r"a .*Holder, whose fields hold no "
                                                     r"floats: pass the instance"):
        jacobian(lambda h: np.ones(2) * len(h.values))(Holder("ab"))


def updates_its_input(x):
    x *= 2.0
    return x * x


def test_jacfwd_leaves_the_callers_input_alone():
    x = np.array([1.0, 2.0])
    for chunk_size in (None, 1):
        jac = fwdad.jacfwd(updates_its_input, chunk_size=chunk_size)(x)
        np.testing.assert_allclose(jac, np.diag(8.0 * x))
    np.testing.assert_allclose(x, [1.0, 2.0])


def updates_its_input_then_writes_into_a_shared_constant(x, y):
    x *= 2.0  # writes into x's tangent: the seed
    v = y[:]  # y's unbatched zero tangent is shared with v: jacfwd passes again
    y += x
    return y + v


def test_a_second_pass_starts_from_the_seeds_as_they_were():
    """jacfwd passes again, with batched zeros, when a write cannot widen a shared zero
    tangent; the first pass had doubled the seed it wrote into, and the Jacobian came
    out twice too large (hessian of tests/test_higher_inplace.py's
    out_into_argument_then_multiply_other did so at level 2)."""
    x, y = np.array([0.3, -0.2]), np.array([0.1, 0.5])
    jac = fwdad.jacfwd(updates_its_input_then_writes_into_a_shared_constant)(x, y.copy())
    want = fd_jacobian(
        lambda z: updates_its_input_then_writes_into_a_shared_constant(z, y.copy()), x)
    np.testing.assert_allclose(jac, want, rtol=1e-8, atol=1e-10)


# ---- later calls with arrays of the same shapes: the plan kept from the first ----------
def _two_args(x, w):
    return np.tanh(w @ x) * x[0] + w.sum(axis=1)


@pytest.mark.parametrize("options", [{}, {"chunk_size": 3}, {"argnums": (0, 1)}],
                         ids=["budget", "chunk_size", "argnums"])
def test_later_calls_give_what_a_first_call_gives(options):
    """The checks, seeds' leaves and passes kept per shapes (fwdad/jacobians.py) give
    each later call what a new jacfwd gives it: new values, a budget set in between,
    other shapes (a plan of their own), and a wrong call still refused."""
    rng = np.random.default_rng(0)
    jac = fwdad.jacfwd(_two_args, **options)
    for shapes in ((4, (3, 4)), (4, (3, 4)), (5, (2, 5)), (4, (3, 4))):
        x, w = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
        want = fwdad.jacfwd(_two_args, **options)(x.copy(), w.copy())
        for budget in (None, 2**12):
            fwdad.set_memory_budget(budget)
            try:
                got = jac(x, w)
            finally:
                fwdad.set_memory_budget(None)
            for g, v in zip(got if isinstance(got, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                np.testing.assert_allclose(g, v, rtol=1e-13, atol=1e-15)
    with pytest.raises(FwdadError):
        jac(np.ones(4), np.ones((3, 4)), np.ones(2))


def writes_through_the_first(t):
    t[0][0] = t[0][0] * 3.0
    return np.sum(t[1] ** 2)


def test_one_array_at_two_places_of_an_argument():
    """Each place its own tangents, on a copy (as jacrev and linearize take it): jacfwd
    gave [6, 4] for the second place after the write through the first."""
    b = np.array([1.0, 2.0])
    forward = fwdad.jacfwd(writes_through_the_first)((b, b))
    backward = fwdad.jacrev(writes_through_the_first)((b.copy(), b.copy()))
    separate = (b.copy(), b.copy())
    for got, want, place in zip(forward, backward, range(2)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
        np.testing.assert_allclose(got, central_gradient(
            lambda v: writes_through_the_first(tuple(v if i == place else s.copy()
                                                     for i, s in enumerate(separate))),
            separate[place]), rtol=1e-6, atol=1e-9)
