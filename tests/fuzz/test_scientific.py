"""The scientific construct (scientific.py): drawn from its own random stream, so a
program that does not draw it is the program it was without it, and the programs that
draw each SciPy, linear algebra or FFT call pass every oracle."""
import pytest

from tests.fuzz.construct_tests import ConstructTests, patterns
from tests.fuzz.scientific import HAS_SCIPY, PATTERNS

pytestmark = pytest.mark.skipif(not HAS_SCIPY, reason="the construct draws SciPy")
CONSTRUCT = ConstructTests("scientific")


def test_programs_without_the_construct_are_unchanged():
    CONSTRUCT.assert_unchanged_without_it()


@pytest.mark.parametrize("name", patterns([p[0] for p in PATTERNS]))
def test_a_program_with_each_call_passes_every_oracle(name):
    CONSTRUCT.assert_passes_every_oracle(name)
