"""Shared fixtures."""
import pytest

from fwdad.rules.registry import rules_restored


@pytest.fixture
def restore_rules():
    """Rules a test registers are gone after it."""
    with rules_restored():
        yield
