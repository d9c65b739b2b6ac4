"""Shrink a failing program while the same failure persists.

Greedy, in phases from coarse to fine: delete a statement (anywhere, module-level
helpers and classes included), replace a block by its body, then replace an
expression by one of its operands or by a constant. Each candidate is re-checked with
the one oracle (same seed, so the same arguments); it is kept when that oracle gives
the same signature (status and kind) again.
"""
from __future__ import annotations

import ast
import contextlib
import copy
import signal
import time
import warnings
from typing import Callable, Iterator, Optional

from tests.fuzz.check import check

BLOCKS = (ast.If, ast.For, ast.While, ast.With)
CANDIDATE_SECONDS = 10


def shrink(seed: int, oracle: str, signature: tuple, source: str,
           seconds: float = 60.0) -> str:
    """The smallest variant of `source` found within `seconds` that still fails."""
    deadline = time.monotonic() + seconds

    def fails(candidate: str) -> bool:
        with _time_limit(CANDIDATE_SECONDS):  # a deleted `n += 1` loops forever
            try:
                result = check(seed, [oracle], source=candidate)
            except CandidateTimeout:
                return False
        outcome = result.outcomes.get(oracle)
        return outcome is not None and outcome.signature(oracle) == signature
    tree = ast.parse(source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # candidates like `0.5(x)`
        before = None
        while before != ast.dump(tree) and time.monotonic() < deadline:
            before = ast.dump(tree)  # (a simpler expression may free a statement)
            for phase in (_deletions, _inlined_blocks, _simpler_expressions):
                tree = _greedy(tree, phase, fails, deadline)
    return ast.unparse(tree) + "\n"


class CandidateTimeout(Exception):
    """A shrunk candidate ran longer than CANDIDATE_SECONDS."""


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    def expire(signum, frame):
        raise CandidateTimeout(f"still running after {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _greedy(tree: ast.Module, phase: Callable, fails: Callable, deadline: float) -> ast.Module:
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for candidate in phase(tree):
            if time.monotonic() >= deadline:
                break
            text = _text(candidate)
            if text is not None and fails(text):
                tree, progress = candidate, True
                break
    return tree


def _text(tree: ast.Module) -> Optional[str]:
    try:
        text = ast.unparse(ast.fix_missing_locations(tree))
        compile(text, "<shrink>", "exec")
    except (SyntaxError, ValueError):
        return None
    return text + "\n"


def _bodies(tree: ast.AST) -> Iterator[tuple]:
    """(node, field) of every statement list, outermost first."""
    for node in ast.walk(tree):
        for name in ("body", "orelse"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield node, name


def _deletions(tree: ast.Module) -> Iterator[ast.Module]:
    for b, (node, name) in enumerate(list(_bodies(tree))):
        for i, stmt in enumerate(getattr(node, name)):
            if isinstance(stmt, (ast.Import, ast.ImportFrom)) or \
                    isinstance(stmt, ast.FunctionDef) and stmt.name == "f" and node is tree:
                continue
            new = copy.deepcopy(tree)
            target = list(_bodies(new))[b]
            body = getattr(target[0], target[1])
            del body[i]
            if not body and target[1] == "body":
                body.append(ast.Pass())
            yield new


def _inlined_blocks(tree: ast.Module) -> Iterator[ast.Module]:
    for b, (node, name) in enumerate(list(_bodies(tree))):
        for i, stmt in enumerate(getattr(node, name)):
            if not isinstance(stmt, BLOCKS):
                continue
            for part in ("body", "orelse"):
                if getattr(stmt, part, None):
                    new = copy.deepcopy(tree)
                    target = list(_bodies(new))[b]
                    body = getattr(target[0], target[1])
                    body[i:i + 1] = getattr(body[i], part)
                    yield new


def _simpler_expressions(tree: ast.Module) -> Iterator[ast.Module]:
    nodes = list(ast.walk(tree))
    callees = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    for index, node in enumerate(nodes):
        if not isinstance(node, ast.expr) or id(node) in callees or \
                isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
            continue
        for replacement in _replacements(node):
            new = copy.deepcopy(tree)
            if _replace(new, index, replacement):
                yield new


def _replacements(node: ast.expr) -> list:
    children = [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)
                and not isinstance(c, (ast.Attribute, ast.Name)) or isinstance(c, ast.Name)]
    if isinstance(node, ast.Call):
        children = list(node.args)
    out = [copy.deepcopy(c) for c in children if not isinstance(c, ast.Starred)]
    if not isinstance(node, ast.Constant):
        out.append(ast.Constant(0.5))
    return out


def _replace(tree: ast.Module, index: int, replacement: ast.expr) -> bool:
    target = list(ast.walk(tree))[index]
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, replacement)
                return True
            if isinstance(value, list) and any(v is target for v in value):
                value[[i for i, v in enumerate(value) if v is target][0]] = replacement
                return True
    return False
