"""jacfwd, jacrev and linearize with respect to instances of user classes, as grad and
vjp take them: the derivative is a `fwdad.Tangent` of the fields, each block checked
against central differences of f in that field; linearize's map and its transpose
against jvp and the dot-product test. An instance reached twice (shared, or in a cycle)
is refused by jacfwd, naming the function (jacrev and linearize take one shared, not
in a cycle, as grad and jvp do: tests/test_shared_instances_reverse.py)."""
from __future__ import annotations

import collections
import copy
from dataclasses import dataclass
from typing import Any, Callable, Iterator, List, Tuple

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import fwdad
from fwdad.errors import NonDifferentiableError
from fwdad.tangents import inner, random_tangent
from tests.util import central_jacobian


@dataclass
class Spring:
    k: float
    rest: np.ndarray
    label: str = "spring"
    count: int = 2


@dataclass(frozen=True)
class Frozen:
    a: np.ndarray
    b: float


class Body:
    """A plain class holding instances, a list of them and a dict of arrays."""

    def __init__(self) -> None:
        self.mass = 1.5
        self.springs = [Spring(2.0, np.array([0.3, -0.2, 0.1])),
                        Spring(0.5, np.array([1.0, 0.4, -0.6]))]
        self.options = {"damping": np.array([[0.1, 0.2, 0.3], [0.0, -0.1, 0.2]])}
        self.frozen = Frozen(np.array([0.7, 0.9, 1.1]), 0.25)


Pair = collections.namedtuple("Pair", "scale shift")


def spring_force(x: np.ndarray, s: Spring) -> np.ndarray:
    return s.k * np.sin(x - s.rest) * s.count


def body_energy(x: np.ndarray, body: Body) -> np.ndarray:
    out = body.mass * x ** 2
    for s in body.springs:
        out = out + s.k * (x - s.rest) ** 2
    out = out + body.options["damping"] @ np.cos(x) @ body.options["damping"] * 0.1
    return out * body.frozen.a + body.frozen.b * np.tanh(x)


def scalar_energy(x: np.ndarray, body: Body) -> float:
    return float(np.sum(body_energy(x, body)))


def pair_map(x: np.ndarray, p: Pair) -> np.ndarray:
    return np.exp(x * p.scale) + p.shift


X = np.array([0.2, -0.4, 0.9])
CASES = [(spring_force, Spring(2.0, np.array([0.3, -0.2, 0.1]))),
         (body_energy, Body()),
         (scalar_energy, Body())]


# ---- walking an instance's float fields ----------------------------------------------------
Path = Tuple[Any, ...]


def float_paths(value: Any, path: Path = ()) -> Iterator[Tuple[Path, Any]]:
    """(path, leaf) of each float field: attribute names, list indices, dict keys."""
    if isinstance(value, (float, np.floating)) or (
            isinstance(value, np.ndarray) and value.dtype.kind == "f"):
        yield path, value
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from float_paths(item, path + (i,))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from float_paths(item, path + (key,))
    elif hasattr(value, "__dict__"):
        for key, item in vars(value).items():
            yield from float_paths(item, path + (key,))


def at(tree: Any, path: Path) -> Any:
    for key in path:
        tree = tree[key] if isinstance(tree, (list, tuple, dict)) else getattr(tree, key)
    return tree


def replaced(obj: Any, path: Path, value: Any) -> Any:
    """A deep copy of obj with the leaf at `path` set to `value`."""
    out = copy.deepcopy(obj)
    owner = at(out, path[:-1])
    if isinstance(owner, (list, dict)):
        owner[path[-1]] = value
    else:
        object.__setattr__(owner, path[-1], value)  # (a frozen dataclass too)
    return out


def reference_block(f: Callable, obj: Any, path: Path) -> np.ndarray:
    like = at(obj, path)
    return central_jacobian(
        lambda v: f(X, replaced(obj, path, v if np.ndim(like) else float(v))), like)


# ---- the derivatives -----------------------------------------------------------------------
@pytest.mark.parametrize("make", [fwdad.jacfwd, fwdad.jacrev], ids=["jacfwd", "jacrev"])
@pytest.mark.parametrize("f, obj", CASES, ids=[f.__name__ for f, _ in CASES])
def test_jacobian_blocks_match_central_differences(make: Callable, f: Callable,
                                                   obj: Any) -> None:
    jac = make(f, argnums=1)(X, obj)
    assert isinstance(jac, fwdad.Tangent)
    paths = list(float_paths(obj))
    assert len(paths) >= 2
    for path, _ in paths:
        np.testing.assert_allclose(at(jac, path), reference_block(f, obj, path),
                                   rtol=1e-6, atol=1e-8, err_msg=str(path))


@pytest.mark.parametrize("make", [fwdad.jacfwd, fwdad.jacrev], ids=["jacfwd", "jacrev"])
def test_fields_without_floats_have_no_block(make: Callable) -> None:
    jac = make(spring_force, argnums=1)(X, Spring(2.0, np.array([0.3, -0.2, 0.1])))
    assert jac.label is None and jac.count is None


@pytest.mark.parametrize("make", [fwdad.jacfwd, fwdad.jacrev], ids=["jacfwd", "jacrev"])
def test_with_other_arguments(make: Callable) -> None:
    """argnums=(0, 1): the array's block and the instance's Tangent, as the grad of a
    scalar output gives them."""
    body = Body()
    jac_x, jac_body = make(scalar_energy, argnums=(0, 1))(X, body)
    grad_x, grad_body = fwdad.grad(scalar_energy, argnums=(0, 1))(X, body)
    np.testing.assert_allclose(jac_x, grad_x, rtol=1e-12)
    for path, _ in float_paths(body):
        np.testing.assert_allclose(at(jac_body, path), at(grad_body, path), rtol=1e-12,
                                   atol=1e-14)


# ---- linearize ---------------------------------------------------------------------------
@pytest.mark.parametrize("transpose", ["transpose", "jacobian"])
@pytest.mark.parametrize("f, obj", CASES[:2], ids=[f.__name__ for f, _ in CASES[:2]])
def test_linearize_against_jvp_and_its_transpose(f: Callable, obj: Any,
                                                 transpose: str) -> None:
    rng = np.random.default_rng(0)
    out, lin = fwdad.linearize(f, X, obj)
    np.testing.assert_allclose(out, f(X, obj))
    tx, tobj = rng.standard_normal(3), random_tangent(obj, rng)
    np.testing.assert_allclose(lin(tx, tobj), fwdad.jvp(f, (X, obj), (tx, tobj))[1],
                               rtol=1e-12)
    along_fields = lin(np.zeros(3), tobj)  # against central differences along tobj
    step = 1e-6
    plus, minus = obj, obj
    for path, value in float_paths(obj):
        plus = replaced(plus, path, value + step * at(tobj, path))
        minus = replaced(minus, path, value - step * at(tobj, path))
    np.testing.assert_allclose(along_fields, (f(X, plus) - f(X, minus)) / (2 * step),
                               rtol=1e-6, atol=1e-8)
    lin.T.method = transpose  # ("jacobian": the Jacobian's transpose, built by jacfwd)
    ct = rng.standard_normal(np.shape(out))
    ct_x, ct_obj = lin.T(ct)
    assert isinstance(ct_obj, fwdad.Tangent)
    left = inner(ct_x, tx) + inner(ct_obj, tobj)
    assert np.isclose(left, float(np.sum(ct * lin(tx, tobj))), rtol=1e-10)


def test_linearize_batched_tangents_of_an_instance() -> None:
    spring = Spring(2.0, np.array([0.3, -0.2, 0.1]))
    _, lin = fwdad.linearize(spring_force, X, spring)
    batch = fwdad.Tangent(k=np.array([1.0, 0.0, 2.0]), rest=np.eye(3))
    got = lin(np.zeros((3, 3)), batch)
    for b in range(3):
        one = fwdad.Tangent(k=float(batch.k[b]), rest=batch.rest[b])
        np.testing.assert_allclose(got[b], lin(np.zeros(3), one), rtol=1e-12)


def test_linearize_transpose_of_a_named_tuple() -> None:
    """lin.T of a NamedTuple argument (it raised a bare TypeError rebuilding it)."""
    pair = Pair(0.5, np.array([1.0, 2.0, 3.0]))
    _, lin = fwdad.linearize(pair_map, X, pair)
    ct = np.array([0.3, -1.0, 2.0])
    ct_x, ct_pair = lin.T(ct)
    assert isinstance(ct_pair, Pair)
    np.testing.assert_allclose(ct_pair.scale, ct @ (X * np.exp(X * 0.5)), rtol=1e-12)
    np.testing.assert_allclose(ct_pair.shift, ct, rtol=1e-12)
    np.testing.assert_allclose(ct_x, ct * 0.5 * np.exp(X * 0.5), rtol=1e-12)


# ---- instances reached twice ----------------------------------------------------------------
class Holder:
    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = a, b


class Cycle:
    def __init__(self) -> None:
        self.k = 2.0
        self.me = self


def shared_use(x: np.ndarray, h: Holder) -> np.ndarray:
    return np.sin(x) * h.a.rest + h.b.k * x


def cycle_use(x: np.ndarray, c: Cycle) -> float:
    return float(np.sum(np.sin(x) * c.me.k))


SHARED: List[Tuple[str, Callable, Callable[[], Any]]] = [
    ("a Spring is reached twice", shared_use,
     lambda: Holder(*[Spring(2.0, np.array([0.3, -0.2, 0.1]))] * 2)),
    ("two of its float arrays share memory", shared_use,
     lambda: Holder(Spring(2.0, np.arange(3.0)), Spring(1.0, None))),
    ("a Cycle is reached twice", cycle_use, Cycle),
]


REFUSED = [(api, *case) for api in ("jacfwd", "jacrev", "linearize")
           for case in SHARED if api == "jacfwd" or not case[0].startswith("a Spring")]
# (jacrev and linearize take a shared instance, one tangent or cotangent for the one
# object: tests/test_shared_instances_reverse.py, tests/test_shared_instances_batched.py)


@pytest.mark.parametrize("api, what, f, make", REFUSED,
                         ids=lambda v: v if isinstance(v, str) else None)
def test_an_instance_reached_twice_is_refused(api: str, what: str, f: Callable,
                                              make: Callable) -> None:
    obj = make()
    if what.startswith("two"):  # one array in two instances' fields
        obj.b.rest = obj.a.rest[::-1]
    with pytest.raises(NonDifferentiableError) as err:
        if api == "linearize":
            fwdad.linearize(f, X, obj)
        else:
            getattr(fwdad, api)(f, argnums=1)(X, obj)
    message = str(err.value)
    assert f"{api}(" in message and f.__name__ in message and what in message
    assert "give each field an object of its own" in message


def test_grad_refuses_a_cycle_by_name() -> None:
    """Reverse mode recursed without end boxing an instance that holds itself."""
    with pytest.raises(NonDifferentiableError, match=r"grad\(.*cycle_use.*a cycle"):
        fwdad.grad(cycle_use, argnums=1)(X, Cycle())


# ---- instances in the output ------------------------------------------------------------
@dataclass
class State:
    position: np.ndarray
    energy: float
    steps: int


def advanced(x: np.ndarray) -> State:
    return State(np.sin(x) * x[0], float(np.sum(x ** 2)), 3)


@pytest.mark.parametrize("make", [fwdad.jacfwd, fwdad.jacrev], ids=["jacfwd", "jacrev"])
def test_jacobian_of_an_instance_output(make: Callable) -> None:
    """One block per field (jacfwd returned an object array of per-column Tangents;
    jacrev refused it)."""
    jac = make(advanced)(X)
    assert isinstance(jac, fwdad.Tangent)
    np.testing.assert_allclose(jac.position, central_jacobian(lambda v: advanced(v).position,
                                                              X), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(jac.energy, central_jacobian(lambda v: advanced(v).energy, X),
                               rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("transpose", ["transpose", "jacobian"])
def test_linearize_of_an_instance_output(transpose: str) -> None:
    """lin returned the recorded nodes, and lin.T zeros, for an instance output."""
    rng = np.random.default_rng(1)
    out, lin = fwdad.linearize(advanced, X)
    t = rng.standard_normal(3)
    got = lin(t)
    want = fwdad.jvp(advanced, (X,), (t,))[1]
    np.testing.assert_allclose(got.position, want.position, rtol=1e-12)
    assert got.energy == pytest.approx(want.energy, rel=1e-12)
    lin.T.method = transpose
    ct = fwdad.Tangent(position=rng.standard_normal(3), energy=0.7)
    (ct_x,) = lin.T(ct)
    (want_x,) = fwdad.vjp(advanced, X)[1](ct)
    np.testing.assert_allclose(ct_x, want_x, rtol=1e-10)
    assert np.isclose(ct_x @ t, ct.position @ got.position + ct.energy * got.energy,
                      rtol=1e-10)
    batch = fwdad.Tangent(position=rng.standard_normal((2, 3)), energy=np.array([1.0, 2.0]))
    rows = lin.T(batch)[0]
    for b in range(2):
        one = fwdad.Tangent(position=batch.position[b], energy=float(batch.energy[b]))
        np.testing.assert_allclose(rows[b], lin.T(one)[0], rtol=1e-12)


def test_linearize_source_shows_an_instance_output() -> None:
    _, lin = fwdad.linearize(advanced, X)
    assert "return Tangent(position=t" in lin.source()
    assert "# cotangents in: Tangent(position=ct" in lin.T.source()


class Node:
    def __init__(self, value: np.ndarray) -> None:
        self.value, self.me = value, self


def cyclic_output(x: np.ndarray) -> Node:
    return Node(np.sin(x))


@pytest.mark.parametrize("api", ["jacfwd", "jacrev"])
def test_an_output_that_holds_itself_is_refused(api: str) -> None:
    """(reverse mode recursed without end unboxing it)"""
    with pytest.raises(NonDifferentiableError, match=api + r"\(.*cyclic_output.*holds "
                                                           r"itself.*a cycle"):
        getattr(fwdad, api)(cyclic_output)(X)


def test_vjp_and_lin_keep_an_output_that_holds_itself() -> None:
    out, _ = fwdad.vjp(cyclic_output, X)
    assert out.me is out
    np.testing.assert_allclose(out.value, np.sin(X))
    _, lin = fwdad.linearize(cyclic_output, X)
    tangent = lin(np.ones(3))
    assert tangent.me is tangent
    np.testing.assert_allclose(tangent.value, np.cos(X), rtol=1e-12)


# ---- generated argument structures ---------------------------------------------------------
class Box:
    """A plain class whose fields the generated trees fill."""


def built_tree(spec: Any, rng: np.random.Generator) -> Any:
    """A tree from a spec: ("array", n), ("float",), ("int",), ("list", [...]),
    ("dict", [...]) or ("box", [...]) of child specs."""
    kind = spec[0]
    if kind == "array":
        return rng.uniform(-1, 1, spec[1])
    if kind == "float":
        return float(rng.uniform(-1, 1))
    if kind == "int":
        return 2
    children = [built_tree(child, rng) for child in spec[1]]
    if kind == "list":
        return children
    if kind == "dict":
        return {f"k{i}": child for i, child in enumerate(children)}
    box = Box()
    for i, child in enumerate(children):
        setattr(box, f"f{i}", child)
    return box


SPECS = st.recursive(
    st.one_of(st.tuples(st.just("array"), st.integers(1, 3)), st.tuples(st.just("float")),
              st.tuples(st.just("int"))),
    lambda inner: st.tuples(st.sampled_from(["list", "dict", "box"]),
                            st.lists(inner, min_size=1, max_size=3)),
    max_leaves=6)


def _floats(tree: Any) -> List[Any]:
    return [leaf for _, leaf in float_paths(tree)]


def float_leaves(tree: Any) -> List[Any]:
    """The float leaves of a generated tree, read through its fields (differentiated:
    a list, not a generator)."""
    if isinstance(tree, list):
        return [leaf for item in tree for leaf in float_leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in float_leaves(item)]
    if isinstance(tree, Box):  # (fields f0, f1, ...: vars() has no rule)
        return [leaf for i in range(3) if hasattr(tree, f"f{i}")
                for leaf in float_leaves(getattr(tree, f"f{i}"))]
    return [] if isinstance(tree, int) else [tree]


def weighted(x: np.ndarray, tree: Any) -> np.ndarray:
    """A smooth function of every float in the tree, read by walking it."""
    total = np.zeros(2)
    scale = 1.0
    for leaf in float_leaves(tree):
        scale = scale * 0.9
        total = total + scale * np.array([np.sum(np.sin(leaf) * x[0]),
                                          np.sum(leaf * leaf) + x[1]])
    return total


@settings(max_examples=25)
@given(SPECS)
def test_generated_argument_trees(spec: Any) -> None:
    """jacfwd and jacrev agree with central differences in every float field of
    generated trees of lists, dicts and instances."""
    tree = built_tree(spec, np.random.default_rng(0))
    assume(bool(_floats(tree)) and isinstance(tree, (list, dict, Box)))
    x = np.array([0.3, -0.2])
    forward = fwdad.jacfwd(weighted, argnums=1)(x, tree)
    backward = fwdad.jacrev(weighted, argnums=1)(x, tree)
    for path, leaf in float_paths(tree):
        want = central_jacobian(lambda v: weighted(
            x, replaced(tree, path, v if np.ndim(leaf) else float(v))), leaf)
        np.testing.assert_allclose(at(forward, path), want, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(at(backward, path), want, rtol=1e-6, atol=1e-8)
