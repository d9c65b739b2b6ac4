"""Constructs: the standard library's callable objects, generated methods and context
managers (one function each, for tests/language/constructs.py)."""
from __future__ import annotations

import collections
import contextlib
import copy
import dataclasses
import functools
import io
import operator
import threading
import warnings
from typing import NamedTuple

import numpy as np


def _mul(a, b):
    return a * b


def _add3(a, b, c=0.0):
    return a + b * c


triple = functools.partial(_mul, b=3.0)  # made outside the differentiated function


def partials(x):
    p = functools.partial(_add3, x, c=x)
    q = functools.partial(p, 2.0)  # flattened by Python: _add3(x, 2.0, c=x)
    return q() + triple(x) + functools.reduce(operator.mul, [x, x, 2.0])


class Box:
    def __init__(self, v):
        self.v = v
        self.inner = self

    def scaled(self, k):
        return self.v * k


def operator_callables(x):
    d = {"b": x, "a": x * 2.0}
    first = sorted(d.items(), key=operator.itemgetter(0))[0][1]
    a, b = operator.itemgetter(1, 2)((x, x * 2.0, 3.0))
    box = Box(x * 2.0)
    v, w = operator.attrgetter("inner.v", "v")(box)
    m = operator.methodcaller("scaled", x)(box) + operator.methodcaller("scaled", k=2.0)(box)
    return first + a * b + v * w + m


def bound_methods_in_variables(x):
    box, xs = Box(x), []
    scaled, push = box.scaled, xs.append
    push(scaled(3.0))
    push(x * x)
    return sum(xs)


Pair = collections.namedtuple("Pair", "a b")


class Named(NamedTuple):
    a: float
    b: float = 2.0


def namedtuple_methods(x):
    t = Pair(x, 1.0)._replace(b=x * 2)
    u = Pair._make([x, x * x])
    d = Named(x * 2.0)._asdict()
    return t.a + t.b + u.b + d["a"] * d["b"] + Named._make((x, 3.0)).a


@dataclasses.dataclass
class Record:
    a: float
    b: float = 1.0


@dataclasses.dataclass(frozen=True, order=True)
class Frozen:
    a: float
    b: float = 1.0


def copies_shallow_and_deep(x):
    r = Record(x, x * 2.0)
    shallow, deep = copy.copy(r), copy.deepcopy([r, {"k": np.array([x, 1.0])}])
    shallow.a = shallow.a * 3.0  # the copy's own field
    deep[1]["k"][0] = deep[1]["k"][0] * x
    return r.a * shallow.a + deep[0].b * deep[1]["k"].sum()


def dataclass_generated_methods(x):
    same = Record(x) == Record(x) and Record(x, 2.0) != Record(x)
    r = dataclasses.replace(Record(x), b=x * 3.0)
    f = dataclasses.replace(Frozen(x, 2.0), a=x * x)
    total = sum(dataclasses.astuple(r)) + dataclasses.asdict(r)["b"]
    return (total if same else 0.0) + (f.a * f.b if Frozen(0.0) < f else 0.0)


class Scale:
    def __init__(self, k):
        self.k = k

    @classmethod
    def make(cls, k):
        return cls(k)

    def __call__(self, x):
        return x * self.k


def object_built_by_a_classmethod_then_called(x):
    m = Scale.make(2.0)
    n = Scale.make(x)
    return m(x) + n(x)


class Tripled:
    """A context manager whose __enter__ computes the bound value; its __exit__ sees
    the exception and suppresses a ZeroDivisionError."""

    def __init__(self, v):
        self.v, self.seen = v, []

    def __enter__(self):
        return self.v * 3.0

    def __exit__(self, kind, exc, tb):
        self.seen.append(kind)
        return kind is ZeroDivisionError


def with_bound_value_carries_its_tangent(x):
    with contextlib.nullcontext(x * 2.0) as a, Tripled(a) as b:
        y = a * b
    manager = Tripled(x)
    with manager as c:
        y = y + c * 2.0
        y = y / 0.0  # suppressed by __exit__: y keeps its value
    total = 0.0
    for k in range(3):
        with Tripled(x * k) as v:
            if k == 1:
                continue  # __exit__ runs, as in Python
            total = total + v
    return y + total + len(manager.seen)


_LOCK = threading.Lock()


def with_managers_holding_no_values(x):
    a = np.array([x, 2.0 * x])
    with np.errstate(divide="ignore", invalid="ignore"):
        b = a / np.array([1.0, 0.0])
    with np.printoptions(precision=3):
        text = str(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.warn("not shown")
        y = a.sum() * 2.0 + b[0]
    with contextlib.suppress(KeyError):
        y = y * 3.0
        y = {}["missing"]
    with _LOCK, threading.RLock():
        y = y + x
    with contextlib.redirect_stdout(io.StringIO()):
        print(y)
    return y + len(text)


@dataclasses.dataclass(frozen=True)
class Frame:
    """A frozen dataclass whose __post_init__ sets a derived field around __setattr__."""
    origin: float
    scale: float = 2.0

    def __post_init__(self):
        object.__setattr__(self, "span", self.origin * self.scale)


def frozen_dataclass_argument_and_output(frame, x):
    moved = dataclasses.replace(frame, origin=frame.origin * x)
    return Frame(moved.span + x, moved.scale * frame.origin)
