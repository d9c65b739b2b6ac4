"""Cases for NumPy's functions that call a Python function per item or row
(fwdad/rules/numpy_loops.py): apply_along_axis, apply_over_axes, fromfunction,
np.vectorize and its call, fromiter; and ndenumerate."""
from __future__ import annotations

import math

import numpy as np

from tests.rules.case import M23, V3, W3, Case


def wave(v):
    return v * v + math.sin(v)


def product_and_gap(a, b):
    return a * b, a - b


def scaled_by_second(v, table):
    return v * table[1]


def first_times_rest(row):
    return row[0] * row[1:]


def outer_of(row):
    return np.outer(row, row)


WAVE = np.vectorize(wave)
PAIR = np.vectorize(product_and_gap)
WAVE_FLOAT = np.vectorize(wave, otypes=[float])
WAVE_FLOAT(V3)  # (with otypes, NumPy's first call caches a ufunc on the object: fwdad's
# rule does not, and test_rule compares the arguments' state after the call)



# ---- the calls inside functions (tests/reverse/cases_api.py) ----
def cumsums_down(x):
    return np.apply_along_axis(np.cumsum, 0, x)


def outers_of_rows(x):
    return np.apply_along_axis(outer_of, 1, x)


def summed_over_both(x):
    return np.apply_over_axes(np.sum, x, [0, 1])


def waves(x):
    return WAVE(x)


def pairs(x, y):
    product, gap = PAIR(x, y)
    return product * gap


def squares_from_an_iterator(x):
    return np.fromiter((v * v for v in x), dtype=float)


def grid_of(x):  # (the function closes over x: its items carry x's derivative)
    return np.fromfunction(lambda i, j: np.sin(x[0] * (i + 1.0)) * (j + x[1]), (2, 3))


def enumerated(x):
    total = 0.0
    for (i, j), v in np.ndenumerate(x):
        total = total + v * v * (i + 2.0 * j + 1.0)
    return total


def plane(i, j):
    return i * 0.5 + j


LOOP_CASES = [
    Case(np.apply_along_axis, np.cumsum, 0, M23), Case(np.apply_along_axis, np.sum, -1, M23),
    Case(np.apply_along_axis, first_times_rest, 1, M23),
    Case(np.apply_along_axis, outer_of, 0, M23),  # (its result's axes where axis 0 was)
    Case(np.apply_along_axis, np.dot, 1, M23, V3[:3]),  # (extra arguments passed on)
    Case(np.apply_over_axes, np.sum, M23, [0, 1]), Case(np.apply_over_axes, np.cumsum, M23, 1),
    Case(np.vectorize, wave), Case(np.vectorize.__call__, WAVE, M23),
    Case(np.vectorize.__call__, WAVE, 0.7), Case(np.vectorize.__call__, PAIR, M23, V3),
    Case(np.vectorize.__call__, WAVE_FLOAT, V3),
    Case(np.vectorize.__call__, np.vectorize(scaled_by_second, excluded={1}), V3, W3),
    Case(np.fromiter, [0.3, -1.2, 0.5], float), Case(np.fromiter, [0.3, -1.2, 0.5], float, 2),
    Case(np.fromfunction, plane, (2, 3)), Case(np.fromfunction, plane, (2, 2), dtype=int),
    Case(np.ndenumerate, M23),
]
