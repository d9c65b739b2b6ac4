"""Tools for checking rules: test_rule, finite differences, Hypothesis strategies."""
from fwdad.testing.check import test_rule

__all__ = ["test_rule"]
