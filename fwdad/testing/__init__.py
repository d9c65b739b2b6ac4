"""Tools for checking rules: test_rule, test_varmat_matvar, vjp_by_transposition, finite
differences, Hypothesis strategies."""
from fwdad.testing.check import test_rule
from fwdad.testing.transposed import vjp_by_transposition
from fwdad.testing.varmat import test_varmat_matvar

__all__ = ["test_rule", "test_varmat_matvar", "vjp_by_transposition"]
