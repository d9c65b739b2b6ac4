"""grad, vjp, value_and_grad and jacrev of a function given one instance of a user class
at two places (two fields of an argument, or two arguments), the cases of
tests/test_shared_instances.py in reverse mode: f runs on one copy of the object, so
the value is the plain call's (a write through one place is seen through the other),
and the object's cotangent, at each of its places, is its total one, the same Tangent
object. Each is checked against central differences of f along the object and, by the
dot-product test, against jvp (whose one tangent per object it transposes), with an
inner product that counts each object once."""
from __future__ import annotations

from typing import Any, Callable, Set

import numpy as np
import pytest

import fwdad
from fwdad.tangents import NoTangent, Tangent, inner
from tests.test_shared_instances import (
    C,
    Params,
    X,
    as_two_arguments,
    central,
    rebinds_through_one,
    shared_model,
    writes_into_one,
)


def inner_once(a: Any, b: Any, seen: Set[int] | None = None) -> float:
    """<a, b> over tangents of arguments, each Tangent object of `a` counted once: the
    pairing of one object's one tangent with its one cotangent, wherever it is held."""
    seen = set() if seen is None else seen
    if a is NoTangent or b is NoTangent or a is None or b is None:
        return 0.0
    if isinstance(a, (tuple, list)):
        return sum(inner_once(x, y, seen) for x, y in zip(a, b))
    if isinstance(a, Tangent):
        if id(a) in seen:
            return 0.0
        seen.add(id(a))
        return sum(inner_once(v, getattr(b, k, NoTangent), seen) for k, v in vars(a).items())
    return inner(a, b)


def vector_out(x: np.ndarray, m: Any) -> np.ndarray:
    m.first.c = m.first.c * x[0]
    return np.sin(x) * m.second.c + m.second.k * x


SHARED = [rebinds_through_one, writes_into_one]
DK, DC = 0.7, np.array([1.0, -2.0, 0.5])
DX = np.array([1.0, 0.5, -1.0])


def along_model(f: Callable, dk: float, dc: np.ndarray, dx: Any = 0.0) -> float:
    """f's derivative when the one object moves along (dk, dc) and x along dx."""
    return central(lambda h: f(X + h * np.asarray(dx), shared_model(2.0 + h * dk, C + h * dc)))


def check_total_cotangent(f: Callable, ct_m: Any, scale: float = 1.0) -> None:
    """The model's cotangent (of the output cotangent `scale`): one Tangent at both
    fields, each entry f's derivative along that entry of the one object."""
    assert ct_m.first is ct_m.second
    assert ct_m.first.k == pytest.approx(scale * along_model(f, 1.0, 0 * C), rel=1e-7)
    for i, unit in enumerate(np.eye(3)):
        assert ct_m.first.c[i] == pytest.approx(scale * along_model(f, 0.0, unit),
                                                rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("f", SHARED)
def test_value_and_grad_runs_on_the_objects_as_aliased(f: Callable) -> None:
    value, (ct_x, ct_m) = fwdad.value_and_grad(f, argnums=(0, 1))(X, shared_model())
    assert value == f(X, shared_model())
    check_total_cotangent(f, ct_m)
    for i, unit in enumerate(np.eye(3)):
        assert ct_x[i] == pytest.approx(along_model(f, 0.0, 0 * C, unit), rel=1e-7)
    got = fwdad.grad(f, argnums=1)(X, shared_model())
    check_total_cotangent(f, got)


@pytest.mark.parametrize("f", SHARED)
def test_vjp_transposes_jvp_counting_the_object_once(f: Callable) -> None:
    out, pullback = fwdad.vjp(f, X, shared_model())
    assert out == f(X, shared_model())
    ct_x, ct_m = pullback(0.7)
    check_total_cotangent(f, ct_m, 0.7)
    along = Tangent(k=DK, c=DC)
    _, dout = fwdad.jvp(f, (X, shared_model()), (DX, Tangent(first=along, second=along)))
    assert dout == pytest.approx(along_model(f, DK, DC, DX), rel=1e-7)
    pairing = inner_once((DX, Tangent(first=along, second=along)), (ct_x, ct_m))
    assert pairing == pytest.approx(0.7 * dout, rel=1e-10)


@pytest.mark.parametrize("f", SHARED)
def test_jacrev_gives_the_total_block_at_both_places(f: Callable) -> None:
    jac_x, jac_m = fwdad.jacrev(f, argnums=(0, 1))(X, shared_model())
    check_total_cotangent(f, jac_m)
    ct_x, _ = fwdad.grad(f, argnums=(0, 1))(X, shared_model())
    np.testing.assert_allclose(jac_x, ct_x, rtol=1e-12)


def test_jacrev_of_an_array_output() -> None:
    """Each row of the Jacobian is a cotangent: the block of each field is the one
    object's, checked column by column against central differences."""
    jac = fwdad.jacrev(vector_out, argnums=1)(X, shared_model())
    assert jac.first is jac.second
    np.testing.assert_allclose(jac.first.k, along_model(vector_out, 1.0, 0 * C), rtol=1e-7)
    for i, unit in enumerate(np.eye(3)):
        np.testing.assert_allclose(jac.first.c[:, i], along_model(vector_out, 0.0, unit),
                                   rtol=1e-6, atol=1e-9)
    out, pullback = fwdad.vjp(vector_out, X, shared_model())
    np.testing.assert_array_equal(out, vector_out(X, shared_model()))
    ct = np.array([0.3, -1.0, 2.0])
    _, ct_m = pullback(ct)
    np.testing.assert_allclose(ct_m.first.c, ct @ jac.first.c, rtol=1e-12)


def test_one_instance_as_two_arguments() -> None:
    """f(x, p, p): the value is the plain call's, and both arguments' cotangents are the
    object's total one (one Tangent), also when only one of them is asked for."""
    def plain(x: np.ndarray, k: float = 2.0, c: Any = C) -> float:
        p = Params(k, c.copy())
        return as_two_arguments(x, p, p)
    p = Params(2.0, C.copy())
    value, (ct_p, ct_q) = fwdad.value_and_grad(as_two_arguments, argnums=(1, 2))(X, p, p)
    assert value == plain(X)
    assert ct_p is ct_q
    assert ct_p.k == pytest.approx(central(lambda h: plain(X, 2.0 + h)), rel=1e-7)
    for i, unit in enumerate(np.eye(3)):
        want = central(lambda h: plain(X, 2.0, C + h * unit))
        assert ct_p.c[i] == pytest.approx(want, rel=1e-6, abs=1e-9)
    p = Params(2.0, C.copy())
    only = fwdad.grad(as_two_arguments, argnums=1)(X, p, p)
    assert only.k == ct_p.k and np.array_equal(only.c, ct_p.c)
    p = Params(2.0, C.copy())
    ct_x = fwdad.grad(as_two_arguments)(X, p, p)
    for i, unit in enumerate(np.eye(3)):
        assert ct_x[i] == pytest.approx(central(lambda h: plain(X + h * unit)), rel=1e-7)
    jac = fwdad.jacrev(as_two_arguments, argnums=(1, 2))(X, Params(2.0, C.copy()),
                                                         Params(2.0, C.copy()))
    assert jac[0] is not jac[1]  # (two objects: two cotangents)
    p = Params(2.0, C.copy())
    jac = fwdad.jacrev(as_two_arguments, argnums=(1, 2))(X, p, p)
    assert jac[0] is jac[1] and jac[0].k == pytest.approx(ct_p.k, rel=1e-12)


def test_two_arguments_dot_product_with_jvp() -> None:
    p = Params(2.0, C.copy())
    _, pullback = fwdad.vjp(as_two_arguments, X, p, p)
    cts = pullback(1.5)
    along = Tangent(k=DK, c=DC)
    p = Params(2.0, C.copy())
    _, dout = fwdad.jvp(as_two_arguments, (X, p, p), (DX, along, along))
    assert inner_once((DX, along, along), cts) == pytest.approx(1.5 * dout, rel=1e-10)


def test_a_cycle_is_still_refused() -> None:
    class Node:
        def __init__(self, v: float) -> None:
            self.v, self.me = v, self
    with pytest.raises(fwdad.NonDifferentiableError, match="holds itself"):
        fwdad.grad(lambda n: n.v * 2.0)(Node(1.0))
