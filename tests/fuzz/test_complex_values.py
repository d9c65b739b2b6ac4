"""The complex construct (complex_values.py): drawn from its own random stream, so a
program that does not draw it is the program `generate(seed)` gave before, and the
programs that do draw it are real in, real out, and pass every oracle."""
import pytest

from tests.fuzz.check import check, failure_class, report
from tests.fuzz.generate import generate
from tests.fuzz.own_stream import assert_drawn_apart

SEEDS = range(100, 160)


def test_programs_without_the_construct_are_unchanged():
    assert_drawn_apart(SEEDS, "complex", generate,
                       lambda seed: generate(seed, complex_values=True))


def test_excluded_construct_is_not_drawn():
    for seed in SEEDS:
        program = generate(seed, frozenset({"complex"}), complex_values=True)
        assert program.source == generate(seed).source


# the first seeds of 100..159 whose programs draw the construct
@pytest.mark.parametrize("seed", [s for s in SEEDS
                                  if "complex" in generate(s, complex_values=True).features][:8])
def test_program_with_complex_intermediates_passes_every_oracle(seed):
    result = check(seed)
    assert not result.failures(), f"{failure_class(result)}\n{report(result)}"
