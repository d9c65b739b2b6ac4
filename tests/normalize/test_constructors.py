"""Golden tests: displays, slices and f-strings become constructor calls."""
import ast

import pytest

from fwdad.normalize import constructors, flatten, foreign, intrinsics, normalize
from fwdad.normalize.names import Namer
from fwdad.normalize.scope import Scope, local_names
from fwdad.source import get_source
from tests.corpus import CORPUS
from tests.util import assert_transforms

CASES = [
    ("list with star", "def f(a, b):\n    return [a, *b]",
     "def f(a, b):\n    return fwdad.build_list(a, *b)"),
    ("tuple", "def f(a, b):\n    return a, b",
     "def f(a, b):\n    return fwdad.build_tuple(a, b)"),
    ("tuple target stays", "def f(t):\n    a, b = t",
     "def f(t):\n    a, b = t"),
    ("dict", "def f(a, b):\n    return {'a': a, 'b': b}",
     "def f(a, b):\n    return fwdad.build_dict('a', a, 'b', b)"),
    ("set", "def f(a, b):\n    return {a, b}",
     "def f(a, b):\n    return fwdad.build_set(a, b)"),
    ("slice", "def f(x, n):\n    return x[1:n]",
     "def f(x, n):\n    return x[fwdad.build_slice(1, n, None)]"),
    ("slice with step in a tuple index", "def f(x):\n    return x[::2, 0]",
     "def f(x):\n    return x[fwdad.build_tuple(fwdad.build_slice(None, None, 2), 0)]"),
    ("f-string", "def f(x):\n    return f'{x:.2f} {x!r} {{}}'",
     "def f(x):\n    return str.format('{:.2f} {!r} {{}}', x, x)"),
]


@pytest.mark.parametrize("name,before,after", CASES, ids=[c[0] for c in CASES])
def test_constructors(name, before, after):
    assert_transforms(constructors.run, before, after)


def _sequential(src, names):
    """What normalize did before it ran intrinsics and constructors in one walk."""
    tree = foreign.run(src.tree, names, Scope(src.globals, src.cells,
                                               local_names(src.tree)))
    return flatten.run(constructors.run(intrinsics.run(tree, names), names), names)


def test_intrinsics_and_constructors_rewrite_different_nodes():
    def methods(cls):
        return {name for name in vars(cls) if name.startswith("visit_")}
    assert not methods(intrinsics.Intrinsics) & methods(constructors.Constructors)


@pytest.mark.parametrize("example", CORPUS, ids=str)
def test_one_walk_gives_what_the_passes_give_in_turn(example):
    """normalize runs intrinsics and constructors as one walk: same tree, locations
    included, as running them one after the other."""
    together = normalize(get_source(example.fn), Namer())
    in_turn = _sequential(get_source(example.fn), Namer())
    assert ast.dump(together, include_attributes=True) == \
        ast.dump(in_turn, include_attributes=True)
