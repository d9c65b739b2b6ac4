"""More small functions for the reverse mode, one feature each, beyond tests/corpus.py.
Each row: (function, arguments, whether fwdad.jvp can differentiate it)."""
from __future__ import annotations

import functools
import itertools
import math
import operator

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


def index_array(a, x):
    idx = np.array([0, 2])
    b = np.array([x, 2.0 * x, 1.0])
    return np.sum(a[idx] * b[idx])


def boolean_masks(a):
    b = a * 1.0
    b[b < 0] = 0.0
    return np.sum(a[a > 0] ** 2) + np.sum(b * a)


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


def divide_by_zero_unread(a):
    """Only b[0] is read: the element divided by 0.0 passes nothing back (was: NaN)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        b = a / np.array([1.0, 0.0, 2.0])
    return b[0] * b[2]


R = np.random.default_rng(3)
EXAMPLES = [(divide_by_zero_unread, (R.standard_normal(3),), True),
            (numpy_on_a_list, (0.3, 1.2), True),
            (array_methods, (R.standard_normal(6),), False),  # no frule: reshape, max
            (iterate_rows, (R.standard_normal((3, 2)),), True),
            (unpack_array, (R.standard_normal(4),), True),
            (scalar_loop_over_elements, (R.standard_normal(5),), True),
            (running_product, (R.uniform(0.5, 1.5, 4),), True),
            (index_array, (R.standard_normal(4), 0.6), True),
            (boolean_masks, (np.array([0.5, -1.0, 2.0, -0.3]),), True),
            (softmax_cross_entropy, (R.standard_normal((3, 4)), R.standard_normal((5, 3))),
             False)]  # no frule: np.max


# ---- iteration and rearranging (each row's primitives are in ITERATION_COVERS) ------------
def _scale3(k, v):
    return k * v * 3.0


def zip_enumerate_reversed(a, b):
    total = 0.0
    for i, (u, v) in enumerate(zip(a, reversed(b))):
        total = total + (i + 1) * u * v
    it = iter(a)
    first = next(it)
    return total + first * functools.partial(_scale3, 2.0)(first)


def zip_of_arrays_sorted_and_reversed(a, b):
    """Tuples of array elements compared item by item (sorted, list.sort, max, min with
    a key that computes), the rows of an array reversed, zip of unequal lengths."""
    pairs = sorted(zip(a, b))
    total = pairs[0][1] * pairs[-1][0] + max(zip(b, a))[1] * a[0]
    rows = list(zip(a, b[:2]))
    rows.sort(key=lambda p: p[1] * p[1])
    total = total + rows[0][0] * min(a[0], a[1], key=lambda v: v * v - 2.0 * v)
    for i, (u, v) in enumerate(reversed(list(zip(a, b)))):
        total = total + i * abs(u) * v
    return total + sum(i * w for i, w in enumerate(reversed(a * b))) + abs(a[1])


def map_filter_sums(xs):
    ys = list(map(math.sin, xs))
    zs = list(filter(lambda v: v > 0, ys))
    return sum(zs) + math.fsum(ys) + math.prod(xs) + len(set([1, 1])) + len(frozenset([1, 2]))


def sorting(xs):
    s = sorted(xs, key=lambda v: -v)
    t = list(xs)
    t.sort()
    return s[0] * 2.0 + t[0] + s[1] * t[1]


def list_methods(x, y):
    xs = [x, y]
    ys = xs.copy()
    ys.extend([x * y])
    ys.insert(0, y * 3.0)
    last = ys.pop()
    ys.reverse()
    ys.remove(ys[0])
    zs = tuple(ys)
    ys.clear()
    return sum(zs) + last * x


def dict_methods(x, y):
    d = dict(a=x)
    d.update({"b": y})
    d.setdefault("c", x * y)
    e = d.copy()
    v = e.pop("a")
    total = sum(d.values()) + v + e.get("b", 0.0)
    for key, w in d.items():
        total = total + w * len(key)
    for key in d.keys():
        total = total + d[key]
    d.clear()
    return total


def reduce_and_accumulate(xs):
    r = functools.reduce(lambda a, b: a * b + 1.0, xs)
    acc = list(itertools.accumulate(xs))
    acc2 = list(itertools.accumulate(xs, lambda a, b: a * b, initial=1.0))
    sm = list(itertools.starmap(lambda a, b: a - b, zip(xs, xs[1:])))
    return r + acc[-1] + acc2[-1] + sum(sm)


def itertools_shapes(xs):
    chained = list(itertools.chain(xs, [1.0])) + list(itertools.chain.from_iterable([xs, xs]))
    total = sum(chained) + sum(itertools.islice(xs, 2))
    total = total + sum([a * b for a, b in itertools.pairwise(xs)])
    total = total + sum([a * b for a, b in itertools.product(xs[:2], xs[1:3])])
    total = total + sum([a - b * b for a, b in itertools.permutations(xs[:3], 2)])
    total = total + sum([a * b for a, b in itertools.combinations(xs, 2)])
    total = total + sum([a * b for a, b in itertools.combinations_with_replacement(xs[:2], 2)])
    total = total + sum(itertools.repeat(xs[0], 2))
    return total + sum([a * b for a, b in itertools.zip_longest(xs, xs[:2], fillvalue=0.5)])


class _Scaled:
    def __init__(self, v):
        self.v = v

    def times(self, k):
        return self.v * k


def callables_and_searches(a, b):
    """A methodcaller that holds a variable; list.index, count, remove, `in` and == find
    items by value (a new variable equal in value to an item is found), as forward mode
    compares primals."""
    xs = [a * 1.0, b, a * b]
    found = xs.index(a * b) + xs.count(b * 1.0) + ((a * 1.0) in xs)
    xs.remove(b * 1.0)
    m = operator.methodcaller("times", a)(_Scaled(b))
    same = [a * 1.0, b] == [a, b * 1.0]
    return sum(xs) * found + m * same


ITERATION = [(zip_enumerate_reversed, ([0.3, -0.7, 1.1], [0.5, 0.2, -0.4]), False),
             (zip_of_arrays_sorted_and_reversed, (np.array([0.3, -0.7, 1.1]),
                                                  np.array([0.5, 0.2, -0.4])), False),
             (map_filter_sums, ([0.3, -0.7, 1.1],), False),
             (sorting, ([0.3, -0.7, 1.1],), False), (list_methods, (0.4, 1.3), False),
             (dict_methods, (0.4, 1.3), False),
             (reduce_and_accumulate, ([0.3, -0.7, 1.1, 0.9],), False),
             (itertools_shapes, ([0.3, -0.7, 1.1, 0.9],), False),
             (callables_and_searches, (0.4, 1.3), True)]
EXAMPLES += ITERATION
ITERATION_COVERS = [zip, enumerate, reversed, iter, next, functools.partial, map, filter,
                    math.fsum, math.prod, set, frozenset, sorted, list, list.sort,
                    list.copy, list.extend, list.insert, list.pop, list.reverse,
                    list.remove, tuple, list.clear, dict, dict.update, dict.setdefault,
                    dict.copy, dict.pop, dict.values, dict.get, dict.items, dict.keys,
                    dict.clear, functools.reduce, itertools.accumulate, itertools.starmap,
                    itertools.chain, itertools.chain.from_iterable, itertools.islice,
                    itertools.pairwise, itertools.product, itertools.permutations,
                    itertools.combinations, itertools.combinations_with_replacement,
                    itertools.repeat, itertools.zip_longest, operator.methodcaller]
