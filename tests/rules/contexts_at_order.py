"""Functions that run their math inside managers holding no values (np.errstate,
np.printoptions, warnings.catch_warnings, a lock), for test_contexts_at_third_order.py:
each computes x**3 * sin(x)."""
from __future__ import annotations

import threading
import warnings

import numpy as np

import fwdad

LOCK = threading.Lock()


def in_errstate(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.sin(x) * x ** 3
    return y


def in_printoptions(x):
    with np.printoptions(precision=3):
        y = np.sin(x) * x ** 3
    return y


def in_catch_warnings(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = np.sin(x) * x ** 3
    return y


def in_a_lock(x):
    with LOCK:
        y = np.sin(x) * x ** 3
    return y


def nested_errstates(x):
    with np.errstate(over="ignore"):
        with np.errstate(divide="ignore"):
            y = np.sin(x) * x ** 2
        y = y * x
    return y


def derivative(f, order):
    """The order-th derivative of f, as jvp of jvp of ... of f."""
    for _ in range(order):
        f = _jvp_of(f)
    return f


def _jvp_of(f):
    def d(x):
        return fwdad.jvp(f, (x,), (1.0,))[1]
    return d


def closed_form(x, order):
    """The order-th derivative of x**3 sin(x) (Leibniz's rule)."""
    powers = [x ** 3, 3 * x ** 2, 6 * x, 6.0] + [0.0] * 2
    sines = [np.sin(x), np.cos(x), -np.sin(x), -np.cos(x)] * 2
    binomial = [[1], [1, 1], [1, 2, 1], [1, 3, 3, 1], [1, 4, 6, 4, 1]]
    return sum(c * powers[k] * sines[order - k] for k, c in enumerate(binomial[order]))


FUNCTIONS = [in_errstate, in_printoptions, in_catch_warnings, in_a_lock, nested_errstates]
