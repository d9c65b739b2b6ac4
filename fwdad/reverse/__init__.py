"""Reverse mode (the companion path): Var and varmat values, the tape, the reverse line
transformation, reverse rules, and vjp / grad / value_and_grad."""
from fwdad.reverse import (  # noqa: F401 (imported for their rules)
    rules_array_api,
    rules_arrays,
    rules_creation,
    rules_decompositions,
    rules_iteration,
    rules_linalg,
    rules_methods,
    rules_python,
    rules_reductions,
    rules_scalar,
    rules_scalar_methods,
    rules_sequences,
    rules_shapes,
    rules_statistics,
    rules_ufuncs,
)
from fwdad.rules.all import HAS_SCIPY

if HAS_SCIPY:  # SciPy is optional: its rules only where it imports
    from fwdad.reverse import rules_scipy_linalg, rules_scipy_special  # noqa: F401
from fwdad.reverse.dispatch import derived_rrule as build_rule
from fwdad.reverse.registry import raw_rrule, rrule
from fwdad.reverse.tape import layout, nested, zero_adjoints
from fwdad.reverse.var import Var, VarMat, to_matvar, to_varmat, value_of

__all__ = ["Var", "VarMat", "to_matvar", "to_varmat", "value_of", "rrule", "raw_rrule",
           "layout", "nested", "zero_adjoints", "build_rule"]
