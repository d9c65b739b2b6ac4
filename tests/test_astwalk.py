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
def test_walk_by_class_groups_walk(tree):
    expected = {}
    operators = (ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
    for node in astwalk.walk(tree):
        if not isinstance(node, operators):
            expected.setdefault(type(node), []).append(node)
    got = astwalk.walk_by_class(tree)
    assert list(got) == list(expected)
    assert all([id(n) for n in got[cls]] == [id(n) for n in expected[cls]]
               for cls in expected)


@pytest.mark.parametrize("tree", list(_trees()))
def test_child_nodes_matches_iter_child_nodes(tree):
    for node in ast.walk(tree):
        expected = [n for n in ast.iter_child_nodes(node)
                    if not isinstance(n, ast.expr_context)]
        assert astwalk.child_nodes(node) == expected


def _dump(tree):
    return ast.dump(tree, include_attributes=True)


def _strip_some_locations(tree):
    """Drops the locations of every third node, and some end positions."""
    for i, node in enumerate(ast.walk(tree)):
        for attr in (("lineno", "col_offset") if i % 3 == 0 else ()) + \
                (("end_lineno",) if i % 5 == 0 else ()):
            if hasattr(node, attr):
                delattr(node, attr)
        if i % 7 == 0 and hasattr(node, "end_col_offset"):
            node.end_col_offset = None
    return tree


@pytest.mark.parametrize("tree", list(_trees()))
def test_fix_missing_locations_matches_ast(tree):
    text = ast.unparse(tree)
    expected = ast.fix_missing_locations(_strip_some_locations(ast.parse(text)))
    got = astwalk.fix_missing_locations(_strip_some_locations(ast.parse(text)))
    assert _dump(got) == _dump(expected)


@pytest.mark.parametrize("old", [
    ast.parse("x + 1").body[0].value,
    _strip_some_locations(ast.parse("y")).body[0],
    ast.Name(id="z", ctx=ast.Load()),
    ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
], ids=["located", "partly located", "not located", "no location attributes"])
def test_copy_location_matches_ast(old):
    expected = ast.copy_location(ast.Name(id="n", ctx=ast.Load()), old)
    got = astwalk.copy_location(ast.Name(id="n", ctx=ast.Load()), old)
    assert _dump(got) == _dump(expected)
    many = astwalk.copy_locations([ast.Name(id="n", ctx=ast.Load()), ast.Pass()], old)
    assert [_dump(n) for n in many] == \
        [_dump(expected), _dump(ast.copy_location(ast.Pass(), old))]


class _Doubler(ast.NodeTransformer):
    """Rewrites by returning new nodes, lists (spliced) and None (removed)."""

    def visit_Constant(self, node):
        return ast.Constant(node.value * 2) if isinstance(node.value, int) else node

    def visit_Pass(self, node):
        return None

    def visit_Expr(self, node):
        self.generic_visit(node)
        return [node, ast.Expr(value=ast.Name(id="again", ctx=ast.Load()))]

    def visit_Return(self, node):
        self.generic_visit(node)
        return node if node.value is None else ast.Return(value=None)


class _FastDoubler(astwalk.Transformer):
    visit_Constant, visit_Pass = _Doubler.visit_Constant, _Doubler.visit_Pass
    visit_Expr, visit_Return = _Doubler.visit_Expr, _Doubler.visit_Return


@pytest.mark.parametrize("tree", list(_trees()) + [
    ast.parse("def f(x):\n    pass\n    g(1, [2, x])\n    return 3\nh(4)\nif 5: pass")])
def test_transformer_matches_node_transformer(tree):
    expected = _Doubler().visit(ast.parse(ast.unparse(tree)))
    got = _FastDoubler().visit(ast.parse(ast.unparse(tree)))
    assert ast.dump(got) == ast.dump(expected)


@pytest.mark.parametrize("tree", list(_trees()))
def test_clone_copies_nodes_and_shares_other_values(tree):
    value = object()
    tree.body[0].fw_value = value
    copied = astwalk.clone(tree)
    assert _dump(copied) == _dump(tree)
    assert copied.body[0].fw_value is value
    originals = {id(n) for n in ast.walk(tree)}
    assert not any(id(n) in originals for n in ast.walk(copied))
    assert copied.body is not tree.body


def test_assigned_once_reads_the_locals_bound_once_by_a_value_it_recognizes():
    tree = ast.parse("a = f(1)\nb = f(2)\nb = f(3)\nc = g(4)\nd, e = f(5), f(6)\n")

    def read(value):
        return value.args[0].value if type(value) is ast.Call and value.func.id == "f" \
            else None
    assert astwalk.assigned_once(tree, read) == {"a": 1}  # (b twice, c not f, d unpacked)
