"""linearize: lin(t) equals jvp without re-running the primal, composes with batches,
and lin.T passes the dot-product test against lin."""
import copy
import pathlib
import sys

import numpy as np
import pytest

import fwdad
from fwdad.tangents import inner, random_tangent, stack, unstack
from tests.corpus import CORPUS
from tests.test_batching import IN_PLACE
from tests.util import assert_close

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # bench/ is not an installed package
    sys.path.insert(0, str(ROOT))
from bench.workloads_jacobian import pde_point, pde_residual  # noqa: E402


def _cases():
    for example in CORPUS + IN_PLACE:
        yield pytest.param(example, id=str(example))


@pytest.mark.parametrize("example", list(_cases()))
def test_lin_equals_jvp(example):
    rng = np.random.default_rng(3)
    out, lin = fwdad.linearize(example.fn, *copy.deepcopy(example.args))
    assert_close(out, example.fn(*copy.deepcopy(example.args)), rtol=1e-12)
    for _ in range(2):  # the same lin, reused
        tangents = [random_tangent(a, rng) for a in example.args]
        _, want = fwdad.jvp(example.fn, copy.deepcopy(example.args), tangents)
        assert_close(lin(*tangents), want, rtol=1e-12, atol=1e-14)


CALLS = []


def counted(x):
    CALLS.append(1)
    return np.sin(x) * x.sum()


def test_lin_does_not_run_the_primal():
    x = np.linspace(0.0, 1.0, 4)
    _, lin = fwdad.linearize(counted, x)
    before = len(CALLS)
    lin(np.ones(4))
    lin(np.arange(4.0))
    assert len(CALLS) == before


def test_lin_keeps_the_point_when_the_input_changes_afterwards():
    x = np.linspace(0.0, 1.0, 4)
    _, lin = fwdad.linearize(counted, x)
    want = lin(np.ones(4))
    x *= 10.0
    assert_close(lin(np.ones(4)), want, rtol=1e-15)


def test_lin_of_a_batch_is_the_batch_of_lins():
    u = pde_point(12)
    _, lin = fwdad.linearize(pde_residual, u)
    batch = np.random.default_rng(0).standard_normal((5, 12))
    got = lin(batch)
    for b in range(5):
        assert_close(got[b], lin(batch[b]), rtol=1e-13)
    assert_close(got, (fwdad.jacfwd(pde_residual)(u) @ batch.T).T, rtol=1e-10)


def two_outputs(x, y):
    return {"v": np.tanh(x) * y, "s": (np.sum(x ** 2) * y, 2)}


DOT_PRODUCT = [  # (function, primals)
    (pde_residual, (pde_point(20),)),
    (two_outputs, (np.array([0.1, -0.4, 0.9]), 1.3)),
    (IN_PLACE[2].fn, IN_PLACE[2].args),
]


@pytest.mark.parametrize("f, primals", DOT_PRODUCT, ids=lambda v: getattr(v, "__name__", ""))
def test_transpose_passes_the_dot_product_test(f, primals):
    rng = np.random.default_rng(5)
    out, lin = fwdad.linearize(f, *copy.deepcopy(primals))
    for _ in range(3):
        tangents = [random_tangent(p, rng) for p in primals]
        cotangent = random_tangent(out, rng)
        assert inner(cotangent, lin(*tangents)) == pytest.approx(
            inner(lin.T(cotangent), tuple(tangents)), rel=1e-10)


def test_transpose_of_a_batch_of_cotangents():
    u = pde_point(10)
    _, lin = fwdad.linearize(pde_residual, u)
    cotangents = np.random.default_rng(1).standard_normal((3, 10))
    (got,) = lin.T(cotangents)
    for b in range(3):
        assert_close(got[b], lin.T(cotangents[b])[0], rtol=1e-13)
    assert lin.T.T is lin


def test_unrecordable_rule_is_reported(restore_rules):
    def halve(x):
        return x / 2.0

    @fwdad.frule(halve)
    def _halve(x: fwdad.Dual) -> fwdad.Dual:  # reads its tangent's value: not linear
        return fwdad.Dual(halve(x.primal), float(x.tangent) / 2.0)

    def f(x):
        return halve(x)
    with pytest.raises(fwdad.FwdadError, match="cannot be recorded"):
        fwdad.linearize(f, 2.0)


def test_wrong_number_of_tangents_is_reported():
    _, lin = fwdad.linearize(counted, np.ones(2))
    with pytest.raises(fwdad.FwdadError, match="takes 1 tangents"):
        lin(np.ones(2), np.ones(2))


def test_unstack_helper_roundtrip():  # the batch helpers lin relies on
    t = stack([np.ones(2), np.zeros(2)])
    assert_close(unstack(t, 1), np.zeros(2))


# ---- programs: lin(t) is jvp and lin.T passes the dot-product test, or a clear refusal --
def _square_plus_one(x):
    return x * x + 1.0


def _write_through_view(z):
    b = z.reshape(2, 2)
    b[0, 0] = 5.0 * b[1, 1]
    return b.T * z[1]


def _add_into_constants(z):
    """out= writes a recorded tangent into the plain zero tangent of an array made from
    constants: lin(t) lost that write (the dz0 * x term) and was silently wrong; the
    tangent is now widened into a recorded one, as for x[i] = v."""
    z0 = np.array([0.25, 0.5, 1.0, 2.0])
    np.add(0.5, z[0] * np.ones(4), out=z0)
    return z0 * z[0]


RECORDED = [  # (what, f) on a vector of 4 values
    ("z.reshape(2, 2)", lambda z: z.reshape(2, 2) * 2.0),
    ("z.reshape((2, 2))", lambda z: z.reshape((2, 2))),
    ("reshape(-1, 2), order F", lambda z: z.reshape(-1, 2).reshape(2, 2, order="F")),
    ("np.reshape", lambda z: np.reshape(z, (2, 2))),
    ("ravel", lambda z: z.reshape(2, 2).ravel()),
    ("flatten", lambda z: z.reshape(2, 2).flatten()),
    ("flatten F", lambda z: z.reshape(2, 2).flatten("F")),
    (".T", lambda z: z.reshape(2, 2).T @ z[:2]),
    (".mT", lambda z: z.reshape(2, 2).mT),
    ("transpose", lambda z: z.reshape(2, 2).transpose()),
    ("transpose(2, 0, 1)", lambda z: z.reshape(1, 2, 2).transpose(2, 0, 1)),
    ("squeeze", lambda z: z.reshape(1, 4).squeeze()),
    ("squeeze(axis=2)", lambda z: z.reshape(1, 4, 1).squeeze(axis=2)),
    ("swapaxes", lambda z: z.reshape(2, 2).swapaxes(0, 1)),
    ("diagonal", lambda z: z.reshape(2, 2).diagonal()),
    ("np.diag of a view", lambda z: np.diag(z.reshape(2, 2))),
    ("conj", lambda z: z.conj()),
    ("take", lambda z: z.take([0, 1])),
    ("a write through a reshaped view", _write_through_view),
    ("item", lambda z: z.item(0) * z[1]),
    ("einsum, inv", lambda z: np.einsum("ij,j->i", np.linalg.inv(
        z.reshape(2, 2) + 3 * np.eye(2)), z[:2])),
    ("a mask and a derived call", lambda z: _square_plus_one(z[z > 1.0])),
    ("out= into an array of constants", _add_into_constants),
    ("z.tolist()", lambda z: sum(z.tolist())),
    ("nested tolist", lambda z: sum(z.reshape(2, 2).tolist()[1]) * z),
    ("np.linalg.norm", lambda z: np.linalg.norm(z)),
    ("norm of a zero vector", lambda z: np.linalg.norm(z - z) + z),
    ("z.max()", lambda z: z.max()),
    ("z.copy()", lambda z: z.copy() * z),
    ("np.copy of a transpose", lambda z: np.copy(z.reshape(2, 2).T).reshape(4) * z),
    ("np.array of an array", lambda z: np.array(z) * 2.0),
    ("a function of a NumPy scalar", lambda z: np.exp(np.sum(z)) * np.tanh(z.sum())),
    ("np.outer", lambda z: np.outer(z, z[:2])),
    ("np.cumprod", lambda z: np.cumprod(z)),
]
Z4 = np.array([0.5, 1.5, 2.5, 3.5])


@pytest.mark.parametrize("what, f", RECORDED, ids=[r[0] for r in RECORDED])
def test_recorded_program(what, f):
    rng = np.random.default_rng(7)
    out, lin = fwdad.linearize(f, Z4.copy())
    for _ in range(2):
        t = rng.standard_normal(4)
        _, want = fwdad.jvp(f, (Z4.copy(),), (t,))
        assert_close(lin(t), want, rtol=1e-12, atol=1e-14)
        cotangent = random_tangent(out, rng)
        assert inner(cotangent, lin(t)) == pytest.approx(
            inner(lin.T(cotangent), (t,)), rel=1e-10)


def test_refused_program_names_the_rule_and_line(restore_rules):
    def clipped(x):
        return np.minimum(x, 3.0)

    @fwdad.frule(clipped)
    def _clipped(x: fwdad.Dual) -> fwdad.Dual:  # turns the tangent into a plain array
        return fwdad.Dual(clipped(x.primal), np.asarray(x.tangent) * (x.primal < 3.0))

    def f(z):
        return clipped(z) * 2.0
    with pytest.raises(fwdad.FwdadError) as info:
        fwdad.linearize(f, Z4.copy())
    message = str(info.value)
    assert "in the rule " in message and "_clipped" in message, message
    assert f"{__file__}:" in message and "fwdad.jvp and fwdad.jacfwd work" in message, message
    fwdad.jvp(f, (Z4.copy(),), (np.ones(4),))  # which it says


def test_a_rule_that_fails_on_a_recorded_tangent_is_named(restore_rules):
    def cumulative(x):
        return np.cumsum(x)

    @fwdad.frule(cumulative)
    def _cumulative(x: fwdad.Dual) -> fwdad.Dual:  # an ndarray method called unbound
        return fwdad.Dual(cumulative(x.primal), np.ndarray.cumsum(x.tangent))

    with pytest.raises(fwdad.FwdadError, match="TypeError.*in the rule .*_cumulative "):
        fwdad.linearize(lambda z: cumulative(z) * 2.0, Z4.copy())


def test_the_functions_own_error_is_raised_as_jvp_raises_it():
    with pytest.raises(ValueError, match="reshape"):
        fwdad.linearize(lambda z: z.reshape(3, 3), Z4.copy())


def _add_into_constants_of_a_float(x):
    z0 = np.array([0.25, 0.5, 1.0])
    np.add(0.5, x * np.ones(3), out=z0)
    return z0 * x


def test_out_into_constants_is_right_or_refused():
    """The float-argument form of _add_into_constants (found by the program fuzzer):
    lin(t) gave 1.2 where jvp gives 1.9; it must match jvp or raise a clear error."""
    _, want = fwdad.jvp(_add_into_constants_of_a_float, (0.7,), (1.0,))
    np.testing.assert_allclose(want, 0.5 + 2 * 0.7)  # d/dx (0.5 + x) x
    try:
        _, lin = fwdad.linearize(_add_into_constants_of_a_float, 0.7)
    except fwdad.FwdadError:
        return
    np.testing.assert_allclose(lin(1.0), want, rtol=1e-12)


def write_into_ravel_of_product_of_transposes(x):
    v = x.T * x.T          # F-ordered: ravel copies it
    flat = v.ravel()
    flat[0] = 0.5          # so this write does not reach v
    return v


def test_lin_copies_where_the_primal_copied():
    """Fuzz seed 99105876: the replayed tangent was laid out so that ravel gave a view
    of it, and the write through the copy reached lin(t)."""
    x, t = np.array([[0.3, -1.2, 0.5], [1.1, 0.7, -0.4]]), np.ones((2, 3))
    _, lin = fwdad.linearize(write_into_ravel_of_product_of_transposes, x)
    want = fwdad.jvp(write_into_ravel_of_product_of_transposes, (x,), (t,))[1]
    np.testing.assert_allclose(lin(t), want, rtol=1e-12)
