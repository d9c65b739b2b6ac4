"""Shortcuts the rule builder takes must give what the long way gives: the scope of a
def read without a walk, the names a template instance notes it reads (checked before
cleanup, which moves expressions and keeps its own account), and an optimized rule that
nobody holds any more going at once (no reference cycle left for the collector)."""
import ast
import collections
import gc
import weakref

import pytest

from bench import small_ops
from fwdad import frontend
from fwdad.astwalk import walk
from fwdad.forward.derive import build_rule
from fwdad.forward.optimizer import optimize as optimize_module
from fwdad.forward.optimizer import reads
from fwdad.forward.optimizer.records import Assign, Block
from fwdad.forward.transform.dual_code import transform_lines
from fwdad.forward.transform.scopes import scope_of
from tests.corpus import CORPUS
from tests.forward.test_optimize import (
    alias_then_mutate,
    constant_weights,
    literal_powers,
    self_updates,
    swap,
)

FUNCTIONS = [e.fn for e in CORPUS] + [alias_then_mutate, constant_weights, literal_powers,
                                      self_updates, swap]


def walked_scope(fn: ast.FunctionDef):
    """scope_of by a walk of every node (None for a def with defs inside)."""
    args = fn.args
    bound = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    bound.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    declared, mentioned, nonlocals = set(), set(), set()
    for node in walk(fn):
        if isinstance(node, ast.Name):
            mentioned.add(node.id)
            if not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
        elif isinstance(node, ast.Global):
            declared.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            nonlocals.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                and node is not fn:
            return None
    return bound - declared, declared, mentioned, nonlocals


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_scope_of_matches_a_walk(fn):
    normalized = frontend.normalized(fn)[1]
    want = walked_scope(normalized)
    if want is None:
        pytest.skip("a def with defs inside: scope_of walks it the long way")
    assert scope_of(normalized) == want


def _records(records):
    """The records of a rule and of the blocks inside them."""
    out = []
    for record in records:
        out.append(record)
        if type(record) is Block:
            out.extend(_records(record.body + record.orelse))
    return out


def _rewritten(fn, monkeypatch):
    """The optimized rule of `fn`, and how many of the assignments the rewrite made
    (before cleanup, which moves expressions and keeps its own account) have the reads
    they noted checked against a walk."""
    checked = []
    clean = optimize_module.cleanup

    def checking(body, args, small=()):
        checked.append(_check_noted_reads(body))
        return clean(body, args, small)
    monkeypatch.setattr(optimize_module, "cleanup", checking)
    src, normalized = frontend.normalized(fn)
    tree, constants, lines = transform_lines(normalized, src)
    better = optimize_module.optimize(tree, constants, lines, None)
    return better, (checked[0] if checked else 0)


def _check_noted_reads(records) -> int:
    checked = 0
    for record in _records(records):
        noted = record.reads if type(record) is Assign else None
        if noted is not None:
            names, stores, inside = [], collections.Counter(), []
            reads.reads_of(record.value, names, stores, inside)
            assert collections.Counter(noted) == collections.Counter(names), \
                ast.dump(record.value)
            checked += 1
    return checked


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_noted_reads_are_the_names_read(fn, monkeypatch):
    better, _ = _rewritten(fn, monkeypatch)
    if better is None:
        pytest.skip("not optimized")


def test_noted_reads_on_the_long_benchmark_body(monkeypatch, tmp_path):
    path = tmp_path / "long_body.py"
    path.write_text("import math\n" + small_ops.long_body_source(20))
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    assert _rewritten(namespace["long_body"], monkeypatch)[1] > 50


def test_a_dropped_optimized_rule_goes_without_the_collector():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        rule = build_rule(self_updates, optimized=True)
        plain = weakref.ref(rule.unoptimized)
        gone = weakref.ref(rule)
        del rule
        assert gone() is None and plain() is None
    finally:
        if was_enabled:
            gc.enable()


def _live_syntax_nodes() -> int:
    gc.collect()
    return sum(isinstance(o, ast.AST) for o in gc.get_objects())


def test_a_rule_keeps_no_syntax_tree():
    build_rule(self_updates)  # templates, builders and caches made once
    before = _live_syntax_nodes()
    rule = build_rule(self_updates, optimized=True)
    assert _live_syntax_nodes() - before < 5  # (the rule's own: none)
    assert "math.exp" in str(rule.normalized_source)
    del rule


def test_the_plain_rule_and_the_text_come_from_the_text_the_rule_was_built_from(tmp_path):
    """The file may change after the rule is built (an editor saving it): the plain rule
    and the normalized text, made later, still follow the function's own code."""
    import importlib.util
    import linecache
    import math

    from fwdad.dual import Dual
    path = tmp_path / "edited.py"
    path.write_text("import math\n\n\ndef f(x):\n    return math.sin(x) * x\n")
    spec = importlib.util.spec_from_file_location("edited", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rule = build_rule(module.f, optimized=True)
    path.write_text("import math\n\n\ndef f(x):\n    return math.cos(x) + 1.0\n")
    linecache.checkcache(str(path))
    out = rule.unoptimized(Dual(0.7, 1.0))
    assert out.primal == pytest.approx(math.sin(0.7) * 0.7)
    assert out.tangent == pytest.approx(math.cos(0.7) * 0.7 + math.sin(0.7))
    assert "math.sin" in str(rule.normalized_source)
    assert "math.cos" not in str(rule.normalized_source)
