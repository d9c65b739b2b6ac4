"""The functional construct (functional.py): drawn from its own random stream, so a
program that does not draw it is the program it was without it, and the programs that
draw each idiom pass every oracle."""
import pytest

from tests.fuzz.check import check, failure_class, report
from tests.fuzz.functional import PATTERNS
from tests.fuzz.generate import generate
from tests.fuzz.own_stream import assert_drawn_apart

SEEDS = range(300, 400)


def _without(seed, **kwargs):
    return generate(seed, stateful=True, complex_values=True, guarded=True, layouts=True,
                    idioms=True, views=True, habits=True, classes=True, arrays=True,
                    **kwargs)


def test_programs_without_the_construct_are_unchanged():
    assert_drawn_apart(SEEDS, "functional", _without,
                       lambda seed: _without(seed, functional=True))
    assert _without(SEEDS[0], functional=True, exclude=frozenset({"functional"})).source == \
        _without(SEEDS[0]).source


def _first_drawing(name):
    return next(s for s in SEEDS if "functional" in _without(s, functional=name).features)


@pytest.mark.parametrize("name", [p[0] for p in PATTERNS])
def test_a_program_with_each_idiom_passes_every_oracle(name):
    seed = _first_drawing(name)
    result = check(seed, functional=name, callbacks=False)
    assert result.source == _without(seed, functional=name).source != _without(seed).source
    assert result.discard is None  # (a discarded program would pass without a check)
    assert not result.failures(), f"{failure_class(result)}\n{report(result)}"
