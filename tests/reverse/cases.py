"""The reverse rule cases: one row per rrule (a primitive, its arguments, constants).

Every rrule must have a row here (tests/reverse/test_meta.py checks it); each row is
run through the dot-product test against forward mode and through test_varmat_matvar.
"""
from __future__ import annotations

import builtins
import copy
import math
import operator

import numpy as np

from fwdad import lang
from tests.reverse.case import POS, STACK, UNIT, V3, V4, A, B, Case  # noqa: F401
from tests.reverse.cases_api import API_CASES
from tests.reverse.cases_complex import COMPLEX_CASES
from tests.reverse.cases_fft import FFT_CASES
from tests.reverse.cases_numpy import NUMPY_CASES
from tests.reverse.cases_scipy import SCIPY_CASES
from tests.reverse.cases_scipy_optimize import SCIPY_OPTIMIZE_CASES


def _math_cases():
    unit = [math.asin, math.acos, math.atanh, math.erf, math.erfc, math.tanh, math.atan,
            math.sin, math.cos, math.tan, math.sinh, math.cosh, math.asinh, math.exp,
            math.expm1, math.degrees, math.radians, math.fabs]
    positive = [math.log1p, math.log2, math.log10, math.sqrt, math.lgamma, math.gamma,
                math.log]
    out = [Case(f, (0.37,)) for f in unit] + [Case(f, (1.7,)) for f in positive]
    out += [Case(math.acosh, (1.9,))]
    out += [Case(f, (0.6,)) for f in (getattr(math, "exp2", None),
                                      getattr(math, "cbrt", None)) if f is not None]
    out += [Case(math.log, (2.5, 3.0)), Case(math.pow, (1.3, 2.2)),
            Case(math.atan2, (0.4, -1.2)), Case(math.hypot, (0.3, 0.4, 1.2)),
            Case(math.copysign, (0.7, -2.0)), Case(math.fmod, (5.3, 1.7)),
            Case(math.remainder, (5.3, 1.7)), Case(math.ldexp, (0.7, 5)),
            Case(math.frexp, (-3.7,)), Case(math.modf, (2.7,)),
            Case(math.nextafter, (0.7, 2.0)),
            Case(divmod, (5.3, 1.7)), Case(divmod, (-5.3, 1.7)),
            Case(math.dist, ([0.3, 1.2, -0.5], [1.0, -0.4, 0.2]))]
    return out


def _ufunc_cases():
    unit = [np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh,
            np.tanh, np.exp, np.expm1, np.square, np.absolute, np.negative, np.positive]
    positive = [np.log, np.log1p, np.sqrt]
    out = [Case(f, (UNIT,)) for f in unit] + [Case(f, (POS,)) for f in positive]
    out += [Case(f, (POS, UNIT)) for f in (np.add, np.subtract, np.multiply,
                                           np.true_divide, np.power)]
    return out + [Case(np.add, (A, V4)), Case(np.multiply, (0.5, A))]


def _operator_cases():
    binary = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
              operator.mod]
    out = [Case(f, (1.3, 0.7)) for f in binary]
    out += [Case(f, (POS, POS[0])) for f in binary]
    out += [Case(f, (x,)) for f in (operator.neg, operator.pos, operator.abs)
            for x in (-0.8, UNIT)]
    out += [Case(operator.matmul, (A, B)), Case(operator.matmul, (A, V4)),
            Case(operator.matmul, (V3, A)), Case(operator.matmul, (V4, V4)),
            Case(operator.matmul, (STACK, B)),
            Case(operator.matmul, (A, STACK.transpose(0, 2, 1)))]
    return out


def _builtin_cases():
    return [Case(builtins.abs, (-1.5,)), Case(builtins.pow, (1.5, 2.5)),
            Case(builtins.float, (0.25,)), Case(builtins.sum, ([0.5, 1.5, 2.5],)),
            Case(builtins.max, (0.4, 1.1, -0.3)), Case(builtins.min, ([0.4, 1.1, -0.3],)),
            Case(builtins.sum, (V3,)), Case(builtins.max, (V3,))]


def _array_cases():
    return [Case(np.sum, (A,)), Case(np.sum, (A,), dict(axis=1)),
            Case(np.sum, (STACK,), dict(axis=(0, 2), keepdims=True)),
            Case(np.ndarray.sum, (A,), dict(axis=0)), Case(np.mean, (A,)),
            Case(np.mean, (A,), dict(axis=0)), Case(np.ndarray.mean, (A,), dict(axis=1)),
            Case(np.max, (A,), forward=False), Case(np.max, (A,), dict(axis=1),
                                                      forward=False),
            Case(np.amax, (A,), dict(axis=0), forward=False),
            Case(np.ndarray.max, (A,), forward=False),
            Case(np.min, (A,), dict(axis=0), forward=False),
            Case(np.amin, (A,), forward=False), Case(np.ndarray.min, (A,), forward=False),
            Case(np.matmul, (A, B)), Case(np.matmul, (STACK, V4)),
            Case(np.dot, (A, B)), Case(np.dot, (V4, V4)), Case(np.dot, (2.0, A)),
            Case(np.ndarray.dot, (A, B)),
            Case(np.array, ([0.5, 1.5, 2.5],)), Case(np.array, (A,)),
            Case(np.asarray, (A,)), Case(np.copy, (A,), forward=False),
            Case(np.ndarray.copy, (A,), forward=False),
            Case(np.transpose, (A,), forward=False),
            Case(np.ndarray.transpose, (A,), forward=False),
            Case(np.reshape, (A, (2, 6)), forward=False),
            Case(np.ndarray.reshape, (A, (4, 3)), forward=False),
            Case(np.ravel, (A.T,), forward=False),
            Case(np.ndarray.ravel, (A,), forward=False)]


def _index(x, key):
    return operator.getitem(x, key)


def _python_cases():
    key = lang.build_slice(1, None, None)
    return [Case(operator.getitem, (A, 1)), Case(operator.getitem, (A, (1, 2))),
            Case(operator.getitem, (A, (slice(None), key))),
            Case(operator.getitem, (A, ([0, 2, 2],))),
            Case(operator.getitem, ([0.5, 1.5], 1)),
            Case(lang.build_list, (0.5, V3)), Case(lang.build_tuple, (0.5, V3)),
            Case(lang.build_dict, ("a", 0.5, "b", V3)),
            Case(lang.unpack, (V3, 3), forward=False),
            Case(lang.unpack, ([0.1, 0.2, 0.3], 3, 1), forward=False),
            Case(getattr, (A, "T")),
            Case(copy.copy, (A,)), Case(copy.copy, ([0.5, V3],)),
            Case(copy.deepcopy, ([0.5, [V3, A]],)),
            Case(copy.deepcopy, ({"a": A, "b": (0.3, V3)},))]
# operator.setitem, list.append, setattr, delattr, delitem, build_set and the in-place
# operators mutate their arguments: tests/reverse/test_inplace.py has their rows.


CASES = (_math_cases() + _ufunc_cases() + _operator_cases() + _builtin_cases()
         + _array_cases() + _python_cases() + NUMPY_CASES + API_CASES + SCIPY_CASES
         + SCIPY_OPTIMIZE_CASES + COMPLEX_CASES + FFT_CASES)
