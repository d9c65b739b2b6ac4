"""A new array has a tangent of its own: updating it in place leaves its operands'
tangents alone.

Each program makes a new array `b` from `a` where a rule used to pass a's tangent
through (`a + 0`: the int has no tangent), then updates `b` in place and reads both
(jvp and jacfwd against central finite differences); where NumPy makes no copy
(`np.asarray(a)`), b is a, and the update changes both. The sweep below runs every rule
case again with an int operand, other memory layouts and scalars, and checks the rule
directly.
"""
import contextlib
import copy
import warnings

import numpy as np
import pytest

import fwdad
from fwdad.core.duals import const
from fwdad.dual import Dual
from fwdad.rules import batching
from fwdad.rules.registry import get_frule, is_primitive
from fwdad.tangents import random_tangent, stack
from fwdad.testing.aliasing import first_alias, first_lost_view
from tests.rules.case import unwrap
from tests.rules.cases import CASES
from tests.util import assert_close, fd_jvp


def add_to(a, b):
    """Updates b in place, then reads a and b."""
    b += a
    b -= 0.5 * a
    return (a * a).sum() + (b * b).sum()


def set_in(a, b):
    b[...] = b * a
    return (a * a).sum() + (b * b).sum()


def write_out(a, b):
    np.multiply(b, 3.0, out=b)
    return (a * a).sum() + (b * b).sum()


PROGRAMS = [  # (what makes b, the program)
    ("a + 0", lambda a: add_to(a, a + 0)),
    ("0 + a", lambda a: add_to(a, 0 + a)),
    ("a - 0", lambda a: add_to(a, a - 0)),
    ("a + False", lambda a: add_to(a, a + False)),
    ("a + 0 * 1", lambda a: add_to(a, a + 0 * 1)),
    ("a % 7", lambda a: add_to(a, a % 7)),
    ("+a", lambda a: add_to(a, +a)),
    ("a + int array", lambda a: add_to(a, a + np.zeros(3, dtype=int))),
    ("np.add(a, 0)", lambda a: add_to(a, np.add(a, 0))),
    ("np.subtract(a, 0)", lambda a: add_to(a, np.subtract(a, 0))),
    ("np.add(a, int array)", lambda a: add_to(a, np.add(a, np.zeros(3, dtype=int)))),
    ("np.positive(a)", lambda a: add_to(a, np.positive(a))),
    ("np.remainder(a, 7)", lambda a: add_to(a, np.remainder(a, 7))),
    ("np.fmod(a, 7)", lambda a: add_to(a, np.fmod(a, 7))),
    ("np.nextafter(a, 0)", lambda a: add_to(a, np.nextafter(a, 0))),
    ("np.modf(a)[0]", lambda a: add_to(a, np.modf(a)[0])),
    ("np.divmod(a, 7)[1]", lambda a: add_to(a, np.divmod(a, 7)[1])),
    ("np.real(a) + 0", lambda a: add_to(a, np.real(a) + 0)),
    ("a.reshape(3) + 0", lambda a: add_to(a, a.reshape(3) + 0)),
    ("np.squeeze(a) + 0", lambda a: add_to(a, np.squeeze(a) + 0)),
    ("np.ravel(a) + 0", lambda a: add_to(a, np.ravel(a) + 0)),
    ("np.atleast_1d(a) + 0", lambda a: add_to(a, np.atleast_1d(a) + 0)),
    ("a.flatten()", lambda a: add_to(a, a.flatten())),
    ("sum([a])", lambda a: add_to(a, sum([a]))),
    ("a + 0, then b[...] =", lambda a: set_in(a, a + 0)),
    ("a + 0, then out=b", lambda a: write_out(a, a + 0)),
    ("a.flatten(), then out=b", lambda a: write_out(a, a.flatten())),
    # no copy made: b is a, so updating b updates a, value and tangent alike
    ("np.asarray(a)", lambda a: add_to(a, np.asarray(a))),
    ("np.asanyarray(a)", lambda a: add_to(a, np.asanyarray(a))),
    ("np.ascontiguousarray(a)", lambda a: add_to(a, np.ascontiguousarray(a))),
    ("np.asfortranarray(a)", lambda a: add_to(a, np.asfortranarray(a))),
    ("np.array(a, copy=None)", lambda a: add_to(a, np.array(a, copy=None))),
    ("a.astype(float, copy=False)", lambda a: add_to(a, a.astype(float, copy=False))),
    # views: b views a, for a batch of tangents too
    ("np.atleast_1d(a)", lambda a: add_to(a, np.atleast_1d(a))),
    ("np.atleast_2d(a)[0]", lambda a: add_to(a, np.atleast_2d(a)[0])),
    ("np.split(a, 1)[0]", lambda a: add_to(a, np.split(a, 1)[0])),
    ("np.unstack(a[None])[0]", lambda a: add_to(a, np.unstack(a[None])[0])),
    ("a.ravel('F')", lambda a: add_to(a, a.ravel("F"))),
    ("a.conj()", lambda a: add_to(a, a.conj())),
    ("np.flipud(a)", lambda a: add_to(a, np.flipud(a))),
]
A = np.array([0.5, 1.5, 2.5])


def _gradient(f, x):
    return np.array([fd_jvp(f, (x,), (e,)) for e in np.eye(len(x))])


@pytest.mark.parametrize("what, f", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_updating_the_result_in_place(what, f):
    want = _gradient(f, A)
    # (a copy: jvp runs f on its arguments, and some programs update a through b)
    assert_close([fwdad.jvp(f, (A.copy(),), (e,))[1] for e in np.eye(3)], want, rtol=1e-6)
    assert_close(fwdad.jacfwd(f)(A), want, rtol=1e-6)


def flattened_and_updated(x):
    b = x.reshape(-1)  # a copy of an F-ordered x; its C-ordered tangent reshapes to a view
    b += 1.0
    b *= 2.0
    return (x * x).sum() + (b * b).sum()


def test_a_reshape_that_copies_the_value_copies_the_tangent():
    x = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    dx = np.arange(1.0, 7.0).reshape(2, 3)  # C order
    moved = [flattened_and_updated(np.asfortranarray(x + h * dx)) for h in (1e-6, -1e-6)]
    assert_close(fwdad.jvp(flattened_and_updated, (x,), (dx,))[1],
                 (moved[0] - moved[1]) / 2e-6, rtol=1e-6)  # (x stays F-ordered)


# ---- every rule case, with an int operand, other layouts, scalars ----------------------
def _variants(args):
    """The arguments again with one changed: an int (or bool) in place of a float
    operand, an F-ordered or strided array, a 0-d array or NumPy scalar for a vector."""
    floats = [i for i, a in enumerate(args) if type(a) is float or
              (isinstance(a, np.ndarray) and a.dtype.kind == "f")]
    for i in floats:
        a, put = args[i], (lambda v, i=i: args[:i] + (v,) + args[i + 1:])
        if len(floats) > 1:
            yield put(np.zeros(np.shape(a), int) if np.ndim(a) else 0)
            yield put(np.zeros(np.shape(a), bool) if np.ndim(a) else False)
        if np.ndim(a) >= 2:
            yield put(np.asfortranarray(a))
        if np.ndim(a) >= 1:
            yield put(np.repeat(a, 2, axis=-1)[..., ::2])
        if np.ndim(a) == 1:
            yield from (put(np.array(a[0])), put(a[0]), put(a[None]))


def _run(rule, args, tangents, kwargs):
    duals = [Dual(copy.deepcopy(a), t) for a, t in zip(args, tangents)]
    out = rule(*duals, **{k: const(v) for k, v in kwargs.items()})
    return out, duals


PRIMITIVE_CASES = [c for c in map(unwrap, CASES) if is_primitive(c.fn)]


@pytest.mark.parametrize("case", PRIMITIVE_CASES, ids=str)
def test_no_rule_gives_a_new_array_an_operands_tangent(case):
    rng, rule = np.random.default_rng(0), get_frule(case.fn)
    for args in _variants(tuple(case.args)):
        for size in (None, 3):
            tangents = [random_tangent(a, rng) for a in args] if size is None else \
                [stack([random_tangent(a, rng) for _ in range(size)]) for a in args]
            try:
                with warnings.catch_warnings(), \
                        batching.batch(size) if size else contextlib.nullcontext():
                    warnings.simplefilter("ignore")
                    out, duals = _run(rule, args, tangents, case.kwargs)
            except Exception:  # a variant the function does not take
                continue
            alias = isinstance(out, Dual) and first_alias(
                out.primal, out.tangent, [(d.primal, d.tangent) for d in duals])
            assert not alias, f"{case} at {args} (batch {size}): {alias}"


# Note: np.broadcast_arrays's results are writeable only until NumPy makes them
# read-only (it warns on a write already); its rule gives them tangents of their own.
def _is_draw(fn) -> bool:
    owner = getattr(fn, "__qualname__", "").split(".")[0]
    return owner in ("Generator", "RandomState") and fn.__name__ not in (
        "shuffle", "permutation", "permuted")


# A random draw returns a new array, and one whose parameters carry tangents is refused
# (tests/test_random_parameters.py): left out too.
VIEW_CASES = [c for c in PRIMITIVE_CASES if c.fn is not np.broadcast_arrays
              and not _is_draw(c.fn)]


@pytest.mark.parametrize("case", VIEW_CASES, ids=str)
def test_a_view_has_a_view_of_the_tangent(case):
    """Writing through a view changes the argument's tangent as it changes its value:
    for a batch of tangents, too."""
    rng, rule = np.random.default_rng(0), get_frule(case.fn)
    for size in (None, 3):
        tangents = [random_tangent(a, rng) for a in case.args] if size is None else \
            [stack([random_tangent(a, rng) for _ in range(size)]) for a in case.args]
        with warnings.catch_warnings(), \
                batching.batch(size) if size else contextlib.nullcontext():
            warnings.simplefilter("ignore")
            out, duals = _run(rule, tuple(case.args), tangents, case.kwargs)
        lost = isinstance(out, Dual) and first_lost_view(
            out.primal, out.tangent, [(d.primal, d.tangent) for d in duals])
        assert not lost, f"{case} (batch {size}): {lost}"


# ---- a number read from an array is a copy, for a batch of tangents too -----------------
# One tangent makes `a[0]`'s tangent a number; a batch of them, `da[:, 0]`, is an array:
# a view of a's tangent until the rules copy it, so that a later write to a changed it.
def read_then_zero(z):
    t = z[0]
    z[0] = 0.0
    return t


def swap(z):
    z[0], z[1] = z[1], z[0]
    return z


def read_then_scale(z):
    b = z.reshape(2, 2)
    v = b[1, 0]
    b *= 3.0
    return v


def _zero_front(z, values):
    z[0] = 0.0
    z[1] = 0.0
    return values[0] + 2.0 * values[1] + 3.0 * values[2]


def diagonal_then_write(z):
    b = z.reshape(2, 2)
    d = np.diag(b)  # a read-only view: the write shows through it
    b[0, 0] = 5.0
    return d * z[1]


def read_then_square(a):
    t = a[0]
    a[0] = 0.0
    return t * t + np.sum(a * a)


ELEMENT_READS = [  # (how the numbers are read, the program)
    ("z[0]", read_then_zero),
    ("z[0], z[1] = z[1], z[0]", swap),
    ("b[1, 0] of a view", read_then_scale),
    ("z.item(0)", lambda z: _zero_front(z, [z.item(0), z.item(1), z.item(2)])),
    ("float(z[0])", lambda z: _zero_front(z, [float(z[0]), float(z[1]), float(z[2])])),
    ("for v in z", lambda z: _zero_front(z, [v for v in z])),
    ("x, y, w = z", lambda z: _zero_front(z, tuple(v for v in z))),
    ("list(z)", lambda z: _zero_front(z, list(z))),
    ("z.tolist()", lambda z: _zero_front(z, z.tolist())),
    ("list(z.flat)", lambda z: _zero_front(z, list(z.flat))),
    ("np.diag(b) of a matrix: a view", diagonal_then_write),
    ("t * t after a[0] = 0", read_then_square),
]
Z = np.array([0.5, 1.5, 2.5, 3.5])


def _jacobian(f, x):
    return np.moveaxis(np.array([fd_jvp(f, (x.copy(),), (e,)) for e in np.eye(len(x))]),
                       0, -1)


@pytest.mark.parametrize("what, f", ELEMENT_READS, ids=[p[0] for p in ELEMENT_READS])
def test_a_number_read_from_an_array_keeps_its_tangent(what, f):
    want = _jacobian(f, Z)
    got = [fwdad.jvp(f, (Z.copy(),), (e,))[1] for e in np.eye(len(Z))]
    assert_close(np.moveaxis(np.array(got), 0, -1), want, rtol=1e-6)
    assert_close(fwdad.jacfwd(f)(Z.copy()), want, rtol=1e-6)


@pytest.mark.parametrize("what, f", ELEMENT_READS, ids=[p[0] for p in ELEMENT_READS])
def test_a_number_read_from_an_array_keeps_its_linearized_tangent(what, f):
    out, lin = fwdad.linearize(f, Z.copy())
    want = _jacobian(f, Z)
    assert_close(np.moveaxis(np.array([lin(e) for e in np.eye(len(Z))]), 0, -1), want,
                 rtol=1e-6)
    ct = np.arange(1.0, 1.0 + np.size(out)).reshape(np.shape(out))
    assert_close(lin.T(ct)[0], np.tensordot(ct, want, np.ndim(out)), rtol=1e-6)


def test_hessian_of_a_number_read_before_a_write():
    """t = a[0]; a[0] = 0: f is t^2 + a1^2 + a2^2 + ..., whose Hessian is 2I."""
    assert_close(fwdad.hessian(read_then_square)(Z.copy()), 2.0 * np.eye(len(Z)))
