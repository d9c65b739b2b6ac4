"""The guarded construct (guarded.py): drawn from its own random stream, so a program
that does not draw it is the program it was without it, and the programs that do draw
it pass every oracle."""
import pytest

from tests.fuzz.check import check, failure_class, report
from tests.fuzz.generate import generate
from tests.fuzz.own_stream import assert_drawn_apart

SEEDS = range(200, 260)


def _plain(seed):
    return generate(seed, stateful=True, complex_values=True)


def test_programs_without_the_construct_are_unchanged():
    assert_drawn_apart(SEEDS, "guarded", _plain, lambda seed: generate(
        seed, stateful=True, complex_values=True, guarded=True))
    assert generate(SEEDS[0]).source == generate(SEEDS[0], guarded=False).source


def test_excluded_construct_is_not_drawn():
    for seed in SEEDS:
        program = generate(seed, frozenset({"guarded"}), stateful=True, complex_values=True,
                           guarded=True)
        assert program.source == _plain(seed).source


# the first seeds of 200..259 whose programs draw the construct
@pytest.mark.parametrize("seed", [s for s in SEEDS if "guarded" in generate(
    s, stateful=True, complex_values=True, guarded=True).features][:6])
def test_program_with_a_guarded_statement_passes_every_oracle(seed):
    result = check(seed)
    assert not result.failures(), f"{failure_class(result)}\n{report(result)}"
