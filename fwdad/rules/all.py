"""Imports every rule module, which registers its rules (SciPy's only where it imports)."""
from fwdad.rules import (  # noqa: F401  (imported for their registrations)
    array_api,
    builtins_,
    classes,
    containers,
    contexts,
    counting,
    creation,
    decompositions,
    differences,
    indexing,
    iteration,
    linalg,
    mathfns,
    ndarray_methods,
    norms,
    objects,
    operators,
    outputs,  # after the others: it wraps rules registered above
    padding,
    random_,
    reductions,
    scalar_methods,  # after outputs: scalar methods take out= as array methods do
    shapes,
    statistics,
    ufunc_methods,
    ufuncs,
)

try:  # SciPy is optional (pip install fwdad[scipy])
    import scipy.special  # noqa: F401
except ImportError:
    HAS_SCIPY = False
else:
    HAS_SCIPY = True
    from fwdad.rules import scipy_linalg, scipy_logsumexp, scipy_special  # noqa: F401
