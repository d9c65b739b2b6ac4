"""Imports every rule module, which registers its rules (SciPy's only where it imports)."""
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

try:  # SciPy is optional (pip install fwdad[scipy])
    import scipy.special  # noqa: F401
except ImportError:
    HAS_SCIPY = False
else:
    HAS_SCIPY = True
    from fwdad.rules import (  # noqa: F401
        scipy_special, scipy_composed, scipy_logsumexp, scipy_linalg, scipy_spectral,
        scipy_sylvester, scipy_matrix_functions, scipy_roots, scipy_minimize, scipy_quad,
        scipy_integrate)
