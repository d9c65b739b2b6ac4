"""Constructs: comprehensions, lambdas, closures, globals, recursion, arguments."""
from __future__ import annotations

import functools
import math

import numpy as np

OFFSET = 0.5
TABLE = np.array([1.0, 2.0, 3.0])
calls = 0


def comprehensions(x):
    squares = [x * i for i in range(4) if i % 2 == 1]
    nested = [[x * i * j for j in range(3)] for i in range(2)]
    table = {i: x ** i for i in range(3)}
    unique = {round(v, 3) for v in squares}
    lazy = sum(v * x for v in squares if v > 0)
    return sum(squares) + nested[1][2] + table[2] + len(unique) + lazy


def lambdas(x):
    scale = lambda v, k=2.0: v * k  # noqa: E731
    return scale(x) + scale(x, k=x) + (lambda: x * 3.0)()


def lambdas_made_in_a_comprehension(x):
    fs = [lambda t, k=k: t * k for k in range(3)]  # each default is its iteration's k
    gs = [lambda k=k: x * k for k in (1.0, 2.0)]  # the default is read here, not in g
    return sum(f(x) for f in fs) + sum(g() for g in gs)


def closures(x):
    k = x * 2.0

    def outer(y):
        def inner(z):
            return z * k + y
        return inner(y * y)
    return outer(x) + outer(1.0)


def nonlocal_writes(x):
    total = 0.0
    count = 0

    def add(v):
        nonlocal total, count
        total = total + v
        count += 1
    for i in range(3):
        add(x * i)
    return total * count


def globals_read(x):
    return x * OFFSET + float(TABLE @ TABLE) * x + TABLE[1]


def globals_written(x):
    global calls
    calls += 1
    return x * calls / calls


_SCRATCH = np.zeros(3)


def _into_scratch(x):
    _SCRATCH[...] = x * np.arange(3.0)
    return _SCRATCH * 2.0


def global_array_written(x):
    return _into_scratch(np.sin(x)).sum() + _SCRATCH[2] * x


def _make_stash():
    store = {}

    def stash(x):
        store["x"] = x * 2.0
        return store["x"] + np.sin(x)
    return stash


_STASH = _make_stash()
_LOG = []


class _Box:
    v = None


_BOX = _Box()


def global_containers_written(x):
    _LOG.clear()
    _LOG.append(_STASH(x) * x)
    _BOX.v = np.cos(x)
    return _LOG[0] * _BOX.v + _LOG[-1]


def factorial_like(x, n):
    return 1.0 if n == 0 else x * factorial_like(x, n - 1)


def is_even(x, n):
    return x if n == 0 else is_odd(x * 1.5, n - 1)


def is_odd(x, n):
    return -x if n == 0 else is_even(x + 1.0, n - 1)


def recursion(x):
    return factorial_like(x, 4) + is_even(x, 5)


def _arguments(a, b=2.0, *rest, scale, shift=1.0, **extra):
    return (a * b + sum(rest)) * scale + shift + sum(extra.values())


def arguments(x):
    return (_arguments(x, scale=2.0) + _arguments(x, x, 1.0, 2.0, scale=x, bonus=x)
            + _arguments(*[x, 3.0], **{"scale": x}))


def _fill(x, buf=np.zeros(3)):
    buf[:] = x * np.arange(3.0)
    return buf


def mutable_default(x):
    return _fill(x).sum() + _fill(2.0 * x)[1]


def _log(v, seen=[]):  # noqa: B006 (the mutable default is the point)
    seen.append(v)
    return seen[-1] * 2.0


def mutable_default_list(x):
    return _log(x * x) + _log(np.sin(x))


def _remember(v, kept=[]):  # noqa: B006
    kept.clear()
    kept.append(v * v)


KEPT = _remember.__defaults__[0]  # the default, named by a global


def mutable_default_named_by_a_global(x):
    KEPT.clear()
    _remember(x)
    return KEPT[0] * x + np.sin(KEPT[0])


def _apply_twice(fn, v):
    return fn(fn(v))


def higher_order(x):
    return _apply_twice(math.sin, x) + _apply_twice(lambda v: v * x, 2.0)


def _bump(a, b):
    return math.sin(a) * b if a > 0.0 else a * a * b


def through_numpy_loops(x):
    xs = np.array([x, 2.0 * x, -x])
    items = np.vectorize(_bump)(xs, x + 1.0)
    rows = np.apply_along_axis(lambda row: np.sum(row * row), 1, np.outer(xs, xs))
    pieces = np.piecewise(xs, [xs < 0.0, xs >= 0.0], [lambda v: v * v, np.sin])
    grid = np.fromfunction(lambda i, j: np.sin(x * (i + 1.0)) * (j + 0.5), (2, 3))
    return np.sum(items) + np.sum(rows) + np.sum(pieces) + np.sum(grid) + \
        np.sum(np.fromiter((v * x for v in xs), float, count=3))


def _scaled(k):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(a, *rest, **keywords):
            return fn(a * k, *rest, **keywords) + k
        return wrapper
    return decorate


@_scaled(0.5)
def _wave(a, b=2.0):
    return math.sin(a) * b


@functools.lru_cache(maxsize=None)
def _weight(k):
    return 1.0 / (k + 1.0)


@functools.cache
def _cached_wave(a):
    return math.cos(a) * 2.0


def decorated_helpers(x):
    return _wave(x) + _wave(x, b=x) * _weight(2) + _cached_wave(x * 0.5)
