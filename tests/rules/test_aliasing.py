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
from fwdad.dual import Dual
from fwdad.forward.runtime import const
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
VIEW_CASES = [c for c in PRIMITIVE_CASES if c.fn is not np.broadcast_arrays]


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
