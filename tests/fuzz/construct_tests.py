"""What the test files of the constructs chosen by name or index share (test_idioms.py,
test_views.py, test_habits.py, test_classes.py, test_array_calls.py): a program that does
not draw the construct is the program it was without it, and the first program of SEEDS
that draws each of its patterns passes every oracle."""
from __future__ import annotations

from typing import Any, Dict, Iterable, List

import pytest

from tests.fuzz.check import check, failure_class, report
from tests.fuzz.generate import generate
from tests.fuzz.own_stream import assert_drawn_apart

SEEDS = range(300, 400)
# generate's keywords of the constructs, in the order generate draws them
ORDER = ("stateful", "complex_values", "guarded", "layouts", "idioms", "views", "habits",
         "classes", "arrays", "functional", "callbacks", "scientific")


def patterns(choices: Iterable[Any]) -> List[Any]:
    """The patterns to check, as parameters: every other one by default, the rest with
    `-m long` (each runs every oracle: the default suite's time)."""
    return [pytest.param(c, marks=[] if k % 2 == 0 else [pytest.mark.long])
            for k, c in enumerate(choices)]


class ConstructTests:
    """The checks of the construct that `generate(..., keyword=...)` draws (and marks
    as the feature `keyword`), in programs that draw every construct before it and, at
    the oracles, none after it (check draws every one unless told)."""

    def __init__(self, keyword: str) -> None:
        at = ORDER.index(keyword)
        self.keyword = keyword
        self.before = dict.fromkeys(ORDER[:at], True)
        self.at_check: Dict[str, Any] = dict.fromkeys(ORDER[at + 1:], False)

    def without(self, seed: int, **kwargs: Any):
        return generate(seed, **self.before, **kwargs)

    def assert_unchanged_without_it(self) -> None:
        key = self.keyword
        assert_drawn_apart(SEEDS, key, self.without,
                           lambda seed: self.without(seed, **{key: True}))
        assert self.without(SEEDS[0], **{key: True}, exclude=frozenset({key})).source == \
            self.without(SEEDS[0]).source

    def assert_passes_every_oracle(self, choice: Any) -> None:
        """The first program of SEEDS that draws the pattern `choice` (a name or an
        index) passes every oracle, checked, not discarded."""
        chosen = {self.keyword: choice}
        seed = next(s for s in SEEDS if self.keyword in self.without(s, **chosen).features)
        result = check(seed, **chosen, **self.at_check)
        assert result.source == self.without(seed, **chosen).source != \
            self.without(seed).source
        assert result.discard is None  # (a discarded program would pass without a check)
        assert not result.failures(), f"{failure_class(result)}\n{report(result)}"
