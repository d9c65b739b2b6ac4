"""The callbacks construct (callbacks.py): drawn from its own random stream, so a
program that does not draw it is the program it was without it, and the programs that
draw each callback pass every oracle."""
import pytest

from tests.fuzz.callbacks import LATER, PATTERNS
from tests.fuzz.construct_tests import ConstructTests, patterns

CONSTRUCT = ConstructTests("callbacks")


def test_programs_without_the_construct_are_unchanged():
    CONSTRUCT.assert_unchanged_without_it()


@pytest.mark.parametrize("name", patterns([p[0] for p in PATTERNS + LATER]))
def test_a_program_with_each_idiom_passes_every_oracle(name):
    CONSTRUCT.assert_passes_every_oracle(name)
