"""Tangent types and the vector-space helpers."""
from typing import NamedTuple

import numpy as np
import pytest

from fwdad.errors import NonDifferentiableError, TangentError
from fwdad.tangent_checks import check_tangent
from fwdad.tangents import (
    NoTangent,
    Tangent,
    add,
    inner,
    perturb,
    random_tangent,
    scale,
    stack,
    tangent_type,
    unstack,
    zero_tangent,
)


class Point(NamedTuple):
    x: float
    label: str


class Body:
    def __init__(self):
        self.mass = 2.0
        self.position = np.array([1.0, 2.0])
        self.name = "ball"


TYPES = [(float, float), (np.float64, np.float64), (int, type(NoTangent)),
         (bool, type(NoTangent)), (str, type(NoTangent)), (type(None), type(NoTangent)),
         (np.ndarray, np.ndarray), (tuple, tuple), (list, list), (dict, dict),
         (Body, Tangent), (type(len), type(NoTangent))]


@pytest.mark.parametrize("primal,tangent", TYPES, ids=lambda t: t.__name__)
def test_tangent_type(primal, tangent):
    assert tangent_type(primal) is tangent


def test_zero_tangents_keep_structure():
    value = {"a": [1.0, 2, "s"], "b": (np.ones(2), np.arange(3))}
    zero = zero_tangent(value)
    assert zero["a"] == [0.0, NoTangent, NoTangent]
    assert np.array_equal(zero["b"][0], np.zeros(2)) and zero["b"][1] is NoTangent
    assert zero_tangent(Point(1.5, "p")) == Point(0.0, NoTangent)
    body = zero_tangent(Body())
    assert isinstance(body, Tangent) and body.mass == 0.0 and body.name is NoTangent


@pytest.mark.parametrize("value", [len, np.sin, zero_tangent, Body().__init__, Body, np,
                                   NoTangent, np.add.reduce],
                         ids=lambda v: type(v).__name__)
def test_callables_classes_and_modules_have_no_tangent(value):
    """Functions, methods, classes and modules (found by their type, without a walk of
    what they hold) have no tangent."""
    assert zero_tangent(value) is NoTangent


def test_vector_space_helpers():
    rng = np.random.default_rng(0)
    value = [1.5, np.ones((2, 2)), {"k": 3.0}]
    a, b = random_tangent(value, rng), random_tangent(value, rng)
    want = a[0] * b[0] + np.sum(a[1] * b[1]) + a[2]["k"] * b[2]["k"]
    assert np.isclose(inner(a, b), want)
    assert np.isclose(inner(add(a, scale(b, 2.0)), a), inner(a, a) + 2 * inner(b, a))
    moved = perturb(value, a, 0.5)
    assert np.isclose(moved[0], 1.5 + 0.5 * a[0])


def test_stack_and_unstack_batches():
    rng = np.random.default_rng(0)
    value = (2.0, np.ones(3))
    batch = [random_tangent(value, rng) for _ in range(4)]
    stacked = stack(batch)
    assert stacked[0].shape == (4,) and stacked[1].shape == (4, 3)
    assert np.array_equal(unstack(stacked, 2)[1], batch[2][1])


def test_noTangent_is_a_strong_zero():
    assert NoTangent * 3.0 is NoTangent and 3.0 * NoTangent is NoTangent
    assert 2.0 + NoTangent == 2.0 and NoTangent + 2.0 == 2.0
    assert 2.0 - NoTangent == 2.0 and NoTangent - 2.0 == -2.0
    assert np.ones(2) * NoTangent is NoTangent


def test_check_tangent_converts_and_rejects():
    assert check_tangent(1.5, 1, "x") == 1.0 and type(check_tangent(1.5, 1, "x")) is float
    with pytest.raises(TangentError, match="shape"):
        check_tangent(np.ones(3), np.ones(2), "x")
    with pytest.raises(NonDifferentiableError):
        check_tangent(3, 1.0, "n")
    assert check_tangent(3, None, "n") is NoTangent
    assert check_tangent(3, 0.0, "n") is NoTangent
    given = check_tangent(Body(), Tangent(mass=1.0), "body")
    assert given.mass == 1.0 and np.array_equal(given.position, np.zeros(2))
