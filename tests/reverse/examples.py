"""More small functions for the reverse mode, one feature each, beyond tests/corpus.py.
Each row: (function, arguments, whether fwdad.jvp can differentiate it)."""
from __future__ import annotations

import math

import numpy as np


def numpy_on_a_list(x, y):
    return np.sum([x, y * 2.0]) + np.mean((x, y)) + np.dot([x, y], [1.0, 2.0])


def array_methods(a):
    b = a.reshape(2, 3).T
    return (b * b).sum() + a.max() - a.mean()


def iterate_rows(m):
    total = 0.0
    for row in m:
        total = total + np.sum(row ** 2)
    return total


def unpack_array(v):
    first, *rest = v
    return first * np.sum(np.array(rest))


def scalar_loop_over_elements(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = math.sin(a[i]) * (i + 1)
    return out


def running_product(a):
    acc = 1.0
    for v in a:
        acc *= v
    return acc


def softmax_cross_entropy(w, x):
    z = x @ w
    z -= np.max(z, axis=1)[:, None]
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return -np.mean(np.log(p[:, 0]))


R = np.random.default_rng(3)
EXAMPLES = [(numpy_on_a_list, (0.3, 1.2), True),
            (array_methods, (R.standard_normal(6),), False),  # no frule: reshape, max
            (iterate_rows, (R.standard_normal((3, 2)),), True),
            (unpack_array, (R.standard_normal(4),), True),
            (scalar_loop_over_elements, (R.standard_normal(5),), True),
            (running_product, (R.uniform(0.5, 1.5, 4),), True),
            (softmax_cross_entropy, (R.standard_normal((3, 4)), R.standard_normal((5, 3))),
             False)]  # no frule: np.max
