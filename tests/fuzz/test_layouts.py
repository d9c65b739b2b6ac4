"""The layout construct (layouts.py): drawn from its own random stream, so a program
that does not draw it is the program it was without it, and the programs that do draw
it pass every oracle."""
import pytest

from tests.fuzz.check import check, failure_class, report
from tests.fuzz.generate import generate
from tests.fuzz.own_stream import assert_drawn_apart

SEEDS = range(300, 400)


def _without(seed, **kwargs):
    return generate(seed, stateful=True, complex_values=True, guarded=True, **kwargs)


def test_programs_without_the_construct_are_unchanged():
    assert_drawn_apart(SEEDS, "layout", _without, lambda seed: _without(seed, layouts=True))
    assert _without(SEEDS[0], layouts=True, exclude=frozenset({"layout"})).source == \
        _without(SEEDS[0]).source


# the first seeds of 300..399 whose programs draw the construct
@pytest.mark.parametrize("seed", [s for s in SEEDS if "layout" in _without(
    s, layouts=True).features][:6])
def test_program_with_a_layout_statement_passes_every_oracle(seed):
    result = check(seed)
    assert not result.failures(), f"{failure_class(result)}\n{report(result)}"
