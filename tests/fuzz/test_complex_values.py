"""The complex construct (complex_values.py): drawn from its own random stream, so a
program that does not draw it is the program `generate(seed)` gave before, and the
programs that do draw it are real in, real out, and pass every oracle."""
import pytest

from tests.fuzz.check import check, failure_class, report
from tests.fuzz.generate import generate

SEEDS = range(100, 160)


def test_programs_without_the_construct_are_unchanged():
    drawn = 0
    for seed in SEEDS:
        plain, program = generate(seed), generate(seed, complex_values=True)
        assert "complex" not in plain.features
        if "complex" in program.features:
            drawn += 1
            assert program.source != plain.source
        else:
            assert program.source == plain.source
        assert [a.tolist() if hasattr(a, "tolist") else a for a in program.args] == \
            [a.tolist() if hasattr(a, "tolist") else a for a in plain.args]
    assert 0 < drawn < len(SEEDS)


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
