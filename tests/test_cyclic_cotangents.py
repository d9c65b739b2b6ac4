"""Cotangents of outputs that hold themselves (an instance whose field is itself, or two
instances that hold each other): the pullback of vjp and lin.T take a cotangent with
the same cycle (an instance of the class, or a fwdad.Tangent that holds itself), or
one that leaves the cycle's field out; an object met again inside itself is the one
already seeded, so each float is paired once. They recursed without end. Checked
against the closed form and jvp (the dot-product test); batched_jvp's joined output
tangent and a Tangent's repr and == end too."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import fwdad
from fwdad.tangents import Tangent, inner

X = np.array([1.0, 2.0])


class Node:
    def __init__(self, v: np.ndarray) -> None:
        self.v, self.me = v, self


class Pair:
    def __init__(self, a: np.ndarray, b: float) -> None:
        self.a, self.other = a, Partner(b, self)


class Partner:
    def __init__(self, b: float, back: Pair) -> None:
        self.b, self.back = b, back


def node_of(x: np.ndarray) -> Node:
    return Node(np.sin(x) * 2.0)


def pair_of(x: np.ndarray) -> Pair:
    return Pair(x * x, float(np.sum(np.cos(x))))


def cyclic_tangent(v: np.ndarray) -> Tangent:
    t = Tangent(v=v)
    t.me = t
    return t


CT = np.array([0.5, -1.5])
WANT = 2.0 * np.cos(X) * CT  # d<ct, 2 sin(x)>/dx


def _node_ct() -> Node:
    """A cotangent given as an instance of the output's class: it holds itself too."""
    return Node(CT.copy())


@pytest.mark.parametrize("make", [_node_ct, lambda: cyclic_tangent(CT),
                                  lambda: Tangent(v=CT)],
                         ids=["instance", "cyclic Tangent", "field left out"])
def test_pullback_of_an_output_that_holds_itself(make: Any) -> None:
    out, pullback = fwdad.vjp(node_of, X)
    assert out.me is out
    (got,) = pullback(make())
    np.testing.assert_allclose(got, WANT, rtol=1e-12)
    _, lin = fwdad.linearize(node_of, X)
    (got,) = lin.T(make())
    np.testing.assert_allclose(got, WANT, rtol=1e-12)


def test_dot_product_with_jvp_over_a_cycle_of_two() -> None:
    ct = Pair(np.array([0.3, -0.7]), 1.0)
    ct.other.b = 2.5
    (got,) = fwdad.vjp(pair_of, X)[1](ct)
    for t in (np.array([1.0, 0.0]), np.array([0.4, -2.0])):
        _, dout = fwdad.jvp(pair_of, (X,), (t,))
        assert dout.other.back is dout  # (one tangent per object, the cycle kept)
        pairing = inner(ct.a, dout.a) + ct.other.b * dout.other.b  # each float once
        assert inner(got, t) == pytest.approx(pairing, rel=1e-12)
    np.testing.assert_allclose(got, 2 * X * ct.a - 2.5 * np.sin(X), rtol=1e-12)


def test_batched_jvp_of_an_output_that_holds_itself() -> None:
    out, rows = fwdad.batched_jvp(node_of, (X,), (np.eye(2),), chunk_size=1)
    assert rows.me is rows
    np.testing.assert_allclose(rows.v, np.diag(2.0 * np.cos(X)), rtol=1e-12)


def test_repr_and_equality_of_a_tangent_that_holds_itself() -> None:
    t, same, other = cyclic_tangent(CT), cyclic_tangent(CT.copy()), cyclic_tangent(X)
    assert repr(t) == "Tangent(v=array([ 0.5, -1.5]), me=...)"
    assert t == same and not t == other
