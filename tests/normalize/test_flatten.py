"""Golden tests: nested expressions flattened, one operation a statement."""
import ast

import numpy as np
import pytest

from fwdad.normalize import flatten, normalize
from fwdad.source import get_source
from tests.util import assert_transforms, parse_function

CASES = [
    ("nested calls", "def f(x):\n    return g(h(x), 2.0)",
     "def f(x):\n    _fw_h1 = h(x)\n    _fw_g1 = g(_fw_h1, 2.0)\n    return _fw_g1"),
    ("assignment takes the call", "def f(x):\n    y = g(h(x))\n    return y",
     "def f(x):\n    _fw_h1 = h(x)\n    y = g(_fw_h1)\n    return y"),
    ("and short-circuits", "def f(a, x):\n    return a and g(x)",
     "def f(a, x):\n    _fw_and1 = a\n    if _fw_and1:\n        _fw_and1 = g(x)\n"
     "    return _fw_and1"),
    ("or short-circuits", "def f(a, x):\n    return a or g(x)",
     "def f(a, x):\n    _fw_or1 = a\n    if not _fw_or1:\n        _fw_or1 = g(x)\n"
     "    return _fw_or1"),
    ("conditional expression", "def f(c, x):\n    return g(x) if c else h(x)",
     "def f(c, x):\n    if c:\n        _fw_choice1 = g(x)\n    else:\n"
     "        _fw_choice1 = h(x)\n    return _fw_choice1"),
    ("walrus", "def f(x):\n    return h((y := g(x)), y)",
     "def f(x):\n    y = g(x)\n    _fw_h1 = h(y, y)\n    return _fw_h1"),
    ("while test recomputed, also before continue",
     "def f(x):\n    while g(x):\n        if h(x):\n            continue\n        x = k(x)\n"
     "    return x",
     "def f(x):\n    _fw_g1 = g(x)\n    while _fw_g1:\n        _fw_h1 = h(x)\n"
     "        if _fw_h1:\n            _fw_g1 = g(x)\n            continue\n"
     "        x = k(x)\n        _fw_g1 = g(x)\n    return x"),
    ("for with a tuple target", "def f(xs):\n    for a, b in xs:\n        g(a, b)",
     "def f(xs):\n    for _fw_item1 in xs:\n"
     "        a, b = fwdad.unpack(_fw_item1, 2)\n        g(a, b)"),
    ("starred unpacking", "def f(t):\n    a, *b, c = t\n    return b",
     "def f(t):\n    a, b, c = fwdad.unpack(t, 3, 1)\n    return b"),
    ("lambda becomes a def", "def f(k):\n    return g(lambda v: h(v, k))",
     "def f(k):\n    def _fw_lambda1(v):\n        _fw_h1 = h(v, k)\n        return _fw_h1\n"
     "    _fw_g1 = g(_fw_lambda1)\n    return _fw_g1"),
    ("docstring dropped", "def f(x):\n    'doc'\n    return x", "def f(x):\n    return x"),
    ("assert message only on failure", "def f(x):\n    assert g(x), h(x)",
     "def f(x):\n    _fw_g1 = g(x)\n    if not _fw_g1:\n        _fw_h1 = h(x)\n"
     "        assert _fw_g1, _fw_h1"),
]


@pytest.mark.parametrize("name,before,after", CASES, ids=[c[0] for c in CASES])
def test_flatten(name, before, after):
    assert_transforms(flatten.run, before, after)


def _draws_while_small(x):
    while np.random.rand() < 0.5:
        x = x * 2.0
    return x


def test_loop_condition_copies_keep_their_static_references():
    """The condition is evaluated again at the end of the body from a copy of its
    statements: the copy calls the same bound method (of NumPy's global generator),
    not a method of a copied generator."""
    tree = normalize(get_source(_draws_while_small))
    draws = [n.fw_value for n in ast.walk(tree)
             if getattr(getattr(n, "fw_value", None), "__name__", None) == "rand"]
    assert len(draws) == 2
    assert all(d.__self__ is np.random.mtrand._rand for d in draws)


def _normalized_trees():
    """The normalized trees of the corpus and of every golden test's input."""
    from fwdad.source import FunctionSource
    from tests.corpus import CORPUS
    from tests.normalize import test_constructors, test_intrinsics
    for example in CORPUS:
        yield str(example), normalize(get_source(example.fn))
    for cases in (CASES, test_intrinsics.CASES, test_constructors.CASES):
        for case in cases:
            tree = parse_function(case[1])
            yield case[0], normalize(FunctionSource(None, tree, "<case>", {"np": np}))


@pytest.mark.parametrize("name,tree", list(_normalized_trees()))
def test_every_node_is_located_without_a_fixing_walk(name, tree):
    """The passes locate each node they make, so normalize need not walk the tree to
    fill in locations: compile() accepts the tree as it is."""
    for node in ast.walk(tree):
        for attr in node._attributes:
            assert getattr(node, attr, None) is not None, (name, ast.dump(node), attr)
    compile(ast.Module([tree], []), "<normalized>", "exec")
