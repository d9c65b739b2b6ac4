"""batched_jvp and linearize of a function given one instance of a user class at two
places (two arguments, `f(x, p, p)`, or two fields of one), as jvp takes it
(tests/test_shared_instances.py): one object has one tangent, so a write through one
place is seen, with its derivative, through the other; two different tangents for it
are refused. Each row is checked against jvp and central differences of f along the
one object; lin.T by the dot-product test, counting the object once."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import fwdad
from fwdad.errors import TangentError
from fwdad.tangents import Tangent
from tests.test_shared_instances import (
    C,
    Params,
    X,
    as_two_arguments,
    central,
    rebinds_through_one,
    shared_model,
)
from tests.test_shared_instances_reverse import inner_once

DXS = np.array([[1.0, 0.5, -1.0], [0.0, 0.0, 0.0], [0.2, -0.3, 0.4]])
DKS = np.array([0.0, 0.5, -1.0])
DCS = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 2.0], [1.0, -1.0, 0.5]])


def plain(x: np.ndarray, k: float = 2.0, c: Any = C) -> float:
    p = Params(k, c.copy())
    return as_two_arguments(x, p, p)


def along(b: int) -> float:
    """Row b's derivative: x along DXS[b], the one object along (DKS[b], DCS[b])."""
    return central(lambda h: plain(X + h * DXS[b], 2.0 + h * DKS[b], C + h * DCS[b]))


def one_jvp(b: int) -> float:
    p, t = Params(2.0, C.copy()), Tangent(k=DKS[b], c=DCS[b])
    return fwdad.jvp(as_two_arguments, (X, p, p), (DXS[b], t, t))[1]


@pytest.mark.parametrize("chunk_size", [None, 1, 2])
def test_batched_jvp_one_tangent_for_one_object(chunk_size: Any) -> None:
    p, batch = Params(2.0, C.copy()), Tangent(k=DKS, c=DCS)
    out, rows = fwdad.batched_jvp(as_two_arguments, (X, p, p), (DXS, batch, batch),
                                  chunk_size=chunk_size)
    assert out == plain(X)
    for b in range(3):
        assert rows[b] == pytest.approx(along(b), rel=1e-6)
        assert rows[b] == pytest.approx(one_jvp(b), rel=1e-12)


def test_batched_jvp_no_tangent_for_the_object() -> None:
    p = Params(2.0, C.copy())
    _, rows = fwdad.batched_jvp(as_two_arguments, (X, p, p), (DXS, None, None))
    for b in range(3):
        want = central(lambda h: plain(X + h * DXS[b]))
        assert rows[b] == pytest.approx(want, rel=1e-6, abs=1e-9)


def test_batched_jvp_within_one_argument() -> None:
    m, batch = shared_model(), Tangent(k=DKS, c=DCS)
    _, rows = fwdad.batched_jvp(rebinds_through_one, (X, m),
                                (DXS, Tangent(first=batch, second=batch)))
    for b in range(3):
        want = central(lambda h: rebinds_through_one(
            X + h * DXS[b], shared_model(2.0 + h * DKS[b], C + h * DCS[b])))
        assert rows[b] == pytest.approx(want, rel=1e-6)


def test_batched_jvp_refuses_two_tangents_for_one_object() -> None:
    p = Params(2.0, C.copy())
    with pytest.raises(TangentError, match=r"argument 'q' .* is the same Params as "
                                           r"argument 'p'.*one object has one tangent"):
        fwdad.batched_jvp(as_two_arguments, (X, p, p),
                          (DXS, Tangent(k=DKS, c=DCS), Tangent(k=DKS, c=DCS)))


def test_linearize_one_tangent_for_one_object() -> None:
    p = Params(2.0, C.copy())
    out, lin = fwdad.linearize(as_two_arguments, X, p, p)
    assert out == plain(X)
    for b in range(3):
        t = Tangent(k=DKS[b], c=DCS[b])
        got = lin(DXS[b], t, t)
        assert got == pytest.approx(along(b), rel=1e-6)
        assert got == pytest.approx(one_jvp(b), rel=1e-12)
    assert lin(DXS[0], None, None) == pytest.approx(along(0), rel=1e-6)
    with pytest.raises(TangentError, match="one object has one tangent"):
        lin(DXS[0], Tangent(k=1.0), Tangent(k=1.0))


def test_linearize_transpose_gives_the_total_cotangent() -> None:
    p = Params(2.0, C.copy())
    _, lin = fwdad.linearize(as_two_arguments, X, p, p)
    cts = lin.T(1.5)
    assert cts[1] is cts[2]
    p = Params(2.0, C.copy())
    want = fwdad.grad(as_two_arguments, argnums=(0, 1))(X, p, p)
    np.testing.assert_allclose(cts[0], 1.5 * want[0], rtol=1e-12)
    assert cts[1].k == pytest.approx(1.5 * want[1].k, rel=1e-12)
    for b in range(3):
        t = Tangent(k=DKS[b], c=DCS[b])
        assert inner_once((DXS[b], t, t), cts) == pytest.approx(1.5 * one_jvp(b), rel=1e-10)


def test_linearize_within_one_argument() -> None:
    _, lin = fwdad.linearize(rebinds_through_one, X, shared_model())
    t = Tangent(k=DKS[2], c=DCS[2])
    want = central(lambda h: rebinds_through_one(
        X + h * DXS[2], shared_model(2.0 + h * DKS[2], C + h * DCS[2])))
    assert lin(DXS[2], Tangent(first=t, second=t)) == pytest.approx(want, rel=1e-6)
    ct_x, ct_m = lin.T(1.0)
    assert ct_m.first is ct_m.second
    total = fwdad.grad(rebinds_through_one, argnums=1)(X, shared_model())
    np.testing.assert_allclose(ct_m.first.c, total.first.c, rtol=1e-12)


def test_linearize_an_array_also_held_by_an_instance_argument() -> None:
    """x and p.c one array in two arguments: each its own tangent, as before (the
    instances' check of shared memory stays within each argument)."""
    def f(x: np.ndarray, p: Params) -> float:
        return float(np.sum(np.sin(x) * p.c))
    x, t = np.array([0.1, 0.5, 0.3]), Tangent(c=np.array([1.0, 0.0, -1.0]))
    _, lin = fwdad.linearize(f, x, Params(1.0, x))
    want = fwdad.jvp(f, (x, Params(1.0, x.copy())), (DXS[0], t))[1]
    assert lin(DXS[0], t) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("chunk_size", [None, 1])
def test_jacfwd_with_one_instance_as_two_constant_arguments(chunk_size: Any) -> None:
    """f(x, p, p) with respect to x: f runs on one copy of p, with one zero tangent (it
    ran on two copies, and the Jacobian was silently that of another function)."""
    p = Params(2.0, C.copy())
    jac = fwdad.jacfwd(as_two_arguments, chunk_size=chunk_size)(X, p, p)
    for i, unit in enumerate(np.eye(3)):
        assert jac[i] == pytest.approx(central(lambda h: plain(X + h * unit)), rel=1e-6)


def test_jacfwd_refuses_a_seed_for_an_instance_another_argument_holds() -> None:
    p = Params(2.0, C.copy())
    with pytest.raises(fwdad.NonDifferentiableError, match=r"jacfwd\(.*as_two_arguments.*"
                                                           r"one object has one tangent"):
        fwdad.jacfwd(as_two_arguments, argnums=1)(X, p, p)
