"""Log each derived rule's build on the `fwdad` logger, with its time and size.

    logging.getLogger("fwdad").setLevel(logging.DEBUG)   # with a handler, e.g.
    logging.basicConfig()                                 # prints, on the first call:
    DEBUG:fwdad:built the optimized forward rule of f (model.py:12) in 0.084 s: 41 lines,
    1532 characters

The first call of a large function builds its rule before it computes anything; this is
how to see that time. The rule keeps the numbers as `rule.build` (`fwdad show` prints
them). A rule's time includes the rules of callees built while it was built.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Callable

logger = logging.getLogger("fwdad")


@dataclass(frozen=True)
class Build:
    """How long a rule took to build, and how big its generated source is."""

    seconds: float
    lines: int
    characters: int

    def __str__(self) -> str:
        return f"{self.seconds:.3f} s: {self.lines} lines, {self.characters} characters"


def timed_build(build: Callable[[Any], Any], key: Any) -> Any:
    """`build(key)`, timed: the rule it returns is logged at DEBUG and keeps its Build."""
    start = time.perf_counter()
    rule = build(key)
    source = getattr(rule, "source", None)
    if not isinstance(source, str):  # (not a generated rule: nothing to report)
        return rule
    made = Build(time.perf_counter() - start, source.count("\n"), len(source))
    try:
        rule.build = made
    except AttributeError:  # (a rule object with __slots__ keeps no numbers)
        pass
    what = source.partition("\n")[0].lstrip("# ")
    logger.debug("built the %s in %s", what, made)
    return rule
