"""The views construct (views.py): drawn from its own random stream, so a program that
does not draw it is the program it was without it, and the programs that draw each
pattern pass every oracle."""
import pytest

from tests.fuzz.construct_tests import ConstructTests, patterns
from tests.fuzz.views import PATTERNS

CONSTRUCT = ConstructTests("views")


def test_programs_without_the_construct_are_unchanged():
    CONSTRUCT.assert_unchanged_without_it()


@pytest.mark.parametrize("index", patterns(range(len(PATTERNS))))
def test_a_program_with_each_pattern_passes_every_oracle(index):
    CONSTRUCT.assert_passes_every_oracle(index)
