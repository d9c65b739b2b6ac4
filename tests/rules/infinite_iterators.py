"""Loops over itertools' iterators, endless ones among them (count, cycle, repeat
without times), which a rule table row cannot list: each function here ends them the
way numerical code does (zip, islice, break), and test_infinite_iterators.py checks it
in both modes."""
from __future__ import annotations

import itertools

import numpy as np

# The primitives the functions below exercise (the coverage meta-test reads this).
COVERS = [itertools.count, itertools.cycle, itertools.repeat, itertools.takewhile,
          itertools.dropwhile, itertools.filterfalse, itertools.compress]


def counted_steps(x, h):
    """A time loop: t runs over count(t0, h), each step an Euler step."""
    y = x
    for k, t in zip(range(4), itertools.count(0.1, h)):
        y = y + h * np.sin(t * y)
    return y


def counted_until(x):
    """for i in count(): ... break, the index an int."""
    total = 0.0
    for i in itertools.count():
        total = total + x ** i / (i + 1.0)
        if i == 5:
            break
    return total


def counted_from(x, step):
    """count(start) with a float start and the default step, and with both."""
    a = list(itertools.islice(itertools.count(x), 3))
    b = list(itertools.islice(itertools.count(x, step), 3))
    return sum(a) * b[2] + a[1] * step


def cycled_weights(w, x):
    """Weights that cycle over the items of a longer vector."""
    total = 0.0
    for wi, xi in zip(itertools.cycle(w), x):
        total = total + wi * xi * xi
    return total


def repeated_scale(x, c):
    """zip with an endless repeat of a constant and of a variable."""
    out = [xi * ci + d for xi, ci, d in zip(x, itertools.repeat(c), itertools.repeat(2.0))]
    return np.array(out)


def selected(x, c):
    """takewhile, dropwhile, filterfalse and compress on the items of x."""
    items = [xi * c for xi in x]
    head = list(itertools.takewhile(lambda v: v < 1.0, items))
    tail = list(itertools.dropwhile(lambda v: v < 1.0, items))
    low = list(itertools.filterfalse(lambda v: v > 0.5, items))
    kept = list(itertools.compress(items, [True, False, True, True]))
    return sum(head) + 2.0 * sum(tail) + 3.0 * sum(low) + kept[0] * kept[-1]


def false_items(x):
    """filterfalse(None, ...) keeps the false items: the zeros."""
    return sum(itertools.filterfalse(None, [x, 0.0 * x, x * 2.0])) + x


X4 = np.array([0.3, 1.2, -0.5, 0.8])

ROWS = [(counted_steps, (0.7, 0.2)), (counted_until, (0.6,)),
        (counted_from, (0.4, 1.3)), (cycled_weights, (np.array([0.5, -1.1]), X4)),
        (repeated_scale, (X4, 1.7)), (selected, (X4, 1.1)), (false_items, (0.9,))]
