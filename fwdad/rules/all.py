"""Imports every rule module, which registers its rules (SciPy's are registered when
first needed: rules/scipy_support.py)."""
# The import order matters: rules registered later wrap or read earlier ones.
# isort: skip_file
from fwdad.rules import (  # noqa: F401  (imported for their registrations)
    operators, containers, mathfns, builtins_, ufuncs, reductions, counting, linalg,
    indexing, objects, creation, iteration, classes, norms, ufunc_methods, shapes, padding,
    random_, ndarray_methods, decompositions, differences, statistics, array_api, contexts,
    fft, reordering, copies, cmathfns, piecewise, numpy_loops, polynomials,
    numpy_library,
    outputs,  # after the others: it wraps rules registered above
    scalar_methods)  # after outputs: scalar methods take out= as array methods do
from fwdad.rules import scipy_support

HAS_SCIPY = scipy_support.installed()  # (SciPy is optional: pip install fwdad[scipy])
