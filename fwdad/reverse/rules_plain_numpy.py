"""Reverse rules composed from plain-NumPy rewrites of NumPy's library code: the
functions that call a Python function per item or row (fwdad/rules/numpy_loops.py) and
the polynomial functions (fwdad/rules/polynomials.py), block, asarray_chkfinite and the
NaN-skipping quantiles (fwdad/rules/numpy_library.py). A call with variables runs the
derived reverse rule of the rewrite; one without runs NumPy's own."""
from __future__ import annotations

import itertools

import numpy as np

from fwdad.reverse.registry import composed_rrule, get_rrule, nondiff_rrule, raw_rrule
from fwdad.reverse.tracked import holds_variable
from fwdad.rules import numpy_library, numpy_loops, polynomials

composed_rrule(np.apply_along_axis)(numpy_loops.apply_along_axis)
composed_rrule(np.apply_over_axes)(numpy_loops.apply_over_axes)
composed_rrule(np.fromfunction)(numpy_loops.fromfunction)
composed_rrule(np.ndenumerate)(numpy_loops.ndenumerate)
composed_rrule(np.vectorize.__call__)(numpy_loops.vectorized_call)
nondiff_rrule(np.vectorize)  # (the object: pyfunc is called by the rule above)
for _numpy_fn, _plain in {**polynomials.PLAIN, **numpy_library.PLAIN}.items():
    composed_rrule(_numpy_fn)(_plain)


@raw_rrule(polynomials.fixed_zeros)
def _fixed_zeros(call, zeros):
    """Leading zeros np.poly1d drops: refused where they are variables (their gradient
    would need the longer result of a nearby point)."""
    if holds_variable(zeros):
        polynomials.refuse_moving_zeros(call)


composed_rrule(np.fromiter)(numpy_loops.fromiter)
_fromiter_of_items = get_rrule(np.fromiter)


@raw_rrule(np.fromiter)
def _fromiter(iterable, dtype, count=-1, **kwargs):
    """An iterator shows whether it yields variables only when read: read it first."""
    items = list(iterable) if count < 0 else list(itertools.islice(iterable, count))
    return _fromiter_of_items(items, dtype, count, **kwargs)
