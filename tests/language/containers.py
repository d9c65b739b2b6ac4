"""Constructs: containers and the builtins that work on them."""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np


def displays(x, y):
    items = [x, y, 3.0]
    pair = (x * 2, y)
    table = {"a": x, "b": pair[1]}
    labels = {"x", "y"}
    return items[1] * pair[0] + table["a"] * len(labels)


def list_methods(x):
    values = [x, 2.0]
    values.append(x * x)
    values.extend([3.0, x])
    values.insert(0, x + 1.0)
    last = values.pop()
    values[1] = values[1] * 4.0
    del values[2]
    values.remove(3.0)
    values.reverse()
    return sum(values) * last + values.index(x * x) + values.count(x * x)


def list_sort_and_copy(x):
    values = [x * 3.0, 1.0, x]
    ordered = values.copy()
    ordered.sort(key=abs, reverse=True)
    return ordered[0] - ordered[-1] + values[0]


def dict_methods(x):
    table = {"a": x}
    table["b"] = x * 2.0
    total = table.get("a") + table.get("missing", 1.5) * x
    table.setdefault("c", x * x)
    table.update({"d": 3.0 * x}, e=x)
    for key, value in table.items():
        total = total + value * len(key)
    total = total + sum(table.values()) + len(list(table.keys()))
    return total + table.pop("e") + table.copy()["d"]


def unpacking(x, y):
    a, (b, c) = x, (y, x * y)
    first, *middle, last = [a, b, c, x + y]
    return first * last + sum(middle)


def builtin_iteration(x, y):
    xs = [x, y, x * y, 2.0]
    total = 0.0
    for i, (u, v) in enumerate(zip(xs, reversed(xs))):
        total += i * u * v
    for i in range(1, len(xs), 2):
        total += xs[i]
    doubled = list(map(lambda v: v * 2.0, xs))
    positive = list(filter(lambda v: v > 1.0, xs))
    ordered = sorted(xs, key=lambda v: -v)
    return total + sum(doubled) + sum(positive) + ordered[0] * isinstance(x, float)


def functools_calls(x):
    product = functools.reduce(lambda a, b: a * b, [x, 2.0, x + 1.0])
    scaled = functools.partial(math.pow, x)
    return product + scaled(3.0)


def itertools_calls(x, y):
    xs = [x, y, 2.0]
    total = sum(itertools.chain(xs, [x * y]))
    for a, b in itertools.product(xs[:2], repeat=2):
        total += a * b
    for a, b in itertools.combinations(xs, 2):
        total += a - b
    running = list(itertools.accumulate(xs))
    return total + running[-1] + sum(itertools.islice(xs, 1, None))


def endless_itertools(x, y):
    total = 0.0
    for t, w, c in zip(itertools.count(x, 0.5), itertools.cycle([y, 1.0]),
                       itertools.repeat(x * y)):
        total += w * t * c
        if t > x + 1.0:
            break
    return total + sum(itertools.takewhile(lambda v: v < 2.0, [x, y, 3.0, x]))


def containers_of_containers(x):
    grid = [[x, 1.0], [2.0, x * x]]
    grid[1][0] = grid[0][0] * 3.0
    rows = {"top": grid[0], "bottom": grid[1]}
    rows["top"].append(x)
    return sum(sum(row) for row in grid) + rows["top"][-1]


def iter_and_next(x, y):
    values = iter([x, y * 2.0, x * y])
    first = next(values)
    rest = list(values)
    pairs = zip([x, y], [y, x])
    a, b = next(pairs)
    return first * rest[1] + next(values, 5.0) * x + a * b + next(iter(range(3)))


def partly_consumed(x, y):
    pairs = zip([x, y, x * y], [y, 2.0, x])
    skipped = any(pairs)  # takes the first pair, as plain values
    total = 0.0
    for a, b in pairs:  # the rest, with their tangents
        total = total + a * b
    rest = map(lambda v: v * 3.0, [x, y])
    return total + next(rest) * skipped


class _Steps:
    """An iterator: each item one more step of a map."""

    def __init__(self, a, count):
        self.a, self.count, self.k = a, count, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.k >= self.count:
            raise StopIteration
        self.k += 1
        self.a = math.sin(self.a) + self.a * 0.5
        return self.a * self.k


def iterator_classes(x):
    total = 0.0
    for item in _Steps(x, 3):
        total = total + item
    grid = np.outer([x, 2.0 * x], [1.0, x])
    for index in np.ndindex(grid.shape):
        total = total + grid[index] * (index[0] + 1.0)
    for (i, j), v in np.ndenumerate(grid):
        total = total + v * v * (i - j + 0.5)
    return total
