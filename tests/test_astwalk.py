"""fwdad.astwalk visits what ast.walk visits (bar expression contexts), in its order."""
import ast
import inspect

import pytest

from fwdad import astwalk
from tests import corpus


def _trees():
    yield ast.parse(inspect.getsource(corpus))
    yield ast.parse(inspect.getsource(astwalk))
    yield ast.parse("import a.b as c\nfrom . import d\nglobal g\n"
                    "f'{x!r:>{w}}'\nasync def h():\n    async with a as b: await c\n"
                    "match p:\n    case [1, *rest] | {'k': _}: pass\n")


@pytest.mark.parametrize("tree", list(_trees()))
def test_walk_matches_ast_walk(tree):
    expected = [n for n in ast.walk(tree) if not isinstance(n, ast.expr_context)]
    got = astwalk.walk(tree)
    assert len(got) == len(expected)
    assert all(a is b for a, b in zip(got, expected))


@pytest.mark.parametrize("tree", list(_trees()))
def test_child_nodes_matches_iter_child_nodes(tree):
    for node in ast.walk(tree):
        expected = [n for n in ast.iter_child_nodes(node)
                    if not isinstance(n, ast.expr_context)]
        assert astwalk.child_nodes(node) == expected


def test_loaded_names():
    tree = ast.parse("y = f(x, y)\nz.w = q[i]\ndel k")
    assert astwalk.loaded_names(tree) == {"f", "x", "y", "z", "q", "i"}
