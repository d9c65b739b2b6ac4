"""hessian with respect to a tuple, list, dict or instance of a user class: a tree of
blocks, H[i][j] of shape leaf_i.shape + leaf_j.shape, nested as jacfwd nests the
Jacobian of the gradient (fwdad/tree_hessian.py). Each block is checked against central
differences of forward mode's gradient (jacfwd) in leaf j, by both ways hessian takes it
(forward over reverse, and forward over forward when reverse mode refuses); leaves that
are not floats give None; what jacfwd refuses, hessian refuses with the same words."""
from __future__ import annotations

import collections
import copy
import types
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Tuple

import numpy as np
import pytest
from hypothesis import assume, given, settings

import fwdad
from fwdad import tree_hessian
from fwdad.errors import NonDifferentiableError
from fwdad.tangents import random_tangent
from tests.test_instance_jacobians import (
    SPECS,
    Box,
    at,
    built_tree,
    float_leaves,
    float_paths,
)
from tests.test_instance_jacobians import replaced as replaced_in_place
from tests.util import central_jacobian

Pair = collections.namedtuple("Pair", "w b")


@dataclass
class Layer:
    w: np.ndarray
    scale: float
    name: str = "layer"
    width: int = 2


def of_a_tuple(t):
    return np.sum(t[0] ** 2 * t[1])


def of_a_dict(d):
    return np.sum(np.sin(d["u"]) * d["v"]) * d["s"] + d["n"] * d["s"] ** 2


def of_nested_lists(v):
    return np.sum(v[0][0] * v[1]) ** 2 + v[0][1] ** 3 * v[1][0] + np.prod(v[0][0])


def of_a_named_tuple(p):
    return np.sum(np.tanh(p.w @ p.b)) * np.sum(p.b)


def of_an_instance(layer):
    return np.sum(np.cos(layer.w) * layer.scale ** 2) * layer.width + layer.scale ** 3


CASES: List[Tuple[Callable, Callable[[], Any]]] = [
    (of_a_tuple, lambda: (np.array([1.0, 2.0]), 3.0)),
    (of_a_dict, lambda: {"u": np.array([0.3, -0.5, 0.8]), "v": np.array([1.1, 0.4, -0.2]),
                         "s": 0.7, "n": 3}),
    (of_nested_lists, lambda: [[np.array([0.6, 1.2]), 0.7], np.array([0.3, 0.4])]),
    (of_a_named_tuple, lambda: Pair(np.array([[0.2, -0.1], [0.4, 0.3]]),
                                    np.array([0.5, -0.7]))),
    (of_an_instance, lambda: Layer(np.array([[0.2, -0.1, 0.6], [0.4, 0.3, -0.9]]), 0.8)),
]
IDS = [f.__name__ for f, _ in CASES]


def assert_blocks(f: Callable, tree: Any, hess: Any, nones: bool = True) -> None:
    """Every block H[i][j] against central differences of jacfwd's gradient at leaf i
    along leaf j; with `nones`, every block of a leaf that is not a float is None."""
    floats = list(float_paths(tree))
    for path_i, leaf_i in floats:
        for path_j, leaf_j in floats:
            want = central_jacobian(lambda v: np.asarray(at(fwdad.jacfwd(f)(
                replaced(tree, path_j, v if np.ndim(leaf_j) else float(v))), path_i)),
                leaf_j)
            got = at(at(hess, path_i), path_j)
            assert np.shape(got) == np.shape(leaf_i) + np.shape(leaf_j)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7,
                                       err_msg=f"block {path_i} x {path_j}")
    others = [path for path in _leaf_paths(tree) if nones and path not in dict(floats)]
    for path in others:
        assert all(b is None for b in _leaves(at(hess, path)))
        for path_i, _ in floats:
            assert at(at(hess, path_i), path) is None


def replaced(tree: Any, path: Tuple, value: Any) -> Any:
    """A deep copy of tree with the leaf at `path` set to `value` (tuples rebuilt)."""
    if not path:
        return value
    if isinstance(tree, tuple):
        items = [replaced(v, path[1:], value) if i == path[0] else copy.deepcopy(v)
                 for i, v in enumerate(tree)]
        return type(tree)(*items) if hasattr(tree, "_fields") else tuple(items)
    return replaced_in_place(tree, path, value)


def _leaf_paths(tree: Any, path: Tuple = ()) -> List[Tuple]:
    if isinstance(tree, (list, tuple)):
        return [p for i, v in enumerate(tree) for p in _leaf_paths(v, path + (i,))]
    if isinstance(tree, dict):
        return [p for k, v in tree.items() for p in _leaf_paths(v, path + (k,))]
    if hasattr(tree, "__dict__") and not isinstance(tree, np.ndarray):
        return [p for k, v in vars(tree).items() for p in _leaf_paths(v, path + (k,))]
    return [path]


def _leaves(tree: Any) -> List[Any]:
    return [at(tree, path) for path in _leaf_paths(tree)]


def _refusing_reverse(monkeypatch) -> None:
    """Reverse mode refuses every f: hessian goes forward over forward."""
    def grad(f, argnums=0):
        raise fwdad.FwdadError("refused (planted)")
    monkeypatch.setattr(tree_hessian, "reverse_api", types.SimpleNamespace(grad=grad))


@pytest.mark.parametrize("f, make", CASES, ids=IDS)
def test_blocks(f: Callable, make: Callable) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no fallback warned of)
        hess = fwdad.hessian(f)(make())
    assert_blocks(f, make(), hess)


@pytest.mark.parametrize("f, make", CASES, ids=IDS)
def test_blocks_forward_over_forward(f: Callable, make: Callable, monkeypatch) -> None:
    _refusing_reverse(monkeypatch)
    assert_blocks(f, make(), fwdad.hessian(f)(make()))


def test_the_tuple_of_the_docs() -> None:
    """f = sum(a^2 s): H_aa = 2s I, H_as = H_sa = 2a, H_ss = 0."""
    a = np.array([1.0, 2.0])
    (h_aa, h_as), (h_sa, h_ss) = fwdad.hessian(of_a_tuple)((a, 3.0))
    np.testing.assert_allclose(h_aa, 6.0 * np.eye(2), rtol=1e-12)
    np.testing.assert_allclose(h_as, 2 * a, rtol=1e-12)
    np.testing.assert_allclose(h_sa, 2 * a, rtol=1e-12)
    assert h_ss == 0.0


@pytest.mark.parametrize("f, make", CASES[:4], ids=IDS[:4])
def test_containers_go_forward_over_reverse(f: Callable, make: Callable, monkeypatch) -> None:
    """One batched pass of the gradient, not a jacfwd per entry."""
    def refused(*args: Any) -> Any:
        raise AssertionError("forward over forward ran")
    monkeypatch.setattr(tree_hessian, "_forward_over_forward", refused)
    fwdad.hessian(f)(make())


@pytest.mark.parametrize("f, make", CASES[:4], ids=IDS[:4])
def test_jacfwd_of_grad(f: Callable, make: Callable) -> None:
    """jacfwd(grad(f)) of a container: the pass on Duals boxes its leaves (it refused
    anything but a float or a float array). Its rows of an int are jacfwd's zeros."""
    assert_blocks(f, make(), fwdad.jacfwd(fwdad.grad(f))(make()), nones=False)


@pytest.mark.parametrize("f, make", CASES, ids=IDS)
def test_hvp_is_the_hessian_along_a_tangent(f: Callable, make: Callable) -> None:
    tree = make()
    t = random_tangent(tree, np.random.default_rng(5))
    got = fwdad.hvp(f, (tree,), (t,))[0]
    step = 1e-6
    plus, minus = (fwdad.jacfwd(f)(_moved(make(), t, s)) for s in (step, -step))
    for path, _ in float_paths(tree):
        want = (np.asarray(at(plus, path)) - np.asarray(at(minus, path))) / (2 * step)
        np.testing.assert_allclose(at(got, path), want, rtol=1e-6, atol=1e-7)


def _moved(tree: Any, t: Any, step: float) -> Any:
    for path, leaf in float_paths(tree):
        tree = replaced(tree, path, leaf + step * at(t, path))
    return tree


# ---- refusals: as jacfwd's ------------------------------------------------------------------
class Holder:
    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = a, b


def held(h: Holder) -> float:
    return float(np.sum(h.a.w ** 2) * h.b.scale)


SHARED: Dict[str, Callable[[], Any]] = {
    "a Layer is reached twice": lambda: Holder(*[Layer(np.ones((2, 3)), 0.5)] * 2),
    "two of its float arrays share memory": lambda: _viewing(),
}


def _viewing() -> Holder:
    w = np.arange(6.0).reshape(2, 3)
    return Holder(Layer(w, 0.5), Layer(w[::-1], 2.0))


@pytest.mark.parametrize("what", SHARED)
def test_shared_instances_are_refused(what: str) -> None:
    with pytest.raises(NonDifferentiableError) as err:
        fwdad.hessian(held)(SHARED[what]())
    message = str(err.value)
    assert "hessian(" in message and "held" in message and what in message
    assert "give each field an object of its own" in message
    with pytest.raises(NonDifferentiableError, match=what):
        fwdad.jacfwd(held)(SHARED[what]())


def test_a_tree_without_floats_is_refused() -> None:
    with pytest.raises(NonDifferentiableError, match=r"hessian\(.*hold no floats"):
        fwdad.hessian(lambda t: t[0] * 2.0)((3, "a"))


def test_holomorphic_takes_no_tree() -> None:
    with pytest.raises(fwdad.FwdadError, match="holomorphic=True.*not a tuple"):
        fwdad.hessian(of_a_tuple, holomorphic=True)((np.array([1j]), 2j))


# ---- generated trees ------------------------------------------------------------------------
def coupled(tree: Any) -> float:
    """A smooth scalar of every float in the tree, with terms that join the leaves."""
    acc, total = 0.0, 0.0
    for leaf in float_leaves(tree):
        acc = acc + np.sum(np.sin(leaf))
        total = total + acc * np.sum(leaf * leaf)
    return total


@settings(max_examples=15, deadline=None)
@given(SPECS)
def test_generated_trees(spec: Any) -> None:
    tree = built_tree(spec, np.random.default_rng(1))
    assume(bool(list(float_paths(tree))) and isinstance(tree, (list, dict, Box)))
    assert_blocks(coupled, tree, fwdad.hessian(coupled)(tree))
