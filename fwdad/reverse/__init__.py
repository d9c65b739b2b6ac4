"""Reverse mode (the companion path): Var and varmat values, the tape, the reverse line
transformation, reverse rules, and vjp / grad / value_and_grad."""
# The import order matters: rules registered later build on earlier ones.
# isort: skip_file
from fwdad.reverse import (  # noqa: F401 (imported for their rules)
    rules_scalar, rules_ufuncs, rules_arrays, rules_reductions, rules_shapes,
    rules_linalg, rules_decompositions, rules_creation, rules_methods, rules_python,
    rules_iteration, rules_statistics, rules_sequences,
    rules_array_api, rules_scalar_methods, rules_reordering, rules_complex,
    rules_complex_ufuncs, rules_complex_linalg, rules_fft, rules_copies, rules_cmath,
    rules_plain_numpy)
# (SciPy's rules come when first needed: fwdad/rules/scipy_support.py)
from fwdad.reverse import rules_outputs  # noqa: F401 (after every rule: it reads them)
from fwdad.reverse.dispatch import derived_rrule as build_rule
from fwdad.reverse.registry import raw_rrule, rrule
from fwdad.reverse.tape import layout, nested, zero_adjoints
from fwdad.reverse.var import Var, VarMat, to_matvar, to_varmat, value_of

__all__ = ["Var", "VarMat", "to_matvar", "to_varmat", "value_of", "rrule", "raw_rrule",
           "layout", "nested", "zero_adjoints", "build_rule"]
