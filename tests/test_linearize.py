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
