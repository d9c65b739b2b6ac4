"""Function -> its checked, normalized tree: the part of the pipeline every mode shares.

Forward rules (forward/derive.py) and reverse rules (reverse/derive.py) both start here:
the source is read, the fence rejects what fwdad cannot differentiate, and the passes
leave one operation per line.
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Callable, Tuple

from fwdad import codegen, fence
from fwdad.astwalk import walk_by_class
from fwdad.codegen import LazyText
from fwdad.normalize import normalize
from fwdad.normalize.names import Namer
from fwdad.source import FunctionSource, again, get_source


def normalized(fn: Callable) -> Tuple[FunctionSource, ast.FunctionDef]:
    """The source of `fn` and its normalized tree.

    Raises:
        SourceUnavailableError, UnsupportedSyntaxError: see fwdad.errors.
    """
    return normalized_source(get_source(fn))


def normalized_source(src: FunctionSource, unboxed: bool = True
                      ) -> Tuple[FunctionSource, ast.FunctionDef]:
    """`src` and its normalized tree (made from `src.tree`, in place); with
    `unboxed=False`, without the unbox pass (normalize/unbox.py)."""
    groups = walk_by_class(src.tree)  # once, for the fence and normalize
    fence.check(src, groups)
    return src, normalize(src, Namer(), groups, unboxed)


def text_later(src: FunctionSource, normalized: ast.FunctionDef) -> LazyText:
    """`rule.normalized_source`: the normalized code's text, made when first read, from
    the def's own text again, so that a rule keeps no syntax tree alive (some 10^4
    objects for the collector to trace, and megabytes); a lambda, with no text of its
    own, keeps its tree."""
    if src.text is None:
        return LazyText(codegen.render, normalized)
    return LazyText(_normalized_text, without_tree(src))


def without_tree(src: FunctionSource) -> FunctionSource:
    """`src` without its tree (after normalize, `src.tree` is the normalized tree)."""
    return dataclasses.replace(src, tree=None)


def _normalized_text(src: FunctionSource) -> str:
    return codegen.render(normalized_source(again(src))[1])
