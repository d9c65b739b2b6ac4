"""Function -> its checked, normalized tree: the part of the pipeline every mode shares.

Forward rules (forward/derive.py) and reverse rules (reverse/derive.py) both start here:
the source is read, the fence rejects what fwdad cannot differentiate, and the passes
leave one operation per line.
"""
from __future__ import annotations

import ast
from typing import Callable, Tuple

from fwdad import fence
from fwdad.astwalk import walk_by_class
from fwdad.normalize import normalize
from fwdad.normalize.names import Namer
from fwdad.source import FunctionSource, get_source


def normalized(fn: Callable) -> Tuple[FunctionSource, ast.FunctionDef]:
    """The source of `fn` and its normalized tree.

    Raises:
        SourceUnavailableError, UnsupportedSyntaxError: see fwdad.errors.
    """
    src = get_source(fn)
    groups = walk_by_class(src.tree)  # once, for the fence and normalize
    fence.check(src, groups)
    return src, normalize(src, Namer(), groups)
