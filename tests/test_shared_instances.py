"""jvp of a function given one instance of a user class at two places (two fields of an
argument, or two arguments): one object has one tangent, so a write through one place
is seen, with its derivative, through the other, as in the plain call. Each derivative
is checked against central differences of f along the same object; two different
tangents for the object are refused, naming both places."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import fwdad
from fwdad.errors import TangentError
from tests.util import central_difference


class Params:
    def __init__(self, k: float, c: np.ndarray) -> None:
        self.k, self.c = k, c


class Model:
    def __init__(self, first: Params, second: Params) -> None:
        self.first, self.second = first, second


def rebinds_through_one(x: np.ndarray, m: Model) -> float:
    m.first.c = m.first.c * x[0]  # (a new array in the field, seen through m.second)
    return float(np.sum(np.sin(x) * m.second.c) + m.second.k * x[1])


def writes_into_one(x: np.ndarray, m: Model) -> float:
    m.first.c[0] = m.first.c[0] * x[0]
    return float(np.sum(np.sin(x) * m.second.c) + m.second.k * x[1])


def as_two_arguments(x: np.ndarray, p: Params, q: Params) -> float:
    p.c = p.c * x[0]
    p.k = p.k * x[2]
    return float(np.sum(np.sin(x) * q.c) + q.k)


X = np.array([0.1, 0.5, 0.3])
C = np.array([1.0, -1.0, 0.5])


def shared_model(k: float = 2.0, c: np.ndarray = C) -> Model:
    p = Params(k, c.copy())
    return Model(p, p)


def central(f: Callable[[float], float]) -> float:
    """f's derivative at 0, by central differences."""
    return central_difference(f, 0.0, 1.0)


@pytest.mark.parametrize("f", [rebinds_through_one, writes_into_one])
def test_one_tangent_object_at_both_places(f: Callable) -> None:
    """The object moves along (dk, dc); given as one Tangent at both fields."""
    dk, dc = 0.7, np.array([1.0, -2.0, 0.5])
    along = fwdad.Tangent(k=dk, c=dc)
    tangent = fwdad.Tangent(first=along, second=along)
    out, got = fwdad.jvp(f, (X, shared_model()), (np.zeros(3), tangent))
    assert out == pytest.approx(f(X, shared_model()))
    want = central(lambda h: f(X, shared_model(2.0 + h * dk, C + h * dc)))
    assert got == pytest.approx(want, rel=1e-7)


@pytest.mark.parametrize("f", [rebinds_through_one, writes_into_one])
def test_no_tangent_for_the_object_and_one_for_x(f: Callable) -> None:
    dx = np.array([1.0, 0.5, -1.0])
    _, got = fwdad.jvp(f, (X, shared_model()), (dx, None))
    want = central(lambda h: f(X + h * dx, shared_model()))
    assert got == pytest.approx(want, rel=1e-7)


def test_two_tangents_for_one_object_are_refused() -> None:
    tangent = fwdad.Tangent(first=fwdad.Tangent(k=1.0), second=fwdad.Tangent(k=0.0))
    with pytest.raises(TangentError, match=r"'m'\.second of .*rebinds_through_one is the "
                                           r"same Params as argument 'm'\.first.*one "
                                           r"object has one tangent"):
        fwdad.jvp(rebinds_through_one, (X, shared_model()), (np.zeros(3), tangent))


def test_a_tangent_at_one_place_and_none_at_the_other_is_refused() -> None:
    tangent = fwdad.Tangent(first=fwdad.Tangent(k=1.0))
    with pytest.raises(TangentError, match="with no tangent here and another tangent"):
        fwdad.jvp(rebinds_through_one, (X, shared_model()), (np.zeros(3), tangent))


def test_one_instance_as_two_arguments() -> None:
    """A write through one argument is seen through the other (its tangent too)."""
    def fresh() -> Params:
        return Params(2.0, C.copy())

    def plain(x: np.ndarray, k: float = 2.0, c: Any = C) -> float:
        p = Params(k, c.copy())
        return as_two_arguments(x, p, p)
    dx = np.array([1.0, 0.5, -1.0])
    p = fresh()
    _, got = fwdad.jvp(as_two_arguments, (X, p, p), (dx, None, None))
    assert got == pytest.approx(central(lambda h: plain(X + h * dx)), rel=1e-7)
    p, along = fresh(), fwdad.Tangent(k=0.5, c=np.array([0.0, 1.0, 2.0]))
    _, got = fwdad.jvp(as_two_arguments, (X, p, p), (np.zeros(3), along, along))
    want = central(lambda h: plain(X, 2.0 + 0.5 * h, C + h * np.array([0.0, 1.0, 2.0])))
    assert got == pytest.approx(want, rel=1e-7)
    p = fresh()
    with pytest.raises(TangentError, match=r"argument 'q' .* is the same Params as "
                                           r"argument 'p'"):
        fwdad.jvp(as_two_arguments, (X, p, p), (np.zeros(3), along, None))


# ---- one instance at two places of the output ----------------------------------------------
def returned_twice(x: np.ndarray) -> Any:
    p = Params(float(np.sum(x)), np.sin(x))
    return p, [p]


def test_vjp_adds_the_cotangents_of_one_output_instance() -> None:
    """The output holds one object at two places, as f returned it; a cotangent at
    each place pulls back their sum (the derivative of the sum of the pairings)."""
    out, pullback = fwdad.vjp(returned_twice, X)
    assert out[0] is out[1][0]
    first = fwdad.Tangent(k=0.5, c=np.array([1.0, 0.0, 2.0]))
    second = fwdad.Tangent(k=-1.0, c=np.array([0.0, 3.0, 1.0]))
    (got,) = pullback((first, [second]))
    want = (first.k + second.k) * np.ones(3) + np.cos(X) * (first.c + second.c)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    jac = fwdad.jacrev(returned_twice)(X)
    np.testing.assert_allclose(jac[0].c, np.diag(np.cos(X)), rtol=1e-12)
    np.testing.assert_allclose(jac[1][0].k, np.ones(3), rtol=1e-12)
