"""Tiny functions, one language feature each, with a point to evaluate them at.

Used end to end: normalized code must behave like the original, and jvp must agree with
central finite differences.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Tuple

import numpy as np

SCALE = 3.0
WEIGHTS = np.array([0.5, -1.0, 2.0])


@dataclass
class Example:
    fn: Callable
    args: Tuple[Any, ...]
    tags: Tuple[str, ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        return self.fn.__name__


def arithmetic(x, y):
    return (x * y - x / y + x ** 2 - y ** 0.5 + 2 ** x) % 7.0 + abs(-x) - +y


def math_calls(x):
    return math.sin(x) * math.exp(-x) + math.log(x + 2) + math.sqrt(x * x + 1)


def branch(x):
    if x > 0.5:
        return x * x
    elif x > 0:
        return math.sin(x)
    else:
        return -x


def scalar_loop(x, n=10):
    total = 0.0
    for i in range(n):
        total += x ** i / math.factorial(i)
    return total


def while_loop(x):
    y = x
    steps = 0
    while y < 100.0 and steps < 50:
        y = y * 1.5 + 0.1
        steps += 1
    return y


def break_continue(x):
    acc = 0.0
    for i in range(20):
        if i % 3 == 0:
            continue
        if acc > 5:
            break
        acc = acc + x * i
    return acc


def recursive_power(x, n=5):
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)


def _level3(x):
    return math.tanh(x) * SCALE


def _level2(x):
    return _level3(x * 2.0) + x


def three_calls_deep(x):
    return _level2(x) ** 2


def closure_read(x):
    k = x * 2.0

    def inner(y):
        return y * k

    return inner(3.0) + inner(x)


def lambda_and_higher_order(x):
    square = lambda v: v * v  # noqa: E731
    return square(x) + _apply(square, x + 1.0)


def _apply(fn, v):
    return fn(v)


def tuple_unpacking(x, y):
    a, b = x * 2, y * 3
    c, *rest = [a, b, x, y]
    return c + sum(rest) + a * b


def list_building(x):
    values = []
    for i in range(4):
        values.append(x * i)
    values[0] = x ** 3
    return sum(values) + max(values) - min(values[1:])


def comprehension(x):
    squares = [x * i * i for i in range(5) if i != 2]
    table = {i: x + i for i in range(3)}
    return sum(squares) + table[2] * table[1]


def conditional_expression(x):
    y = x * 2 if x > 0 else x * 3
    return y if not x > 10 else -y


def chained_compare(x):
    return x * 2 if 0 < x < 1 <= 2 else x


def keyword_arguments(x, y):
    return _weighted(x, weight=y) + _weighted(y)


def _weighted(v, weight=2.0, *, offset=1.0):
    return v * weight + offset


def star_args(x, y):
    return _total(x, y, 1.0) + _total(*[x, y])


def _total(*values):
    result = 0.0
    for v in values:
        result = result + v
    return result


def global_constant(x):
    return x * SCALE + float(WEIGHTS.sum())


def numpy_elementwise(x):
    return np.sum(np.sin(x) * np.exp(-x ** 2) + np.log1p(x ** 2))


def numpy_matmul(w, x):
    return np.tanh(w @ x).sum()


def numpy_inplace(x, a):
    b = a.copy() if False else a * 1.0
    b[1:3] += x
    b[0] = x * b[2]
    b *= 2.0
    return b


def numpy_methods(a):
    return a.sum() + a.mean() * 2 + a.T.dot(a)


def fstring_and_print(x):
    label = f"x = {x:.3f}"
    assert len(label) > 0, "empty label"
    return x * len(label)


CORPUS = [
    Example(arithmetic, (1.3, 0.7)), Example(math_calls, (0.4,)),
    Example(branch, (0.8,)), Example(branch, (0.3,)), Example(branch, (-0.4,)),
    Example(scalar_loop, (0.9,)), Example(while_loop, (1.2,)),
    Example(break_continue, (0.3,)), Example(recursive_power, (1.1,)),
    Example(three_calls_deep, (0.6,)), Example(closure_read, (0.5,)),
    Example(lambda_and_higher_order, (0.7,)), Example(tuple_unpacking, (0.2, 1.4)),
    Example(list_building, (1.5,)), Example(comprehension, (0.4,)),
    Example(conditional_expression, (0.6,)), Example(conditional_expression, (-0.6,)),
    Example(chained_compare, (0.5,)), Example(keyword_arguments, (0.5, 1.5)),
    Example(star_args, (0.5, 1.5)), Example(global_constant, (0.9,)),
    Example(numpy_elementwise, (np.linspace(-1, 1, 7),)),
    Example(numpy_matmul, (np.arange(6.0).reshape(2, 3) / 5, np.array([0.1, -0.2, 0.3]))),
    Example(numpy_inplace, (0.7, np.array([1.0, 2.0, 3.0, 4.0]))),
    Example(numpy_methods, (np.array([0.5, 1.5, -2.0]),)),
    Example(fstring_and_print, (0.25,)),
]
