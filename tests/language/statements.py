"""Constructs: try, with, assert, del, global, conditional expressions, chained
comparisons, the walrus, f-strings, print, raise, import."""
from __future__ import annotations

import math

import numpy as np


class Recorder:
    """A context manager (its methods run through their derived rules)."""

    def __init__(self):
        self.entered = 0

    def __enter__(self):
        self.entered += 1
        return self

    def __exit__(self, *exc):
        return False


def try_except_else_finally(x):
    y = x
    try:
        y = y * 2.0
        value = float("not a number")  # noqa: F841  (raises before it binds)
    except (ValueError, TypeError) as err:
        y = y + len(str(err)) * x
    else:
        y = -y
    finally:
        y = y + 1.0
    try:
        z = math.sqrt(x)
    except ValueError:
        z = 0.0
    else:
        z = z * 2.0
    return y + z


def with_statement(x):
    with Recorder() as rec, Recorder() as other:
        y = x * 3.0 + rec.entered + other.entered
    return y


def assert_and_del(x):
    y = x * 2.0
    assert y > 0, f"y must be positive, got {y}"
    tmp = [y, x]
    del tmp[0]
    z = tmp[0]
    del tmp
    return z * y


def conditional_and_chained(x):
    y = x * 2.0 if 0.0 < x < 1.0 else x
    return y if y >= 0.5 else -y


def walrus(x):
    if (y := x * x) > 0.1:
        return y + (z := y * 2.0) * z
    return y


def fstrings_and_print(x):
    message = f"x={x:.3f}, squared={x * x:8.4f} {'ok'!r}"
    print(message)
    return x * len(message)


def raise_and_catch(x):
    try:
        if x > 0:
            raise ValueError(f"bad {x}")
        y = x
    except ValueError:
        y = x * 4.0
    return y


def import_inside(x):
    import math as m
    from math import cos
    return m.sin(x) + cos(x)


STATE = np.array([0.5, -1.2, 2.0])  # a module constant, read inside


def writes_into_arrays_made_from_constants(w):
    s = STATE.copy()
    s[0] = s[0] * w
    h = np.zeros(2)
    h[1] = np.tanh(w * s[1])
    view = s[1:]            # a view: the write reaches s
    view[1] += w * h[1]
    f = np.array([1.0, 2.0]).astype(np.float64)
    f[0] = w
    return np.sum(s * s) + np.sum(h * f)


def writes_into_an_argument(w, s):
    s[0] = s[0] * w
    return np.sum(s * s)
