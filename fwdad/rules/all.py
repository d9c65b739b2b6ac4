"""Imports every rule module, which registers its rules."""
from fwdad.rules import (  # noqa: F401  (imported for their registrations)
    operators, containers, mathfns, builtins_, ufuncs, reductions, counting, linalg,
    indexing, objects, creation, iteration, classes, norms, ufunc_methods, shapes, padding,
    random_, ndarray_methods, decompositions, differences, statistics, array_api, contexts,
    outputs,  # after the others: it wraps rules registered above
    scalar_methods)  # after outputs: scalar methods take out= as array methods do
