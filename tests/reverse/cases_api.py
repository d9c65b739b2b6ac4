"""The reverse rule cases for statistics, sequences, NumPy 2's array-API names, spaced
samples and the methods of NumPy scalars. One Case per row, run like the rows of
cases.py (the dot-product test against forward mode, and varmat against matvar)."""
from __future__ import annotations

import numpy as np

from fwdad.rules.sinc import sinc_derivative
from tests.reverse.case import STACK, V3, V4, A, B, Case
from tests.reverse.cases_numpy import NANS, SQUARE, SQUARES, ZEROS
from tests.rules import loop_cases as loops

V5 = np.array([-1.1, -0.4, 0.3, 1.0, 1.7])
KNOTS = np.array([0.0, 1.0, 2.5, 3.0])
AT = np.array([-0.5, 0.3, 1.0, 2.7, 3.5, 3.0])  # outside, inside, on knots
SINC = np.array([0.0, 0.5, -1.2])
INFS = np.array([0.5, np.nan, np.inf, -1.2, -np.inf])
_P = np.array([[1.0, 0.3, -0.2], [0.1, 1.2, 0.4], [-0.3, 0.2, 0.9]])
REAL = _P @ np.diag([1.0, 2.5, -1.5]) @ np.linalg.inv(_P)  # real, distinct eigenvalues
REALS = np.stack([REAL, REAL.T + 0.1])
# NumPy 2.5 and later give real eigenvalues complex: the matvar layout carries no
# complex arrays, so its comparison with varmat is left to the NumPys that give them real
_REAL_EIG = not np.iscomplexobj(np.linalg.eigvals(REAL))
MASK = A > 0.2
COORDINATES = np.array([0.0, 0.5, 1.5, 1.75])  # of np.gradient: a constant


def _statistics_cases():
    return [Case(np.average, (A,), dict(axis=1)), Case(np.average, (A, 1, V4 + 3.0)),
            Case(np.average, (A, (0, 1), A + 3.0, True)),
            Case(np.quantile, (A, 0.3)), Case(np.quantile, (A, np.array([0.2, 0.9]), 1),
                                               dict(keepdims=True)),
            Case(np.quantile, (STACK, np.array([[0.0, 1.0], [0.5, 0.25]])),
                 dict(axis=(0, 2))),
            Case(np.percentile, (STACK, np.array([20.0, 75.0]), 0)),
            Case(np.percentile, (V4, 40.0)),
            Case(np.percentile, (A, [10.0, 75.0]), dict(axis=1)),  # (q: a list of variables)
            Case(np.nanprod, (NANS,), dict(axis=1), varmat=False),
            Case(np.nanprod, (ZEROS,)), Case(np.nancumsum, (NANS,), varmat=False),
            Case(np.nancumprod, (NANS,), dict(axis=1), varmat=False),
            Case(np.nanvar, (NANS,), dict(axis=1, ddof=1), varmat=False),
            Case(np.nanvar, (A,), dict(axis=0, keepdims=True)),
            Case(np.nanstd, (NANS,), varmat=False), Case(np.nanstd, (STACK,), dict(axis=2)),
            Case(np.cumulative_sum, (A,), dict(axis=1, include_initial=True)),
            Case(np.cumulative_sum, (V4,)), Case(np.cumulative_prod, (ZEROS,),
                                                  dict(axis=0)),
            Case(np.cumulative_prod, (V4,), dict(include_initial=True)),
            Case(np.cov, (A,)), Case(np.cov, (B, B + 1.0), dict(rowvar=False)),
            Case(np.cov, (V4,), dict(bias=True)), Case(np.cov, (A, V4), dict(ddof=2)),
            Case(np.corrcoef, (A,)), Case(np.corrcoef, (V4, V4 ** 2)),
            Case(np.corrcoef, (B,), dict(rowvar=False))]


def gradient_spaced(f):
    return np.gradient(f, 0.5, COORDINATES, edge_order=2)


def gradient_two_axes(f):
    return np.gradient(f, 1.0, 2.0, axis=(0, 2))


def interp(x, fp, *ends):
    """At the knots KNOTS (constants: reverse mode differentiates interp in x, fp and
    the ends only)."""
    return np.interp(x, KNOTS, fp, *ends)


def interp_periodic(x, fp):
    return np.interp(x, [350.0, 10.0, 90.0, 180.0], fp, period=360.0)


def interp_periodic_list(x, fp):
    """fp a list holding variables (np.asarray of it: an unclear error before)."""
    return np.interp(x, [350.0, 10.0, 90.0, 180.0], [fp[0], 2.0, fp[1], fp[2]], period=360.0)


def _sequence_cases():
    out = [Case(np.ediff1d, (A,)), Case(np.ediff1d, (V4,), dict(to_end=[1.0, 2.0],
                                                                 to_begin=-3.0)),
           # variables in to_end and to_begin, and a scalar one: a matvar among VarMats
           Case(np.ediff1d, (V4, V3[:2], 0.5)), Case(np.ravel, (0.5,)),
           Case(np.atleast_2d, (0.5,)),
           Case(np.gradient, (V4,)), Case(np.gradient, (A,), dict(edge_order=2)),
           Case(gradient_spaced, (A,)), Case(gradient_two_axes, (STACK,)),
           Case(np.trapezoid, (A,)), Case(np.trapezoid, (A, np.cumsum(V4 ** 2))),
           Case(np.trapezoid, (A,), dict(dx=0.3, axis=0)),
           Case(np.trapezoid, (A, A * 0.5)),
           Case(np.trapezoid, (A, A * 0.5), dict(axis=0)),
           Case(np.cross, (A[:, :3], A[:, 1:] * 2.0)), Case(np.cross, (V3, A.T)),
           Case(np.cross, (A[:, :2], V3), dict(axisa=0, axisc=0)),
           Case(np.cross, (STACK[..., :3], STACK[..., 1:]), dict(axis=1))]
    for mode in ("full", "same", "valid"):
        out += [Case(np.convolve, (x, y, mode)) for x, y in ((V5, V3), (V3, V5), (V4, V4))]
        out += [Case(np.correlate, (x, y, mode)) for x, y in ((V5, V4), (V4, V5), (V3, V3))]
    out += [Case(np.polyval, (V4, A)), Case(np.polyval, (V4, 0.7)),
            Case(np.polyval, ([1.0, 2.0, 0.5], V3)),
            Case(interp, (AT, V4)), Case(interp, (AT, V4, 0.3, 1.2)), Case(interp, (1.7, V4)),
            Case(interp_periodic, (np.array([-20.0, 5.0, 100.0, 400.0, 720.0]), V4)),
            Case(interp_periodic_list, (np.array([-20.0, 5.0, 100.0, 400.0]), V4)),
            Case(np.vander, (V4,)), Case(np.vander, (SINC, 4, True)),
            Case(np.sinc, (SINC,)), Case(np.sinc, (0.3,)),
            Case(sinc_derivative, (2, SINC)), Case(sinc_derivative, (1, SINC * 3.0)),
            Case(np.nan_to_num, (INFS,), dict(nan=2.0), varmat=False),
            Case(np.angle, (A,)), Case(np.angle, (-0.5,), dict(deg=True)),
            Case(np.radians, (A,)), Case(np.degrees, (A,))]
    return out


def _array_api_cases():
    return [Case(np.linalg.matmul, (A, B)), Case(np.linalg.outer, (V3, V4)),
            Case(np.linalg.tensordot, (A, B), dict(axes=1)),
            Case(np.linalg.trace, (STACK,)), Case(np.linalg.trace, (A,), dict(offset=1)),
            Case(np.linalg.diagonal, (STACK,)), Case(np.linalg.matrix_transpose, (STACK,)),
            Case(np.matrix_transpose, (A,)), Case(np.astype, (A, np.float64)),
            Case(np.ndarray.conj, (A,)), Case(np.ndarray.conjugate, (V4,)),
            Case(np.linalg.cross, (A[:, :3], A[:, 1:] * 2.0)),
            Case(np.linalg.matrix_norm, (STACK,)),
            Case(np.linalg.matrix_norm, (A,), dict(ord="nuc")),
            Case(np.linalg.svdvals, (STACK,)), Case(np.vecdot, (A, V4)),
            Case(np.linalg.vecdot, (A, A * 2.0), dict(axis=0)),
            Case(np.matvec, (STACK, V4)), Case(np.vecmat, (V3, STACK)),
            Case(np.linalg.vector_norm, (STACK,)),
            Case(np.linalg.vector_norm, (STACK,), dict(axis=(0, 2), keepdims=True)),
            Case(np.linalg.vector_norm, (A,), dict(axis=1, ord=3)),
            Case(np.linalg.cond, (SQUARE,)), Case(np.linalg.cond, (SQUARES, -2)),
            Case(np.linalg.cond, (SQUARE, "fro")), Case(np.linalg.cond, (SQUARE, 1)),
            Case(np.linalg.eigvals, (REAL,), varmat=_REAL_EIG),
            Case(np.linalg.eigvals, (REALS,), varmat=_REAL_EIG),
            Case(np.linalg.eig, (REAL,), varmat=_REAL_EIG),
            Case(np.linalg.eig, (REALS,), varmat=_REAL_EIG),
            Case(np.compress, ([True, False, True], A), dict(axis=0)),
            Case(np.compress, ([False, True], A)),
            Case(np.ndarray.compress, (A, [True, False, True]), dict(axis=0)),
            Case(np.extract, (MASK, A)),
            Case(np.select, ([MASK, A < -0.5], [A, A * 3.0], 0.25)),
            Case(np.select, ([MASK, A < -0.5], [A, V4], 0.3)),
            Case(np.choose, (MASK.astype(int), [A, A * 3.0])),
            Case(np.choose, ([0, 2, 5, -1], [V4, 0.5, V4 * V4]), dict(mode="wrap")),
            Case(np.choose, ([0, 2, 5, -1], [A, V4]), dict(mode="clip")),
            Case(np.piecewise, (A, [A < 0, A >= 0], [np.square, np.sin])),
            Case(np.piecewise, (V4, [V4 < 0.5], [np.cos, 0.25])),
            Case(loops.cumsums_down, (A,)), Case(loops.outers_of_rows, (A,)),
            Case(loops.summed_over_both, (A,)), Case(loops.waves, (A,)),
            Case(loops.pairs, (A, V4)), Case(loops.squares_from_an_iterator, (V4,)),
            Case(loops.grid_of, (V4,)), Case(loops.enumerated, (A,)),
            Case(np.polyadd, (V4, V3[:2])), Case(np.polysub, (V3[:2], V4)),
            Case(np.polysub, (V4, 0.5)), Case(np.polyadd, (0.5, V4)),
            Case(np.roots, (np.array([1.0, 0.0, -7.0, 6.0]),)),
            # complex roots: the varmat layout only (docs/complex.md)
            Case(np.roots, (np.array([1.0, 0.5, 2.0, -1.0]),), varmat=False),
            Case(np.roots, (np.array([1.0 + 0.5j, -3.0, 2.0 - 1.0j]),), varmat=False),
            Case(np.polymul, (V4, V3)), Case(np.polydiv, (V4, V3)),
            Case(np.polydiv, (V3, V4)), Case(np.polyder, (V4, 2)), Case(np.polyint, (V4,)),
            Case(np.polyint, (V4, 2), dict(k=[0.5, 1.0])), Case(np.poly, (V3,)),
            Case(np.polyfit, (V4 * 3.0, V4 * V4, 2)),
            Case(np.block, ([[A, A * 2.0], [A[:1], A[1:2]]],)), Case(np.block, ([V4, V3],)),
            Case(np.asarray_chkfinite, (A,)), Case(np.nanmedian, (A,), dict(axis=1)),
            Case(np.nanquantile, (A, [0.2, 0.7]), dict(axis=0)),
            Case(np.nanpercentile, (A, 40.0)),
            Case(np.unwrap, (A * 5.0,)), Case(np.ndarray.view, (A,)),
            Case(np.ndarray.view, (A, np.int64)),
            Case(np.logspace, (0.3, 1.2, 5)),
            Case(np.logspace, (V3, V3 + 1.0, 4), dict(base=2.0, endpoint=False)),
            Case(np.geomspace, (0.3, 1.2, 5)),
            Case(np.geomspace, (-np.abs(V3) - 1.0, -np.abs(V3) - 2.0, 4), dict(axis=1)),
            Case(np.linspace, (0.3, 1.2, 5)),
            Case(np.linspace, (V3, V3 + 2.0, 4), dict(endpoint=False, axis=1)),
            Case(np.linspace, (V3, 2.0, 4), dict(retstep=True)),
            Case(np.arange, (0.3, 3.0, 0.7)), Case(np.arange, (0.3, 3.0))]


def place(a, v):
    b = a * 1.0
    np.place(b, b > 0.2, v)
    return b * a


def putmask(a, v):
    b = a * 1.0
    np.putmask(b, b > 0.2, v)
    return b * a


def nan_to_num_in_place(a):
    b = a.copy()
    np.nan_to_num(b, copy=False)
    return b + 1.0


def scalar_methods(a):
    s = np.sum(a)
    t = s.clip(-10.0, 10.0) + s.sum() + s.mean() + s.max() + s.min() + s.prod() + s.copy()
    u = s.astype(float) + s.conj() + s.conjugate() + s.cumsum()[0] + s.cumprod()[0]
    v = s.flatten()[0] + s.item() + s.ravel()[0] + s.repeat(2)[1] + s.reshape(1)[0]
    return t + u + v + s.squeeze() + s.take(0) + s.tolist() + s.transpose() * s


def scalar_clip(a, low):
    return np.max(a).clip(low, 0.5) + np.min(a).clip(low, 0.5)


def _scalar_method_cases():
    methods = ("sum", "mean", "prod", "max", "min", "copy", "conj", "conjugate",
               "ravel", "flatten", "cumsum", "cumprod", "squeeze", "transpose", "item",
               "tolist")
    out = [Case(getattr(np.generic, m), (np.float64(0.7),)) for m in methods]
    return out + [Case(np.generic.clip, (np.float64(0.7), -0.5, 0.5)),
                  Case(np.generic.clip, (np.float64(0.7), 0.2, 0.4)),
                  Case(np.generic.astype, (np.float64(0.7), float)),
                  Case(np.generic.reshape, (np.float64(0.7), (1, 1))),
                  Case(np.generic.repeat, (np.float64(0.7), 3)),
                  Case(np.generic.take, (np.float64(0.7), [0, 0]))]


API_CASES = (_statistics_cases() + _sequence_cases() + _array_api_cases()
             + _scalar_method_cases()
             + [Case(place, (A, V3)), Case(putmask, (A, V3)),
                Case(nan_to_num_in_place, (INFS,), varmat=False),
                Case(scalar_methods, (A,)), Case(scalar_clip, (V4, 0.1))])
API_COVERS = [np.place, np.putmask, np.gradient, np.interp,
              # (by the functions of tests/rules/loop_cases.py above: test_rule and the
              # varmat tests compare arguments, and a function or np.vectorize is one)
              np.apply_along_axis, np.apply_over_axes, np.vectorize.__call__, np.fromiter,
              np.fromfunction, np.ndenumerate]
