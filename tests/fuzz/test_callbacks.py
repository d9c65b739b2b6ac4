"""The callbacks construct (callbacks.py): drawn from its own random stream, so a
program that does not draw it is the program it was without it, and the programs that
draw each callback pass every oracle."""
import pytest

from tests.fuzz.callbacks import PATTERNS
from tests.fuzz.check import check, failure_class, report
from tests.fuzz.generate import generate
from tests.fuzz.own_stream import assert_drawn_apart

SEEDS = range(300, 400)


def _without(seed, **kwargs):
    return generate(seed, stateful=True, complex_values=True, guarded=True, layouts=True,
                    idioms=True, views=True, habits=True, classes=True, arrays=True,
                    functional=True, **kwargs)


def test_programs_without_the_construct_are_unchanged():
    assert_drawn_apart(SEEDS, "callbacks", _without,
                       lambda seed: _without(seed, callbacks=True))
    assert _without(SEEDS[0], callbacks=True, exclude=frozenset({"callbacks"})).source == \
        _without(SEEDS[0]).source


def _first_drawing(name):
    return next(s for s in SEEDS if "callbacks" in _without(s, callbacks=name).features)


@pytest.mark.parametrize("name", [p[0] for p in PATTERNS])
def test_a_program_with_each_idiom_passes_every_oracle(name):
    seed = _first_drawing(name)
    result = check(seed, callbacks=name)
    assert result.source == _without(seed, callbacks=name).source != _without(seed).source
    assert result.discard is None  # (a discarded program would pass without a check)
    assert not result.failures(), f"{failure_class(result)}\n{report(result)}"
