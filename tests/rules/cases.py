"""The case tables of the registered rules: one row (at least) per primitive.

A row is `Case(fn, *args, domain=..., batch=3, rtol=1e-6, **kwargs)`: `test_rule(fn,
*args, batch=batch, **kwargs)` checks it (with a larger finite-difference step when
`rtol` is loosened, for float32 and float16 results), and the random tests draw fresh
arguments from `domain` (one Domain for every argument, or a tuple with one per argument). The
coverage meta-test fails for any registered primitive that has no row here.
"""
from __future__ import annotations

import copy
import functools
import io
import itertools
import math
import operator
import os
import threading
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from fwdad import lang
from fwdad.testing.strategies import (
    ABOVE_MINUS_ONE,
    ABOVE_ONE,
    DIVISOR,
    FRACTION,
    GAMMA_POSITIVE,
    NONZERO,
    POSITIVE,
    REAL,
    TAN_PERIOD,
    UNIT_OPEN,
)
from tests.rules.case import (  # noqa: F401
    C3,
    M23,
    M32,
    M34,
    MASK3,
    MASK23,
    POS3,
    S22,
    T223,
    UNCOMPARABLE,
    V3,
    W3,
    Case,
    unwrap,
    xfail,
)


class Point:
    """A small user class, for the attribute rules."""

    def __init__(self, x: float, y: float) -> None:
        self.x, self.y = x, y

    def __repr__(self) -> str:
        return f"Point({self.x!r}, {self.y!r})"

    @property
    def norm(self) -> float:
        return math.sqrt(self.x * self.x + self.y * self.y)


# ---- operator: arithmetic ----------------------------------------------------------
ARITHMETIC_CASES = [
    Case(operator.add, 0.3, -1.2), Case(operator.add, M23, V3), Case(operator.add, 0.3, V3),
    Case(operator.sub, 0.3, -1.2), Case(operator.sub, V3, M23),
    Case(operator.mul, 0.3, -1.2), Case(operator.mul, M23, V3), Case(operator.mul, 2.0, V3),
    Case(operator.truediv, 0.3, -1.2, domain=(REAL, NONZERO)),
    Case(operator.truediv, M23, POS3),
    Case(operator.pow, 1.3, 2.5, domain=(POSITIVE, REAL)), Case(operator.pow, POS3, 2.5),
    Case(operator.pow, POS3, V3), Case(operator.pow, 1.3, V3), Case(operator.pow, -1.3, 2),
    Case(operator.pow, V3, 2), Case(operator.pow, 1.3, 0.0),
    Case(operator.mod, 0.3, 1.7, domain=(FRACTION, DIVISOR)), Case(operator.mod, 5.3, 2.0),
    Case(operator.mod, -5.3, 2.0), Case(operator.mod, M23, 0.45),
    Case(divmod, 0.3, 1.7, domain=(FRACTION, DIVISOR)), Case(divmod, 5.3, 2.0),
    Case(divmod, -5.3, 2.0), Case(divmod, M23, 0.45),
    Case(np.add, 0.3, -1.2), Case(np.add, M23, V3),
    Case(np.subtract, 0.3, -1.2), Case(np.subtract, V3, M23),
    Case(np.multiply, 0.3, -1.2), Case(np.multiply, M23, V3),
    Case(np.divide, 0.3, -1.2, domain=(REAL, NONZERO)), Case(np.divide, M23, POS3),
    Case(np.power, 1.3, 2.5, domain=(POSITIVE, REAL)), Case(np.power, POS3, V3),
    # complex powers: the exponent's term has the principal log, log|x| + i arg x
    Case(operator.pow, C3, 2.5), Case(operator.pow, C3, C3[::-1]), Case(operator.pow, W3, C3),
    Case(operator.pow, 0.3 + 1.1j, 0.7), Case(operator.pow, -2.0, 0.5 + 0.3j),
    Case(operator.pow, -2.0, 0.5),  # Python floats: a complex result
    Case(np.power, C3, W3), Case(np.power, W3, C3 + 0.5),
]

OPERATOR_CASES = [
    Case(operator.neg, 0.3), Case(operator.neg, M23),
    Case(operator.pos, 0.3), Case(operator.pos, M23),
    Case(operator.abs, -1.3, domain=NONZERO), Case(operator.abs, M23),
    Case(operator.matmul, M23, M34), Case(operator.matmul, M23, V3),
    Case(operator.matmul, V3, W3), Case(operator.matmul, V3, M32),
    Case(operator.floordiv, 5.3, 2.0), Case(operator.floordiv, M23, 0.45),
]

# ---- operator: in place (`a op= b`) ----------------------------------------------
INPLACE_CASES = [
    Case(operator.iadd, 0.3, -1.2), Case(operator.iadd, M23, V3),
    Case(operator.iadd, [0.3, 1.2], [-0.5]),
    Case(operator.isub, 0.3, -1.2), Case(operator.isub, M23, V3),
    Case(operator.imul, 0.3, -1.2), Case(operator.imul, M23, V3),
    Case(operator.imul, [0.3, 1.2], 2),
    Case(operator.itruediv, 0.3, -1.2), Case(operator.itruediv, M23, POS3),
    Case(operator.ipow, 1.3, 2.5), Case(operator.ipow, POS3, V3),
    Case(operator.imod, 5.3, 2.0), Case(operator.imod, M23, 0.45),
    Case(operator.imatmul, S22, S22.T.copy()),
    Case(operator.ifloordiv, 5.3, 2.0), Case(operator.ifloordiv, M23, 0.45),
]

# ---- operator: no derivative ----------------------------------------------------------
OPERATOR_NONDIFF_CASES = [
    Case(operator.lt, 0.3, 1.2), Case(operator.lt, V3, W3), Case(operator.le, 0.3, 1.2),
    Case(operator.eq, 0.3, 0.3), Case(operator.eq, V3, W3), Case(operator.ne, 0.3, 1.2),
    Case(operator.ge, 0.3, 1.2), Case(operator.gt, V3, 0.0),
    Case(operator.not_, 0.3), Case(operator.truth, 0.0),
    Case(operator.is_, 0.3, None), Case(operator.is_not, 0.3, None),
    Case(operator.contains, [0.3, 1.2], 1.2), Case(operator.contains, {"a": 0.3}, "a"),
    Case(operator.and_, 6, 3), Case(operator.and_, MASK3, MASK3[::-1].copy()),
    Case(operator.or_, 6, 3), Case(operator.xor, 6, 3), Case(operator.xor, True, False),
    Case(operator.invert, 5), Case(operator.invert, MASK3),
    Case(operator.lshift, 5, 2), Case(operator.rshift, 20, 2), Case(operator.index, 3),
]

# ---- math ---------------------------------------------------------------------------
MATH_CASES = [
    Case(math.sin, 0.3), Case(math.cos, 0.3), Case(math.tan, 0.3, domain=TAN_PERIOD),
    Case(math.asin, 0.3, domain=UNIT_OPEN), Case(math.acos, 0.3, domain=UNIT_OPEN),
    Case(math.atan, 0.3), Case(math.sinh, 0.3), Case(math.cosh, 0.3), Case(math.tanh, 0.3),
    Case(math.asinh, 0.3), Case(math.acosh, 1.7, domain=ABOVE_ONE),
    Case(math.atanh, 0.3, domain=UNIT_OPEN), Case(math.degrees, 0.3),
    Case(math.radians, 30.0), Case(math.exp, 0.3), Case(math.expm1, 0.3),
    Case(math.log1p, 0.3, domain=ABOVE_MINUS_ONE), Case(math.log2, 1.7, domain=POSITIVE),
    Case(math.log10, 1.7, domain=POSITIVE), Case(math.sqrt, 1.7, domain=POSITIVE),
    Case(math.fabs, -1.3, domain=NONZERO), Case(math.exp2, 0.3),
    Case(math.cbrt, -1.7, domain=NONZERO),
    Case(math.erf, 0.3), Case(math.erfc, 0.3),
    Case(math.lgamma, 2.5, domain=GAMMA_POSITIVE), Case(math.lgamma, 0.3),
    Case(math.lgamma, -1.5), Case(math.lgamma, 8.5),
    Case(math.gamma, 2.5, domain=GAMMA_POSITIVE), Case(math.gamma, -1.5),
    Case(math.log, 1.7, domain=POSITIVE), Case(math.log, 1.7, 3.0),
    Case(math.pow, 1.3, 2.5), Case(math.pow, -1.3, 2),
    Case(math.atan2, 0.3, -1.2), Case(math.hypot, 0.3, -1.2),
    Case(math.hypot, 0.3, -1.2, 2.0), Case(math.copysign, 0.3, -1.2),
    Case(math.dist, [0.3, 1.2, -0.5], [1.0, -0.4, 0.2]), Case(math.dist, (0.3,), (1.0,)),
    Case(math.copysign, -0.3, -1.2), Case(math.fmod, 5.3, 2.0), Case(math.fmod, -5.3, 2.0),
    Case(math.remainder, 5.3, 2.0), Case(math.remainder, -4.7, 1.5),
    Case(math.ldexp, 0.3, 4), Case(math.ldexp, -1.7, -1100),  # (2.0 ** -1100 is 0)
    Case(math.frexp, 0.3, domain=POSITIVE), Case(math.frexp, -37.0),
    Case(math.modf, -2.7, domain=FRACTION),
    Case(math.nextafter, 0.3, 1.0),
]

MATH_NONDIFF_CASES = [
    Case(math.floor, 2.5), Case(math.ceil, 2.5), Case(math.trunc, -2.5),
    Case(math.isnan, 0.3), Case(math.isinf, 0.3), Case(math.isfinite, 0.3),
    Case(math.isclose, 0.3, 1.2), Case(math.factorial, 5), Case(math.comb, 5, 2),
    Case(math.perm, 5, 2), Case(math.gcd, 12, 18), Case(math.lcm, 4, 6),
    Case(math.isqrt, 17), Case(math.ulp, 0.3),
]

# ---- builtins -----------------------------------------------------------------------
BUILTIN_CASES = [
    Case(abs, -1.3), Case(abs, M23), Case(pow, 1.3, 2.5), Case(pow, 3, 4, 5),
    Case(max, 0.3, 1.2), Case(max, [0.3, 1.2, -0.5]), Case(max, V3),
    Case(max, [0.3, -1.2], key=abs), Case(max, [], default=0.5),
    Case(min, 0.3, 1.2), Case(min, [0.3, 1.2, -0.5]), Case(min, W3),
    Case(min, [0.3, -1.2], key=abs), Case(min, 0.3, -1.2, 0.5),
    Case(math.fsum, [0.3, 1.2, -0.5]), Case(math.prod, [0.3, 1.2, -0.5]),
    Case(sum, [0.3, 1.2, -0.5]), Case(sum, [0.3, 1.2], 2.0), Case(sum, V3), Case(sum, M23),
    Case(float, 1.5), Case(float, np.array(1.5)), Case(float, np.float64(1.5)),
    Case(float, 3), Case(float, "1.5"), Case(float),
    Case(complex, 0.3, -0.7), Case(complex, 0.3), Case(complex, 0.7 - 1.3j, 0.4 + 0.2j),
    Case(complex, np.float64(0.3), 2), Case(complex, "1+2j"), Case(complex),
]

# np.r_ and its kin are called through __getitem__ on a constant (no tangent of its own)
def r_of(x, y):
    return np.r_[x, y]


def r_2d_of(x, y):
    return np.r_["0,2", x, y]


def c_of(x, y):
    return np.c_[x, y * y]


def r_with_range_of(x):
    return np.r_[x, 0:2, 1.5] * np.r_[1.0:3.0:6j] + x[np.s_[::2]].sum()


def s_of(x):
    return x[np.s_[1:]] * x[np.index_exp[:2]][0]


def index_exp_of(x):
    return np.index_exp[x, 1][0]


def grids_times(a):
    rows, cols = np.ogrid[0:3, 0:1.5:0.5]
    return np.mgrid[0:1:3j, 0:3] * a + rows * cols * a


BUILTIN_NONDIFF_CASES = [
    Case(int, 2.7), Case(bool, 0.3), Case(round, 2.7), Case(round, 2.71, 1),
    Case(len, [0.3, 1.2]), Case(len, V3), Case(range, 3), Case(range, 1, 7, 2),
    Case(print, ""), Case(isinstance, 0.3, float), Case(issubclass, bool, int),
    Case(str, 1.5), Case(repr, 1.5), Case(id, None), Case(hash, 1.5), Case(type, 1.5),
    Case(callable, len), Case(hasattr, Point(0.3, 1.2), "x"), Case(format, 1.5, ".2f"),
    Case(ord, "a"), Case(chr, 97), Case(any, [0.0, 1.5]), Case(all, [0.0, 1.5]),
    Case(dir, Point(0.3, 1.2)), Case(bin, 5), Case(hex, 255), Case(oct, 8), Case(ascii, "é"),
    xfail(Case(open, os.devnull), UNCOMPARABLE.format("file"), run=False),
    # NumPy's axis helpers, which rule bodies call when differentiated again
    Case(normalize_axis_tuple, (0, -1), 2), Case(normalize_axis_index, -1, 3),
]

# ---- containers -----------------------------------------------------------------------
CONTAINER_CASES = [
    Case(lang.build_list, 0.3, 1.2), Case(lang.build_list, 0.3, V3, "a"),
    Case(lang.build_list),
    Case(lang.build_tuple, 0.3, 1.2), Case(lang.build_tuple, V3, 2),
    Case(lang.build_dict, "a", 0.3, "b", V3), Case(lang.build_set, 1, "a"),
    Case(lang.build_slice, 1, 7, 2), Case(lang.build_slice, None, -1, None),
    Case(slice, 1, 7), Case(slice, 2),
    Case(lang.truth, 0.3), Case(lang.truth, []),
    Case(list.append, [0.3], 1.2), Case(list.append, [0.3], V3), Case(list.append, [], 2),
    Case(set.add, {1}, 2), Case(str.format, "{:.2f} {}", 1.5, "a"),
    Case(str.split, "0,2", ","), Case(str.replace, "a b", " ", ""),
    Case(str.join, "", ["a", "b"]),
]

METHOD_CASES = [
    Case(list.extend, [0.3], [1.2, -0.5]), Case(list.extend, [0.3], V3),
    Case(list.insert, [0.3, 1.2], 1, -0.5), Case(list.pop, [0.3, 1.2, -0.5]),
    Case(list.pop, [0.3, 1.2, -0.5], 0), Case(list.remove, [0.3, "a", -0.5], "a"),
    Case(list.reverse, [0.3, 1.2]), Case(list.sort, [0.3, -1.2, 0.5]),
    Case(list.sort, [0.3, -1.2, 0.5], key=abs, reverse=True), Case(list.copy, [0.3, V3]),
    Case(list.clear, [0.3]), Case(list.index, [0.3, "b"], "b"),
    Case(list.count, [0.3, 0.3, 1.2], 0.3),
    Case(tuple.index, (0.3, "b"), "b"), Case(tuple.count, (1, 1, 2), 1),
    Case(dict.clear, {"a": 0.3}), Case(dict.get, {"a": 0.3}, "a"),
    Case(dict.get, {"a": 0.3}, "b", 1.5), Case(dict.get, {"a": 0.3}, "b"),
    Case(dict.setdefault, {"a": 0.3}, "b", 1.5), Case(dict.setdefault, {"a": 0.3}, "a", 1.5),
    Case(dict.items, {"a": 0.3, "b": 1.2}), Case(dict.keys, {"a": 0.3}),
    Case(dict.values, {"a": 0.3}),
    Case(dict.update, {"a": 0.3}, {"b": 1.2}), Case(dict.update, {"a": 0.3}, [("a", 1.2)]),
    Case(dict.pop, {"a": 0.3, "b": 1.2}, "a"), Case(dict.pop, {"a": 0.3}, "b", 1.5),
    Case(dict.copy, {"a": 0.3, "b": V3}),
]

# ---- iteration: builtins, functools, itertools ------------------------------------------
ITERATION_CASES = [
    Case(sorted, [0.3, -1.2, 0.5]), Case(sorted, [0.3, -1.2, 0.5], key=abs, reverse=True),
    Case(list, (0.3, 1.2)), Case(list, V3), Case(list), Case(tuple, [0.3, 1.2]),
    Case(dict, [("a", 0.3), ("b", 1.2)]), Case(dict, {"a": 0.3}), Case(dict, {"a": 0.3}, b=1.2),
    Case(set, [1, 2]), Case(frozenset, (1, "a")),  # items with a derivative: refused
    Case(functools.reduce, operator.mul, [0.3, 1.2, -0.5]),
    Case(functools.reduce, operator.add, [0.3, 1.2], 2.0),
    Case(functools.partial, math.pow, 1.3),
    # (their calls are checked end to end: tests/language/stdlib.py)
    xfail(Case(operator.itemgetter, 1), UNCOMPARABLE.format("itemgetter")),
    xfail(Case(operator.attrgetter, "x"), UNCOMPARABLE.format("attrgetter")),
    xfail(Case(operator.methodcaller, "count", 1.3), UNCOMPARABLE.format("methodcaller")),
    xfail(Case(super, Point, Point(0.3, 1.2)), UNCOMPARABLE.format("super")),
    Case(zip, [0.3, 1.2], [-0.5, 2.0]),
    Case(enumerate, [0.3, 1.2]),
    Case(reversed, [0.3, 1.2]), Case(iter, [0.3, 1.2]), Case(next, iter([0.3, 1.2])),
    Case(map, abs, [0.3, -1.2]),
    Case(filter, None, [0, 1.2, 2.5]),  # 0 is an int: finite differences leave it alone
    Case(itertools.chain, [0.3], [1.2]),
    Case(itertools.chain.from_iterable, [[0.3], [1.2]]),
    Case(itertools.islice, [0.3, 1.2, -0.5], 2),
    Case(itertools.combinations, [0.3, 1.2, -0.5], 2),
    Case(itertools.combinations_with_replacement, [0.3, 1.2], 2),
    Case(itertools.permutations, [0.3, 1.2]),
    Case(itertools.product, [0.3, 1.2], [-0.5]),
    Case(itertools.pairwise, [0.3, 1.2, -0.5]),
    Case(itertools.zip_longest, [0.3, 1.2], [-0.5]),
    Case(itertools.repeat, 0.3, 3),
    Case(itertools.accumulate, [0.3, 1.2, -0.5]),
    Case(itertools.starmap, operator.mul, [(0.3, 1.2), (-0.5, 2.0)]),
]

# ---- context managers that hold no values, and the warnings functions -----------------
CONTEXT_CASES = [
    xfail(Case(np.errstate, divide="ignore"), UNCOMPARABLE.format("errstate")),
    xfail(Case(np.printoptions, precision=3), UNCOMPARABLE.format("printoptions"),
          run=False),
    xfail(Case(threading.Lock), UNCOMPARABLE.format("lock")),
    xfail(Case(threading.RLock), UNCOMPARABLE.format("lock")),
    xfail(Case(threading.Semaphore, 2), UNCOMPARABLE.format("Semaphore")),
    xfail(Case(threading.BoundedSemaphore, 2), UNCOMPARABLE.format("Semaphore")),
    xfail(Case(io.StringIO, "text"), UNCOMPARABLE.format("StringIO")),
    xfail(Case(io.BytesIO, b"bytes"), UNCOMPARABLE.format("BytesIO")),
    Case(warnings.warn, "careful", RuntimeWarning),
    Case(warnings.simplefilter, "default"), Case(warnings.filterwarnings, "default"),
    Case(warnings.resetwarnings),
]

# ---- attributes ---------------------------------------------------------------------
OBJECT_CASES = [
    Case(getattr, Point(0.3, 1.2), "x"), Case(getattr, Point(0.3, 1.2), "z", 0.5),
    Case(getattr, Point(0.3, 1.2), "norm"),
    Case(getattr, M23, "T"), Case(getattr, T223, "T"), Case(getattr, T223, "mT"),
    Case(getattr, M23, "real"), Case(getattr, M23, "imag"), Case(getattr, M23, "shape"),
    Case(getattr, M23, "ndim"),
    Case(setattr, Point(0.3, 1.2), "x", 2.5), Case(setattr, Point(0.3, 1.2), "z", V3),
    Case(setattr, M23, "real", W3),
    Case(delattr, Point(0.3, 1.2), "x"),
    Case(object.__getattribute__, Point(0.3, 1.2), "x"),
    Case(object.__setattr__, Point(0.3, 1.2), "x", 2.5),
    Case(copy.copy, Point(0.3, 1.2)), Case(copy.copy, Point(V3, [0.4, W3])),
    Case(copy.copy, [0.4, V3]), Case(copy.copy, {"a": V3}), Case(copy.copy, M23),
    Case(copy.deepcopy, Point(V3, [0.4, Point(W3, 1.5)])), Case(copy.deepcopy, [V3, M23]),
]

# ---- indexing -----------------------------------------------------------------------
INDEXING_CASES = [
    Case(operator.getitem, V3, 1), Case(operator.getitem, V3, -1),
    Case(operator.getitem, M23, 1), Case(operator.getitem, M23, (1, 2)),
    Case(operator.getitem, M23, (slice(None), slice(1, None))),
    Case(operator.getitem, V3, slice(None, None, 2)),
    Case(operator.getitem, M23, (Ellipsis, -1)),
    Case(operator.getitem, V3, np.array([2, 0, 2])),
    Case(operator.getitem, M23, (np.array([0, 1]), np.array([2, 0]))),
    Case(operator.getitem, V3, MASK3), Case(operator.getitem, M23, MASK23),
    Case(operator.getitem, M23, (None, 0)),
    # a NumPy scalar indexed as an array: np.float64(1)[None] is an array of shape (1,)
    Case(operator.getitem, np.float64(0.3), None),
    Case(operator.getitem, np.float64(0.3), (None, Ellipsis, None)),
    Case(operator.getitem, T223, (np.array([0, 1]), slice(None), np.array([2, 0]))),
    Case(operator.getitem, T223, (1, slice(None), np.array([2, 0, 2]))),
    Case(operator.getitem, [0.3, 1.2, -0.5], 1),
    Case(operator.getitem, [0.3, 1.2, -0.5], slice(1, None)),
    Case(operator.getitem, (0.3, 1.2), -1), Case(operator.getitem, {"a": 0.3}, "a"),
    Case(operator.getitem, "abc", 1), Case(operator.getitem, range(5), 2),
    # index tricks: constants whose Python __getitem__ builds an array from the key
    Case(r_of, V3, W3), Case(r_of, V3, 0.5), Case(r_2d_of, V3, W3), Case(c_of, V3, W3),
    Case(r_with_range_of, V3), Case(s_of, V3), Case(index_exp_of, V3),
    Case(grids_times, 0.7),
    Case(operator.setitem, V3, 1, 2.5), Case(operator.setitem, V3, -1, 2.5),
    Case(operator.setitem, M23, 0, W3), Case(operator.setitem, M23, 0, 2.5),
    Case(operator.setitem, M23, (slice(None), 0), 2.5),
    Case(operator.setitem, M23, (slice(None), slice(1, None)), np.array([0.4, -0.8])),
    Case(operator.setitem, V3, slice(None, None, 2), np.array([0.4, -0.8])),
    Case(operator.setitem, V3, np.array([2, 0]), np.array([0.4, -0.8])),
    Case(operator.setitem, V3, MASK3, 0.5), Case(operator.setitem, M23, MASK23, 0.5),
    Case(operator.setitem, T223, (np.array([0, 1]), slice(None), np.array([2, 0])),
         np.array([[0.4, -0.8], [1.5, 0.2]])),
    Case(operator.setitem, T223, (1, slice(None), np.array([2, 0, 2])), 0.5),
    Case(operator.setitem, [0.3, 1.2], 0, 2.5),
    Case(operator.setitem, [0.3, 1.2], slice(1, None), [2.5, -0.5]),
    Case(operator.setitem, {"a": 0.3}, "a", 2.5), Case(operator.setitem, {"a": 0.3}, "b", V3),
    Case(operator.delitem, [0.3, 1.2, -0.5], 0),
    Case(operator.delitem, [0.3, 1.2, -0.5], slice(1, None)),
    Case(operator.delitem, {"a": 0.3, "b": 1.2}, "a"),
]

# ---- numpy: in tests/rules/numpy_cases.py (which uses Case and the points above) ---
from tests.rules.numpy_cases import NUMPY_BINARY_CASES, NUMPY_CASES, UFUNC_CASES  # noqa: E402
from tests.rules.scipy_cases import SCIPY_CASES  # noqa: E402
from tests.rules.scipy_integrate_cases import SCIPY_INTEGRATE_CASES  # noqa: E402
from tests.rules.scipy_linalg_cases import SCIPY_LINALG_CASES  # noqa: E402
from tests.rules.scipy_optimize_cases import SCIPY_OPTIMIZE_CASES  # noqa: E402

CASES = (ARITHMETIC_CASES + OPERATOR_CASES + INPLACE_CASES + OPERATOR_NONDIFF_CASES
         + MATH_CASES + MATH_NONDIFF_CASES + BUILTIN_CASES + BUILTIN_NONDIFF_CASES
         + CONTAINER_CASES + METHOD_CASES + ITERATION_CASES + CONTEXT_CASES + OBJECT_CASES
         + INDEXING_CASES + NUMPY_CASES + SCIPY_CASES + SCIPY_LINALG_CASES
         + SCIPY_OPTIMIZE_CASES
         + SCIPY_INTEGRATE_CASES)


def _first_per_fn(rows) -> list:
    """The first row of each function (it carries the function's domain)."""
    seen, firsts = set(), []
    for row in rows:
        case = unwrap(row)
        if case.fn not in seen:
            seen.add(case.fn)
            firsts.append(row)
    return firsts


# The random tests: unary math and elementwise rows, and binary arithmetic rows.
UNARY_CASES = _first_per_fn(c for c in OPERATOR_CASES + MATH_CASES + UFUNC_CASES
                            if unwrap(c).is_unary)
BINARY_CASES = _first_per_fn(ARITHMETIC_CASES + NUMPY_BINARY_CASES)
