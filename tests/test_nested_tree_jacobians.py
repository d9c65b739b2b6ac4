"""jacfwd, jacrev and grad of a tuple, list or dict argument inside another derivative
(the level-2 Jacobians of fwdad/nesting.py, assembled by fwdad/level2_blocks.py).

The nested result is nested as JAX nests it: the outer derivative's structure (that of
the top-level `jacfwd(f)(tree)`, output outside, then the argument tree) around the
argument tree again. Each block is checked against central differences of the top-level
inner transformation (an independent reference: no derivative of a derivative), and,
for a scalar f, against fwdad.hessian. A leaf that is not a float (an int) has None in
its column; its row is the outer derivative of the inner None: zeros, as the top-level
jacfwd gives for an output with no float (fwdad.hessian gives None there instead).
"""
from __future__ import annotations

import collections
import copy
from typing import Any, Callable, Dict, Iterator, List, Tuple

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import fwdad
from fwdad.tangents import NoTangent, random_tangent
from tests.test_instance_jacobians import at, built_tree, float_leaves, float_paths
from tests.test_tree_hessians import coupled

Path = Tuple[Any, ...]
Pair = collections.namedtuple("Pair", "w b")
STEP = 1e-6


# ---- the functions and their trees ----------------------------------------------------------
def of_the_docs(p):
    return np.sum(p["a"] ** 2 * p["b"][0]) + p["b"][1] ** 3


def of_a_tuple(t):
    return np.sum(np.sin(t[0]) * t[1]) * t[1]


def of_nested_lists(v):
    return np.sum(v[0][0] * v[1]) ** 2 + v[0][1] ** 3 * v[1][0] + np.prod(v[0][0])


def with_an_int(d):
    return np.sum(np.tanh(d["u"] * d["s"])) * d["n"] + d["s"] ** 2 * d["n"]


def with_an_empty_array(d):
    return np.sum(d["u"] ** 3) * d["s"] + np.sum(d["e"]) * d["s"] + np.sum(d["e"] ** 2)


def of_a_named_tuple(p):
    return np.sum(np.tanh(p.w @ p.b)) * np.sum(p.b)


def writes_into_its_argument(d):
    d["u"][0] = d["u"][0] * d["s"]  # (each level-2 run starts from the call's values)
    return np.sum(d["u"] ** 2) * d["s"]


SCALAR_CASES: List[Tuple[Callable, Callable[[], Any]]] = [
    (of_the_docs, lambda: {"a": np.array([1.0, 2.0]), "b": (0.5, 1.5)}),
    (of_a_tuple, lambda: (np.array([0.3, -0.5, 0.8]), 0.7)),
    (of_nested_lists, lambda: [[np.array([0.6, 1.2]), 0.7], np.array([0.3, 0.4])]),
    (with_an_int, lambda: {"u": np.array([0.3, -0.5]), "s": 0.7, "n": 3}),
    (with_an_empty_array, lambda: {"u": np.array([0.4, 0.9]), "e": np.zeros(0), "s": 1.3}),
    (of_a_named_tuple, lambda: Pair(np.array([[0.2, -0.1], [0.4, 0.3]]),
                                    np.array([0.5, -0.7]))),
    (writes_into_its_argument, lambda: {"u": np.array([0.4, -0.2]), "s": 1.1}),
]
SCALAR_IDS = [f.__name__ for f, _ in SCALAR_CASES]


def tree_out_of_an_array(x):
    return {"u": x ** 2 * x[0], "v": (np.sum(np.sin(x)), 3), "w": [x[1] * x[2]]}


def tree_out_of_a_dict(d):
    return (d["a"] * d["s"] ** 2, {"k": np.sum(d["a"] ** 3), "n": d["n"]})


TREE_OUTPUT_CASES: List[Tuple[Callable, Callable[[], Any]]] = [
    (tree_out_of_an_array, lambda: np.array([0.3, -0.4, 0.9])),
    (tree_out_of_a_dict, lambda: {"a": np.array([0.5, 1.5]), "s": 0.8, "n": 2}),
]
TREE_OUTPUT_IDS = [f.__name__ for f, _ in TREE_OUTPUT_CASES]


def grad_of_a_closure(f: Callable) -> Callable:
    """grad of a function defined inside the differentiated one: the level-2 jvps take
    it (the reverse pass on Duals takes only functions without a tangent of their own)."""
    def gradient(tree):
        def inner(t):
            return f(t)
        return fwdad.grad(inner)(tree)
    return gradient


# (name, the nested transformation of f, the top-level inner transformation of f)
NESTINGS: Dict[str, Tuple[Callable, Callable]] = {
    "jacfwd(jacfwd)": (lambda f: fwdad.jacfwd(fwdad.jacfwd(f)), fwdad.jacfwd),
    "jacfwd(jacrev)": (lambda f: fwdad.jacfwd(fwdad.jacrev(f)), fwdad.jacrev),
    "jacrev(jacfwd)": (lambda f: fwdad.jacrev(fwdad.jacfwd(f)), fwdad.jacfwd),
    "jacrev(jacrev)": (lambda f: fwdad.jacrev(fwdad.jacrev(f)), fwdad.jacrev),
    "jacfwd(grad of a closure)": (lambda f: fwdad.jacfwd(grad_of_a_closure(f)), fwdad.grad),
}


# ---- the reference: central differences of the top-level inner transformation ----------------
def leaf_paths(tree: Any, path: Path = ()) -> Iterator[Tuple[Path, Any]]:
    """(path, leaf) of every leaf of a Jacobian tree (arrays, floats, None, NoTangent)."""
    if isinstance(tree, (list, tuple)):
        for i, v in enumerate(tree):
            yield from leaf_paths(v, path + (i,))
    elif isinstance(tree, dict):
        for k, v in tree.items():
            yield from leaf_paths(v, path + (k,))
    else:
        yield path, tree


def no_float(leaf: Any) -> bool:
    return leaf is None or leaf is NoTangent or isinstance(leaf, int)


def central_columns(inner: Callable, make: Callable[[], Any]) -> Dict[Path, List[Any]]:
    """For each float leaf j of the tree, the central difference of inner(tree) along
    each entry of leaf j (in C order): a list of trees like inner(tree)."""
    columns: Dict[Path, List[Any]] = {}
    for path, leaf in float_paths(make()):
        columns[path] = []
        for k in range(int(np.size(leaf))):
            unit = np.zeros(np.shape(leaf))
            unit.flat[k] = 1.0
            plus, minus = (inner(_moved(make(), path, leaf, s * unit)) for s in (STEP, -STEP))
            columns[path].append((plus, minus))
    return columns


def replaced(tree: Any, path: Path, value: Any) -> Any:
    """A copy of tree with the leaf at `path` set to `value` (tuples rebuilt, at any
    depth; the other leaves deep copies)."""
    if not path:
        return value
    if isinstance(tree, dict):
        return {k: replaced(v, path[1:], value) if k == path[0] else copy.deepcopy(v)
                for k, v in tree.items()}
    items = [replaced(v, path[1:], value) if i == path[0] else copy.deepcopy(v)
             for i, v in enumerate(tree)]
    return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)


def _moved(tree: Any, path: Path, leaf: Any, step: np.ndarray) -> Any:
    return replaced(tree, path, leaf + step if np.ndim(leaf) else float(leaf + step))


def assert_outer_blocks(nested: Any, inner: Callable, make: Callable[[], Any]) -> None:
    """nested[P][j] (P a leaf of inner(tree), j a leaf of the tree) against central
    differences of inner in leaf j: shape P.shape + j.shape; None at a leaf j that is
    not a float, and zeros in the row of a leaf P that has none."""
    value = inner(make())
    tree = make()
    columns = central_columns(inner, make)
    ints = [path for path, leaf in leaf_paths(tree) if isinstance(leaf, int)]
    for p_path, p_leaf in leaf_paths(value):
        row = at(nested, p_path)
        if no_float(p_leaf):
            assert all(no_float(b) or not np.any(b) for _, b in leaf_paths(row)), p_path
            continue
        for j_path, j_leaf in float_paths(tree):
            got = at(row, j_path)
            shape = np.shape(p_leaf) + np.shape(j_leaf)
            assert np.shape(got) == shape, (p_path, j_path)
            diffs = [(np.asarray(at(plus, p_path)) - np.asarray(at(minus, p_path))) / (2 * STEP)
                     for plus, minus in columns[j_path]]
            want = np.stack(diffs, axis=-1).reshape(shape) if diffs else np.zeros(shape)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7,
                                       err_msg=f"block {p_path} x {j_path}")
        for k_path in ints:
            assert at(row, k_path) is None, (p_path, k_path)


def assert_matches_hessian(nested: Any, hess: Any, tree: Any) -> None:
    """The float blocks are fwdad.hessian's; an int's column is None in both, its row
    None in hessian's and zeros in the nested one's."""
    floats = list(float_paths(tree))
    for i_path, _ in floats:
        for j_path, _ in floats:
            np.testing.assert_allclose(at(at(nested, i_path), j_path),
                                       at(at(hess, i_path), j_path), rtol=1e-9, atol=1e-12,
                                       err_msg=f"block {i_path} x {j_path}")
    for k_path, leaf in leaf_paths(tree):
        if isinstance(leaf, int):
            assert all(b is None for _, b in leaf_paths(at(hess, k_path)))
            assert all(no_float(b) or not np.any(b) for _, b in leaf_paths(at(nested, k_path)))
            for i_path, _ in floats:
                assert at(at(nested, i_path), k_path) is None


# ---- the tests ------------------------------------------------------------------------------
@pytest.mark.parametrize("nesting", NESTINGS)
@pytest.mark.parametrize("f, make", SCALAR_CASES, ids=SCALAR_IDS)
def test_blocks_against_central_differences(f: Callable, make: Callable, nesting: str) -> None:
    nest, inner = NESTINGS[nesting]
    assert_outer_blocks(nest(f)(make()), inner(f), make)


@pytest.mark.parametrize("nesting", NESTINGS)
@pytest.mark.parametrize("f, make", SCALAR_CASES, ids=SCALAR_IDS)
def test_blocks_against_hessian(f: Callable, make: Callable, nesting: str) -> None:
    nest, _ = NESTINGS[nesting]
    assert_matches_hessian(nest(f)(make()), fwdad.hessian(f)(make()), make())


@pytest.mark.parametrize("nesting", [n for n in NESTINGS if "grad" not in n])
@pytest.mark.parametrize("f, make", TREE_OUTPUT_CASES, ids=TREE_OUTPUT_IDS)
def test_tree_outputs(f: Callable, make: Callable, nesting: str) -> None:
    """An output tree: each of its leaves is a Jacobian tree of the argument (before,
    an array argument with a tree output gave object arrays of dicts, or ValueError)."""
    nest, inner = NESTINGS[nesting]
    assert_outer_blocks(nest(f)(make()), inner(f), make)


class State:
    def __init__(self, pos: np.ndarray, n: int) -> None:
        self.pos, self.n = pos, n


def advanced(x):
    return State(np.sin(x) * x[0], 3)


class Node:
    def __init__(self, v: np.ndarray) -> None:
        self.v, self.me = v, self


@pytest.mark.parametrize("nesting", [n for n in NESTINGS if "grad" not in n])
def test_an_instance_output(nesting: str) -> None:
    """An instance in the output: a Tangent of its fields' blocks, as the top-level
    jacfwd gives (before: an object array of Tangents)."""
    nest, inner = NESTINGS[nesting]
    x = np.array([0.3, 0.7])
    nested = nest(advanced)(x)
    assert isinstance(nested, fwdad.Tangent)
    columns = [(inner(advanced)(x + STEP * e).pos - inner(advanced)(x - STEP * e).pos)
               / (2 * STEP) for e in np.eye(2)]
    np.testing.assert_allclose(nested.pos, np.stack(columns, axis=-1), rtol=1e-6, atol=1e-8)
    assert np.shape(nested.n) == (2, 2) and not np.any(nested.n)


def test_an_output_that_holds_itself_is_refused() -> None:
    with pytest.raises(fwdad.NonDifferentiableError, match=r"jacfwd\(.*cycle"):
        fwdad.jvp(fwdad.jacfwd(lambda x: Node(x * 2.0)), (np.ones(2),), (np.ones(2),))


def test_the_example_of_the_docs() -> None:
    """f = sum(a^2 b0) + b1^3: H_aa = 2 b0 I, H_a,b0 = 2a, H_b1,b1 = 6 b1."""
    p = {"a": np.array([1.0, 2.0]), "b": (0.5, 1.5)}
    h = fwdad.jacfwd(fwdad.jacrev(of_the_docs))(p)
    np.testing.assert_allclose(h["a"]["a"], np.eye(2), rtol=1e-12)
    np.testing.assert_allclose(h["a"]["b"][0], [2.0, 4.0], rtol=1e-12)
    np.testing.assert_allclose(h["b"][0]["a"], [2.0, 4.0], rtol=1e-12)
    assert h["b"][1]["b"] == (0.0, 9.0)
    assert isinstance(h["b"], tuple) and isinstance(h["a"]["b"], tuple)


@pytest.mark.parametrize("inner", [fwdad.jacfwd, fwdad.jacrev], ids=["jacfwd", "jacrev"])
@pytest.mark.parametrize("f, make", SCALAR_CASES + TREE_OUTPUT_CASES,
                         ids=SCALAR_IDS + TREE_OUTPUT_IDS)
def test_jvp_along_a_tree_tangent(f: Callable, make: Callable, inner: Callable) -> None:
    """jvp of inner(f) along a random tangent of the tree: central differences of
    inner(f) along it, and, for a scalar f, the Hessian blocks times the tangent."""
    t = random_tangent(make(), np.random.default_rng(7))
    value, tangent = fwdad.jvp(inner(f), (make(),), (t,))
    plus, minus = (inner(f)(_along(make(), t, s)) for s in (STEP, -STEP))
    for path, leaf in leaf_paths(inner(f)(make())):
        if no_float(leaf):
            assert no_float(at(value, path))
            continue
        want = (np.asarray(at(plus, path)) - np.asarray(at(minus, path))) / (2 * STEP)
        np.testing.assert_allclose(at(value, path), leaf, rtol=1e-12)
        np.testing.assert_allclose(at(tangent, path), want, rtol=1e-6, atol=1e-7)
    if (f, make) in SCALAR_CASES:
        hess = fwdad.hessian(f)(make())
        floats = list(float_paths(make()))
        for i_path, _ in floats:
            want = sum(np.tensordot(at(at(hess, i_path), j_path), at(t, j_path),
                                    axes=np.ndim(j_leaf)) for j_path, j_leaf in floats)
            np.testing.assert_allclose(at(tangent, i_path), want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("inner", [fwdad.jacfwd, fwdad.jacrev], ids=["jacfwd", "jacrev"])
@pytest.mark.parametrize("f, make", [SCALAR_CASES[0], SCALAR_CASES[3], TREE_OUTPUT_CASES[1]],
                         ids=[SCALAR_IDS[0], SCALAR_IDS[3], TREE_OUTPUT_IDS[1]])
def test_linearize_against_jvp_and_its_transpose(f: Callable, make: Callable,
                                                 inner: Callable) -> None:
    """linearize of inner(f) at a tree (its tangents recorded, stacked by NumPy's own
    functions): lin(t) is jvp's tangent, and <lin.T(ct), t> == <ct, lin(t)>."""
    rng = np.random.default_rng(11)
    t = random_tangent(make(), rng)
    value, lin = fwdad.linearize(inner(f), make())
    along = lin(t)
    want = fwdad.jvp(inner(f), (make(),), (t,))[1]
    pairs = [(at(along, path), leaf) for path, leaf in _float_leaf_paths(want)]
    for got, leaf in pairs:
        np.testing.assert_allclose(got, leaf, rtol=1e-12, atol=1e-14)
    ct = random_tangent(value, rng)
    (back,) = lin.T(ct)
    left = sum(np.vdot(at(back, path), at(t, path)) for path, _ in float_paths(make()))
    right = sum(np.vdot(at(ct, path), leaf) for path, leaf in _float_leaf_paths(along))
    np.testing.assert_allclose(left, right, rtol=1e-10)


def _float_leaf_paths(tree: Any) -> List[Tuple[Path, Any]]:
    return [(path, leaf) for path, leaf in leaf_paths(tree) if not no_float(leaf)]


def _along(tree: Any, t: Any, step: float) -> Any:
    for path, leaf in float_paths(tree):
        tree = _moved(tree, path, leaf, step * np.asarray(at(t, path)))
    return tree


def test_argnums_tuple_nests_the_output_outside() -> None:
    """Inner argnums=(0, 1) with a tuple output: per output leaf, a tuple over the two
    arguments, each nested like its argument (as the top-level jacfwd gives it)."""
    def g(x, d):
        return (x * d["s"], np.sum(d["a"] * x[0]) * d["n"])

    def inner(d):
        return fwdad.jacfwd(g, argnums=(0, 1))(np.array([0.4, -1.2]), d)
    make = lambda: {"a": np.array([0.5, 1.5]), "s": 0.8, "n": 2}  # noqa: E731
    nested = fwdad.jacfwd(lambda d: fwdad.jacfwd(g, argnums=(0, 1))(
        np.array([0.4, -1.2]), d))(make())
    assert isinstance(nested, tuple) and isinstance(nested[0], tuple)
    assert_outer_blocks(nested, inner, make)


def test_level2_grad_gives_what_the_reverse_pass_gives() -> None:
    """grad of a tree inside jvp, by level-2 jvps (a closure) and by the reverse pass on
    Duals: the same tree, the same leaf types (a float leaf's gradient a float, an
    int's NoTangent), the same values."""
    make = SCALAR_CASES[3][1]
    t = random_tangent(make(), np.random.default_rng(3))
    by_level2 = fwdad.jvp(grad_of_a_closure(with_an_int), (make(),), (t,))
    by_reverse = fwdad.jvp(fwdad.grad(with_an_int), (make(),), (t,))
    for got, want in zip(by_level2, by_reverse):
        assert got.keys() == want.keys() and got["n"] is NoTangent and want["n"] is NoTangent
        assert type(got["s"]) is type(want["s"])
        np.testing.assert_allclose(got["u"], want["u"], rtol=1e-12)
        np.testing.assert_allclose(got["s"], want["s"], rtol=1e-12)


def test_value_and_grad_of_a_tree_by_level2() -> None:
    def outer(d):
        def inner(t):
            return with_an_int(t)
        value, gradient = fwdad.value_and_grad(inner)(d)
        return value * gradient["s"]
    make = SCALAR_CASES[3][1]
    got = fwdad.grad(outer)(make())
    want = fwdad.grad(lambda d: with_an_int(d) * fwdad.grad(with_an_int)(d)["s"])(make())
    np.testing.assert_allclose(got["u"], want["u"], rtol=1e-12)
    np.testing.assert_allclose(got["s"], want["s"], rtol=1e-12)


def doubles_its_first(x):
    x[0] = x[0] * 2.0
    return np.sum(x ** 2) * x[1]


INNERS = {"jacfwd": fwdad.jacfwd, "jacrev": fwdad.jacrev, "grad": fwdad.grad,
          "grad of a closure": grad_of_a_closure}


@pytest.mark.parametrize("inner, in_a_dict", [
    (inner, in_a_dict) for inner in INNERS for in_a_dict in (False, True)
    if in_a_dict or "grad" not in inner])  # (grad of an array: right before, as outside)
def test_the_arguments_end_as_the_top_level_call_leaves_them(inner: str,
                                                            in_a_dict: bool) -> None:
    """f writes into its argument: inside a derivative, jacfwd and jacrev leave it as it
    was, grad as one call of f leaves it, as they do outside (level-2 jacfwd and
    jacrev wrote f's end state back: the derivative of this function was wrong)."""
    def outer(x):
        d = {"u": x * 1.0} if in_a_dict else x * 1.0
        f = (lambda d: doubles_its_first(d["u"])) if in_a_dict else doubles_its_first
        INNERS[inner](f)(d)
        return (d["u"] if in_a_dict else d) * x[1]
    x = np.array([0.7, 1.3])
    value, tangent = fwdad.jvp(outer, (x,), (np.array([1.0, 0.5]),))
    np.testing.assert_allclose(value, outer(x.copy()), rtol=1e-15)
    want = (outer(x + STEP * np.array([1.0, 0.5])) -
            outer(x - STEP * np.array([1.0, 0.5]))) / (2 * STEP)
    np.testing.assert_allclose(tangent, want, rtol=1e-6)


# ---- refusals -------------------------------------------------------------------------------
class Params:
    def __init__(self, w: np.ndarray) -> None:
        self.w = w


def of_params(p):
    return np.sum(p.w ** 3)


@pytest.mark.parametrize("inner", [fwdad.jacfwd, fwdad.jacrev, grad_of_a_closure],
                         ids=["jacfwd", "jacrev", "grad"])
@pytest.mark.parametrize("f, make, what", [
    (of_params, lambda: Params(np.ones(2)), "argument 0 is a Params"),
    (lambda d: of_params(d["p"]), lambda: {"p": Params(np.ones(2))},
     "argument 0 holds a Params"),
], ids=["instance", "in-a-dict"])
def test_an_instance_is_refused_by_name(inner: Callable, f: Callable, make: Callable,
                                        what: str) -> None:
    with pytest.raises(fwdad.FwdadError) as err:
        fwdad.jacfwd(inner(f))(make())
    message = str(err.value)
    assert what in message and "tuple, list or dict of them" in message
    assert "pass its float fields as separate arguments" in message


def test_a_complex_leaf_is_refused() -> None:
    with pytest.raises(fwdad.FwdadError,
                       match="tuple, list or dict of them, but argument 0 holds a complex"):
        fwdad.jvp(fwdad.jacfwd(lambda t: t[0] * t[1]), ((1.0, 2j),), ((1.0, 0j),))


def test_a_tree_without_floats_is_refused() -> None:
    with pytest.raises(fwdad.NonDifferentiableError, match=r"jacfwd\(.*hold no floats"):
        fwdad.jvp(lambda x: x * fwdad.jacfwd(lambda t: x * t[0])((2, "a")), (1.0,), (1.0,))


# ---- generated trees ------------------------------------------------------------------------
SPECS = st.recursive(
    st.one_of(st.tuples(st.just("array"), st.integers(0, 3)), st.tuples(st.just("float")),
              st.tuples(st.just("int"))),
    lambda inner: st.tuples(st.sampled_from(["list", "dict"]),
                            st.lists(inner, min_size=1, max_size=3)),
    max_leaves=5)


@settings(max_examples=12, deadline=None)
@given(SPECS, st.sampled_from(list(NESTINGS)))
def test_generated_trees(spec: Any, nesting: str) -> None:
    make = lambda: built_tree(spec, np.random.default_rng(1))  # noqa: E731
    assume(bool(float_leaves(make())) and isinstance(make(), (list, dict)))
    nest, inner = NESTINGS[nesting]
    nested = nest(coupled)(make())
    assert_outer_blocks(nested, inner(coupled), make)
    assert_matches_hessian(nested, fwdad.hessian(coupled)(make()), make())
