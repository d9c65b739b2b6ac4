"""Structured arrays and natural tangents: write a rule once, on dense tangents.

`Diagonal`, `Symmetric` and `ScaledMatrix` (an over-parametrised `scale * matrix`) are
array-likes written in plain Python, so fwdad differentiates their own code in both
modes. Their *structural* (co)tangent holds one entry per field, `Tangent(diag=...)`;
their *natural* (co)tangent is a dense array. Following the ChainRules proposal:

    destructure(x)        the dense array with x's entries (collect, via x.entry(i, j))
    Restructure(x)(d)     an array-like of x's type whose destructure is d, taking the
                          parameters that entries do not fix (a ScaledMatrix's scale,
                          a Symmetric's unused lower triangle) from x

    natural tangent     = pushforward of destructure (structural tangent)
    natural cotangent   = pullback of Restructure    (structural cotangent)

`wrap_natural_pushforward` / `wrap_natural_pullback` convert at the boundary, so that
the generic rules at the end (matmul, sum, trace, solve) are written once, on dense
tangents, for every array-like; tests/reverse/test_structured.py checks that they agree
with AD through each class's own code.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fwdad.tangents import Tangent


def _upper(n):
    """The 0/1 masks of the upper triangle (with the diagonal) and the strict lower one."""
    i = np.arange(n)
    upper = (i[:, None] <= i[None, :]) * 1.0
    return upper, 1.0 - upper


def gauss_solve(a, b):
    """x with a @ x = b for a vector b, by elimination without pivoting (in place on
    copies; for the well-conditioned matrices of the examples)."""
    a, x = a * 1.0, b * 1.0
    n = a.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            factor = a[i, k] / a[k, k]
            a[i, k:] -= factor * a[k, k:]
            x[i] -= factor * x[k]
    for k in range(n - 1, -1, -1):
        x[k] = (x[k] - np.dot(a[k, k + 1:], x[k + 1:])) / a[k, k]
    return x


def as_dense(x):
    return x.dense() if hasattr(x, "dense") else x


# ---- the array-likes, in plain Python -------------------------------------------------
class _ArrayLike:
    """What the array-likes share: x[i, j] and x @ y for plain use."""

    def __getitem__(self, ij):
        return self.entry(*ij)

    def __matmul__(self, other):
        return self.matmul(other)


class Diagonal(_ArrayLike):
    """A diagonal matrix, stored as its diagonal."""

    def __init__(self, diag):
        self.diag = diag

    @property
    def shape(self):
        return (self.diag.shape[0], self.diag.shape[0])

    def entry(self, i, j):
        return self.diag[i] if i == j else 0.0

    def dense(self):
        return np.eye(self.diag.shape[0]) * self.diag

    def matmul(self, other):
        if isinstance(other, Diagonal):
            return Diagonal(self.diag * other.diag)
        return self.diag[:, None] * as_dense(other)

    def sum(self):
        return np.sum(self.diag)

    def trace(self):
        return np.sum(self.diag)

    def solve(self, b):
        return b / self.diag

class Symmetric(_ArrayLike):
    """A symmetric matrix that reads only the upper triangle of `data`."""

    def __init__(self, data):
        self.data = data

    @property
    def shape(self):
        return self.data.shape

    def entry(self, i, j):
        return self.data[i, j] if i <= j else self.data[j, i]

    def dense(self):
        upper, _ = _upper(self.data.shape[0])
        strict = self.data * (upper - np.eye(self.data.shape[0]))
        return self.data * upper + strict.T

    def matmul(self, other):
        return self.dense() @ as_dense(other)

    def sum(self):
        return np.sum(self.dense())

    def trace(self):
        return np.sum(self.data * np.eye(self.data.shape[0]))

    def solve(self, b):
        return gauss_solve(self.dense(), b)

class ScaledMatrix(_ArrayLike):
    """`scale * matrix`: over-parametrised (one more parameter than entries)."""

    def __init__(self, scale, matrix):
        self.scale, self.matrix = scale, matrix

    @property
    def shape(self):
        return self.matrix.shape

    def entry(self, i, j):
        return self.scale * self.matrix[i, j]

    def dense(self):
        return self.scale * self.matrix

    def matmul(self, other):
        if isinstance(other, ScaledMatrix):
            return ScaledMatrix(self.scale * other.scale, self.matrix @ other.matrix)
        return self.scale * (self.matrix @ as_dense(other))

    def sum(self):
        return self.scale * np.sum(self.matrix)

    def trace(self):
        return self.scale * np.sum(self.matrix * np.eye(self.matrix.shape[0]))

    def solve(self, b):
        return gauss_solve(self.matrix, b) / self.scale

# ---- destructure and Restructure (their definitions; AD runs through them in tests) ----
def destructure(x):
    """The dense array of x's entries, read through x.entry(i, j) (collect)."""
    if isinstance(x, np.ndarray):
        return x
    n, m = x.shape
    return np.array([[x.entry(i, j) for j in range(m)] for i in range(n)])


class Restructure:
    """`Restructure(like)(dense)`: the array-like of like's type with these entries."""

    def __init__(self, like):
        self.like = like

    def __call__(self, dense):
        like = self.like
        if isinstance(like, Diagonal):
            i = np.arange(dense.shape[0])
            return Diagonal(dense[i, i])
        if isinstance(like, Symmetric):
            upper, lower = _upper(dense.shape[0])
            return Symmetric(dense * upper + like.data * lower)
        if isinstance(like, ScaledMatrix):
            return ScaledMatrix(like.scale, dense / like.scale)
        return dense


# ---- their derivatives, by hand: (pushforward of destructure, its transpose, ----------
# ---- pushforward of Restructure, its transpose), per type -------------------------------
def _diagonal_maps(x):
    return (lambda t: np.diag(t.diag), lambda ct: Tangent(diag=np.diag(ct).copy()),
            lambda t: Tangent(diag=np.diag(t).copy()), lambda ct: np.diag(ct.diag))


def _symmetric_maps(x):
    return (lambda t: np.triu(t.data) + np.triu(t.data, 1).T,
            lambda ct: Tangent(data=np.triu(ct) + np.triu(ct.T, 1)),
            lambda t: Tangent(data=np.triu(t)), lambda ct: np.triu(ct.data))


def _scaled_maps(x):
    s, m = x.scale, x.matrix
    return (lambda t: t.scale * m + s * t.matrix,
            lambda ct: Tangent(scale=float(np.sum(ct * m)), matrix=s * ct),
            lambda t: Tangent(scale=0.0, matrix=t / s), lambda ct: ct.matrix / s)


_IDENTITY = (lambda t: t,) * 4
_MAPS = {Diagonal: _diagonal_maps, Symmetric: _symmetric_maps, ScaledMatrix: _scaled_maps}


def _maps(x):
    make = _MAPS.get(type(x))
    return _IDENTITY if make is None else make(x)


def pushforward_destructure(x, t):
    """Structural tangent of x -> natural (dense) tangent."""
    return _maps(x)[0](t)


def pullback_destructure(x, ct):
    """Natural (dense) cotangent of x -> structural cotangent."""
    return _maps(x)[1](ct)


def pushforward_restructure(x, t):
    """Natural (dense) tangent of an output like x -> its structural tangent."""
    return _maps(x)[2](t)


def pullback_restructure(x, ct):
    """Structural cotangent of an output like x -> natural (dense) cotangent."""
    return _maps(x)[3](ct)


def wrap_natural_pullback(natural: Callable, out: Any, *args: Any) -> Callable:
    """A pullback on structural cotangents from one on natural cotangents."""
    def pullback(ct):
        cts = natural(pullback_restructure(out, ct))
        return tuple(pullback_destructure(a, c) for a, c in zip(args, cts))
    return pullback


def wrap_natural_pushforward(natural: Callable, out: Any, *args: Any) -> Callable:
    """A pushforward on structural tangents from one on natural tangents."""
    def pushforward(*tangents):
        dense = [pushforward_destructure(a, t) for a, t in zip(args, tangents)]
        return pushforward_restructure(out, natural(*dense))
    return pushforward


# ---- generic rules, written once on natural tangents --------------------------------------
@dataclass
class NaturalRule:
    """`primal(*args)` runs the array-likes' own code; `pushforward(dense args, dense
    tangents)` and `pullback(dense args, out, dense cotangent)` work on dense arrays."""

    primal: Callable
    pushforward: Callable
    pullback: Callable


def _solve_pushforward(a, b, da, db):
    return np.linalg.solve(a, db - da @ np.linalg.solve(a, b))


def _solve_pullback(a, b, out, ct):
    g = np.linalg.solve(a.T, ct)
    return -np.outer(g, out), g


def _matmul(a, b):  # operators on instances do not reach their methods in fwdad yet
    return a.matmul(b) if hasattr(a, "matmul") else a @ b


GENERIC = {
    "matmul": NaturalRule(_matmul, lambda a, b, da, db: da @ b + a @ db,
                          lambda a, b, out, ct: (ct @ b.T, a.T @ ct)),
    "sum": NaturalRule(lambda a: a.sum(), lambda a, da: float(np.sum(da)),
                       lambda a, out, ct: (ct * np.ones(a.shape),)),
    "trace": NaturalRule(lambda a: a.trace(), lambda a, da: float(np.trace(da)),
                         lambda a, out, ct: (ct * np.eye(a.shape[0]),)),
    "solve": NaturalRule(lambda a, b: a.solve(b), _solve_pushforward, _solve_pullback),
}


def generic_rrule(rule: NaturalRule, *args):
    """(out, pullback on structural cotangents) from a natural rule."""
    out, dense = rule.primal(*args), [as_dense(a) for a in args]
    natural = lambda ct: rule.pullback(*dense, as_dense(out), ct)  # noqa: E731
    return out, wrap_natural_pullback(natural, out, *args)


def generic_frule(rule: NaturalRule, args: tuple, tangents: tuple):
    """(out, structural tangent of out) from a natural rule."""
    out, dense = rule.primal(*args), [as_dense(a) for a in args]
    natural = lambda *dts: rule.pushforward(*dense, *dts)  # noqa: E731
    return out, wrap_natural_pushforward(natural, out, *args)(*tangents)
