"""The views construct (views.py): drawn from its own random stream, so a program that
does not draw it is the program it was without it, and the programs that draw each
pattern pass every oracle."""
import pytest

from tests.fuzz.check import check, failure_class, report
from tests.fuzz.generate import generate
from tests.fuzz.own_stream import assert_drawn_apart
from tests.fuzz.views import PATTERNS

SEEDS = range(300, 400)


def _without(seed, **kwargs):
    return generate(seed, stateful=True, complex_values=True, guarded=True, layouts=True,
                    idioms=True, **kwargs)


def test_programs_without_the_construct_are_unchanged():
    assert_drawn_apart(SEEDS, "views", _without, lambda seed: _without(seed, views=True))
    assert _without(SEEDS[0], views=True, exclude=frozenset({"views"})).source == \
        _without(SEEDS[0]).source


def _first_drawing(index):
    return next(s for s in SEEDS if "views" in _without(s, views=index).features)


@pytest.mark.parametrize("index", range(len(PATTERNS)))
def test_a_program_with_each_pattern_passes_every_oracle(index):
    seed = _first_drawing(index)
    result = check(seed, views=index, functional=False, callbacks=False)
    assert result.source == _without(seed, views=index).source != _without(seed).source
    assert result.discard is None  # (a discarded program would pass without a check)
    assert not result.failures(), f"{failure_class(result)}\n{report(result)}"
