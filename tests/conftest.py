"""Shared fixtures, and a deterministic Hypothesis profile (the same draws every run, so
that a failure can be reproduced and CI does not fail at random)."""
import pytest
from hypothesis import settings

from fwdad.reverse.registry import rrules_restored
from fwdad.rules.registry import rules_restored

settings.register_profile("fwdad", derandomize=True, deadline=None)
settings.load_profile("fwdad")


@pytest.fixture
def restore_rules():
    """Rules a test registers are gone after it (forward and reverse: a @static_graph
    function registers both)."""
    with rules_restored(), rrules_restored():
        yield
