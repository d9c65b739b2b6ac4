"""Which plain parameters of fwdad's rules may drop the tangent of their argument, and
which refuse one: the table the Adapter (rules/plain_params.py) reads when it wraps a
rule, and tests/rules/test_dropped_tangents.py checks against the registry.

A rule's plain parameter receives the primal only. DROPPED names those whose tangent
the result does not depend on: an axis, a dtype, a flag, indices or a mask, a
tolerance used as a threshold, a prototype whose values are ignored, a solver's start
or bracket (the solution does not move with it), `out` (overwritten). REFUSED names
those the result does depend on, which fwdad does not differentiate: a call whose
argument there has a non-zero tangent is refused at the user's line. Any plain
parameter on neither list (a user's rule, a rule added later) is checked as REFUSED.

Keys are `module.qualname` of the rule as written; "*" stands for its *args and "**"
for the keywords its **kwargs takes (a name listed beside "**" is one of those).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet

_SOLVER = "x0 x1 a b bracket method jac hess hessp fprime fprime2 tol rtol xtol maxiter " \
          "callback options disp full_output"
_LAPACK = "check_finite overwrite_a overwrite_b lower trans unit_diagonal driver " \
          "lapack_driver"

DROPPED: Dict[str, str] = {
    # fwdad's own machinery (nested derivatives, fields, objects)
    "fwdad.higher._directional": "self",
    "fwdad.nesting._grad": "argnums holomorphic",
    "fwdad.nesting._hessian": "argnums chunk_size memory_budget progress",
    "fwdad.nesting._jacfwd": "argnums chunk_size executor memory_budget progress",
    "fwdad.nesting._jacrev": "argnums progress",
    "fwdad.nesting._value_and_grad": "argnums holomorphic",
    "fwdad.over_reverse_rules._blank": "cls",
    "fwdad.over_reverse_rules._read_field": "name",
    "fwdad.over_reverse_rules._selected": "mask",
    "fwdad.over_reverse_rules._unpack": "count star",
    "fwdad.over_reverse_rules._write_field": "name",
    "fwdad.rules.classes._super": "cls",
    "fwdad.rules.copies._deepcopy": "memo",
    "fwdad.rules.objects._delattr": "name",
    "fwdad.rules.objects.get_attribute": "name",
    "fwdad.rules.objects.getattr_rule": "name",
    "fwdad.rules.objects.set_attribute": "name",
    "fwdad.rules.objects.setattr_rule": "name",
    "fwdad.sparsity.unknown._taken_out.<locals>.rule": "*",  # (.item's index)
    # keys, indices, counts, flags of Python's containers and builtins
    "fwdad.rules.builtins_._builtin_pow": "mod",
    "fwdad.rules.containers._dict_pop": "key",
    "fwdad.rules.containers._get": "key",
    "fwdad.rules.containers._insert": "index",
    "fwdad.rules.containers._list_pop": "index",
    "fwdad.rules.containers._setdefault": "key",
    "fwdad.rules.containers._sort": "key reverse",
    "fwdad.rules.indexing._delitem": "index",
    "fwdad.rules.indexing._put_along_axis": "axis indices",
    "fwdad.rules.indexing.getitem_rule": "index",
    "fwdad.rules.indexing.setitem_rule": "index",
    "fwdad.rules.iteration._enumerate": "start",
    "fwdad.rules.iteration._repeat": "times",
    "fwdad.rules.iteration._sorted": "key reverse",
    "fwdad.rules.iteration._zip": "strict",
    "fwdad.rules.mathfns._ldexp": "exponent",  # (an int)
    "fwdad.rules.polynomials._fixed_zeros": "call",  # (the name of the NumPy function)
    # masks, conditions and index arrays: discrete
    "fwdad.rules.array_api._choose": "a mode",
    "fwdad.rules.array_api._compress": "axis condition",
    "fwdad.rules.array_api._extract": "condition",
    "fwdad.rules.array_api._place": "mask",
    "fwdad.rules.array_api._putmask": "mask",
    "fwdad.rules.array_api._select": "condlist",
    "fwdad.rules.ndarray_methods._copyto": "casting where",
    "fwdad.rules.ndarray_methods._fill_diagonal": "wrap",
    "fwdad.rules.ndarray_methods._item": "*",
    "fwdad.rules.ndarray_methods._put": "ind mode",
    "fwdad.rules.ufuncs._where": "condition",
    "fwdad.rules.counting._bincount": "minlength x",
    "fwdad.rules.counting._unique_rule.<locals>.rule": "* **",
    "fwdad.rules.shapes._take_along_axis": "axis indices",
    "fwdad.rules.padding._append": "axis",
    "fwdad.rules.padding._insert": "axis obj",
    # shapes, axes, dtypes, orders, modes
    "fwdad.rules.array_api._cross": "axis",
    "fwdad.rules.array_api._vecdot": "axis",
    "fwdad.rules.array_api._view": "* **",
    "fwdad.rules.array_api._unwrap": "axis discont",  # (discont: a threshold)
    "fwdad.rules.array_api._geomspace": "axis dtype endpoint num",
    "fwdad.rules.array_api._logspace": "axis dtype endpoint num",
    "fwdad.rules.shapes._joining_rule.<locals>.rule": "* **",
    "fwdad.rules.shapes._linear_rule.<locals>.rule": "* **",
    "fwdad.rules.shapes._splitting_rule.<locals>.rule": "* **",
    "fwdad.rules.shapes._spreading_rule.<locals>.rule": "**",
    "fwdad.rules.creation._arange": "dtype",
    "fwdad.rules.creation._as_array.<locals>.rule": "** dtype",
    "fwdad.rules.creation._copy": "order subok",
    "fwdad.rules.creation._full": "** dtype shape",
    "fwdad.rules.creation._full_like": "** a dtype",  # (a: the prototype, its values unread)
    "fwdad.rules.creation._method_copy": "order",
    "fwdad.rules.creation.array_rule": "** dtype",
    "fwdad.rules.creation.astype_rule": "* ** dtype",
    "fwdad.rules.creation.linspace_rule": "** axis dtype endpoint num retstep",
    "fwdad.rules.linalg._diag": "k",
    "fwdad.rules.linalg._einsum": "**",
    "fwdad.rules.linalg._multi_dot": "**",
    "fwdad.rules.linalg._trace": "axis1 axis2 dtype offset",
    "fwdad.rules.linalg.tensordot_rule": "axes",
    "fwdad.rules.differences._average": "axis keepdims returned",
    "fwdad.rules.differences._convolve": "mode",
    "fwdad.rules.differences._correlate": "mode",
    "fwdad.rules.differences._cross": "**",
    "fwdad.rules.differences._diff": "axis n",
    "fwdad.rules.differences._gradient": "**",
    "fwdad.rules.differences._nan_to_num": "copy",
    "fwdad.rules.differences._trapezoid": "axis",
    "fwdad.rules.padding._pad": "** mode pad_width",  # (stat_length=, reflect_type=)
    "fwdad.rules.fft._along_axis.<locals>.rule": "axis n norm",
    "fwdad.rules.fft._frequencies.<locals>.rule": "device n",
    "fwdad.rules.fft._over_axes.<locals>.rule": "axes norm s",
    "fwdad.rules.fft._shifting.<locals>.rule": "axes",
    "fwdad.rules.reductions._mean": "axis dtype keepdims where",
    "fwdad.rules.reductions._median": "axis keepdims",
    "fwdad.rules.reductions._nan_reduction.<locals>.rule": "axis dtype keepdims",
    "fwdad.rules.reductions._ptp": "axis keepdims",
    "fwdad.rules.reductions._sort": "** axis kind order",
    "fwdad.rules.reductions._sort_in_place": "axis kind order",
    "fwdad.rules.reductions._std": "axis dtype keepdims",
    "fwdad.rules.reductions._var": "axis dtype keepdims",
    "fwdad.rules.reductions.cumprod_rule": "axis dtype",
    "fwdad.rules.reductions.cumsum_rule": "axis dtype",
    "fwdad.rules.reductions.extreme_rule.<locals>.rule": "axis keepdims where",
    "fwdad.rules.reductions.prod_rule": "axis dtype keepdims where",
    "fwdad.rules.reductions.sum_rule": "axis dtype keepdims where",
    "fwdad.rules.reordering._partition": "axis kind kth order",
    "fwdad.rules.statistics._corrcoef": "rowvar",
    "fwdad.rules.statistics._cov": "bias rowvar",
    "fwdad.rules.statistics._cumulative.<locals>.cumulative": "axis dtype include_initial out",
    "fwdad.rules.statistics._nancumprod": "axis dtype",
    "fwdad.rules.statistics._nancumsum": "axis dtype",
    "fwdad.rules.statistics._nanprod": "axis dtype keepdims",
    "fwdad.rules.statistics._nanstd": "axis dtype keepdims",
    "fwdad.rules.statistics._nanvar": "axis dtype keepdims",
    # (weights: only with method='inverted_cdf', which picks a sample: refused anyway)
    "fwdad.rules.statistics._percentile": "** axis keepdims method out overwrite_input",
    "fwdad.rules.statistics._quantile": "** axis keepdims method out overwrite_input",
    "fwdad.rules.ufunc_methods._accumulate": "axis dtype out ufunc",
    "fwdad.rules.ufunc_methods._at": "indices ufunc",
    "fwdad.rules.ufunc_methods._outer": "** ufunc",
    "fwdad.rules.ufunc_methods._reduce": "axis dtype keepdims out ufunc where",
    "fwdad.rules.ufunc_methods._reduceat": "axis dtype indices out ufunc",
    "fwdad.rules.ufuncs._angle": "deg",
    "fwdad.rules.ufuncs._clip": "**",  # (out, where, dtype, casting ...)
    "fwdad.rules.ufuncs._register.<locals>.rule": "**",
    "fwdad.rules.scipy_special._register.<locals>.rule": "**",
    "fwdad.rules.scipy_special._softplus": "**",
    "fwdad.rules.scipy_composed._agm": "**",
    "fwdad.rules.scipy_logsumexp._log_softmax": "axis",
    "fwdad.rules.scipy_logsumexp._logsumexp": "axis keepdims return_sign",
    "fwdad.rules.scipy_logsumexp._softmax": "axis",
    # matrix norms' ord and cond's p pick a norm (1, 2, inf, 'fro', 'nuc'): discrete
    "fwdad.rules.array_api._cond": "p",
    "fwdad.rules.array_api._matrix_norm": "keepdims ord",
    "fwdad.rules.array_api._vector_norm": "axis keepdims",
    "fwdad.rules.norms._norm": "axis keepdims",
    # flags, and tolerances used as thresholds (a cutoff for small singular values)
    "fwdad.rules.ufuncs._real_if_close": "tol",
    "fwdad.rules.scipy_special._lambertw": "k tol",
    "fwdad.rules.decompositions._cholesky": "upper",
    "fwdad.rules.decompositions._eigh": "UPLO",
    "fwdad.rules.decompositions._eigvalsh": "UPLO",
    "fwdad.rules.decompositions._lstsq": "rcond",
    "fwdad.rules.decompositions._matrix_power": "n",
    "fwdad.rules.decompositions._pinv": "** hermitian rcond",
    "fwdad.rules.decompositions._qr": "mode",
    "fwdad.rules.decompositions._vander": "N increasing",
    "fwdad.rules.decompositions.svd_rule": "compute_uv full_matrices hermitian",
    "fwdad.rules.scipy_linalg._cho_factor": _LAPACK,
    "fwdad.rules.scipy_linalg._cho_solve": _LAPACK,
    "fwdad.rules.scipy_linalg._cholesky": _LAPACK,
    "fwdad.rules.scipy_linalg._det": _LAPACK,
    "fwdad.rules.scipy_linalg._expm_frechet": "check_finite compute_expm method",
    "fwdad.rules.scipy_linalg._inv": "** " + _LAPACK,
    "fwdad.rules.scipy_linalg._lu_factor": _LAPACK,
    "fwdad.rules.scipy_linalg._lu_solve": _LAPACK,
    "fwdad.rules.scipy_linalg._solve": "assume_a transposed " + _LAPACK,
    "fwdad.rules.scipy_linalg._solve_triangular": _LAPACK,
    "fwdad.rules.scipy_matrix_functions._logm": "**",
    "fwdad.rules.scipy_matrix_functions._sqrtm": "**",
    # (b: the generalized problem, which the rules refuse when b is given)
    "fwdad.rules.scipy_spectral._eigh": "b eigvals_only overwrite_b subset_by_index "
                                        "subset_by_value type " + _LAPACK,
    "fwdad.rules.scipy_spectral._eigvalsh": "b overwrite_b subset_by_index subset_by_value "
                                            "type " + _LAPACK,
    "fwdad.rules.scipy_spectral._svd": "compute_uv full_matrices " + _LAPACK,
    "fwdad.rules.scipy_spectral._svdvals": _LAPACK,
    # solvers: the solution does not move with the start, bracket or tolerances; bounds
    # and constraints are refused where active, a weight and a loss where given
    "fwdad.rules.scipy_integrate._odeint": "** Dfun col_deriv full_output tfirst",
    "fwdad.rules.scipy_integrate._solve_ivp": "** dense_output events method vectorized",
    "fwdad.rules.scipy_minimize._least_squares": "* ** bounds kwargs loss " + _SOLVER,
    "fwdad.rules.scipy_minimize._minimize": "bounds constraints " + _SOLVER,
    "fwdad.rules.scipy_quad._quad": "* ** epsabs epsrel full_output limit points weight",
    "fwdad.rules.scipy_roots._bracketing.<locals>.rule": "* ** " + _SOLVER,
    "fwdad.rules.scipy_roots._fsolve": "* ** " + _SOLVER,
    "fwdad.rules.scipy_roots._newton": _SOLVER,
    "fwdad.rules.scipy_roots._root": _SOLVER,
    "fwdad.rules.scipy_roots._root_scalar": _SOLVER,
    "fwdad.rules.implicit.first_order_only.<locals>.mark.<locals>.refuse_second_order":
        "* **",  # (refuses every call)
    "fwdad.sparsity.session._nested_derivative": "* **",  # (refuses every call)
    # draws (rules/random_.py): constants, but not their parameters (refused)
    "fwdad.rules.random_._shuffle_rule.<locals>.rule": "axis",
}

# The result depends on these, and fwdad does not differentiate them: a non-zero
# tangent there is refused.
REFUSED: Dict[str, str] = {
    "fwdad.rules.statistics._cov": "ddof",
    "fwdad.rules.creation._arange": "**",  # (like=, device=; start=, step= are Duals)
    "fwdad.rules.differences._nan_to_num": "nan posinf neginf",  # (the fill values)
    "fwdad.rules.registry._linear_rule.<locals>.linear": "* **",  # (def_linear: in x only)
}


def key_of(rule: Callable[..., Any]) -> str:
    """The table's key of a rule: `module.qualname`."""
    return f"{getattr(rule, '__module__', '')}.{getattr(rule, '__qualname__', '')}"


def dropped_by(rule: Callable[..., Any]) -> FrozenSet[str]:
    """The plain parameters of `rule` whose tangent may be dropped."""
    return frozenset(DROPPED.get(key_of(rule), "").split())
