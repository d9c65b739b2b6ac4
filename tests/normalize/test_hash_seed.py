"""A rule's source does not depend on the hash seed: the instances normalize/unbox.py
keeps as fields were planned in the order of a set of names, so their fields' locals
were numbered differently from one PYTHONHASHSEED to another."""
import os
import subprocess
import sys

import pytest

PROGRAM = """
import fwdad
from tests.language.stdlib import dataclass_generated_methods
print(fwdad.derive_frule(dataclass_generated_methods).frule.source)
"""


def _source(hash_seed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True,
                          text=True, timeout=300, cwd=os.path.dirname(os.path.dirname(
                              os.path.dirname(os.path.abspath(__file__)))))
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("other", ["2", "3"])
def test_the_rule_of_a_function_making_instances_is_the_same_under_any_hash_seed(other):
    first = _source("1")
    assert "_fw_a" in first  # (the fields' locals of Record(x), numbered)
    assert _source(other) == first
