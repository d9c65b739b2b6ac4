"""Structured arrays: the hand-written derivatives of destructure and Restructure agree
with AD through their definitions, and the generic rules (written once on natural
tangents) agree with AD through each class's own code, in forward and reverse mode."""
import numpy as np
import pytest

import fwdad
from fwdad.structured import (
    GENERIC,
    Diagonal,
    Restructure,
    ScaledMatrix,
    Symmetric,
    destructure,
    generic_frule,
    generic_rrule,
    pullback_destructure,
    pullback_restructure,
    pushforward_destructure,
    pushforward_restructure,
)
from fwdad.tangents import Tangent, random_tangent
from tests.util import assert_close

R = np.random.default_rng(11)
N = 3
WEIGHTS = R.standard_normal((N, N))
B = R.standard_normal(N)


def _instances():
    return [Diagonal(R.uniform(1.0, 2.0, N)),
            Symmetric(R.standard_normal((N, N)) + 4.0 * np.eye(N)),
            ScaledMatrix(1.7, R.standard_normal((N, N)) * 0.3 + 3.0 * np.eye(N))]


FIRST, SECOND = _instances(), _instances()
IDS = [type(x).__name__ for x in FIRST]


def _fields(t):
    return vars(t) if isinstance(t, Tangent) else t


def _observe(out):
    """A fixed linear function of the output's entries."""
    if isinstance(out, float):
        return out * 1.0
    return np.sum(destructure(out) * WEIGHTS)


@pytest.mark.parametrize("x", FIRST, ids=IDS)
def test_destructure_derivatives_match_ad(x):
    rng = np.random.default_rng(0)
    t = Tangent(**vars(random_tangent(x, rng)))
    _, tangent = fwdad.jvp(destructure, (x,), (t,))
    assert_close(pushforward_destructure(x, t), tangent, rtol=1e-12)
    ct = rng.standard_normal((N, N))
    _, pullback = fwdad.vjp(destructure, x)
    assert_close(_fields(pullback_destructure(x, ct)), _fields(pullback(ct)[0]), rtol=1e-12)


@pytest.mark.parametrize("x", FIRST, ids=IDS)
def test_restructure_derivatives_match_ad(x):
    rng, dense = np.random.default_rng(1), x.dense()
    again = Restructure(x)(dense)
    assert_close(vars(again), vars(x), rtol=1e-12)  # Restructure(x)(destructure(x)) is x
    t = rng.standard_normal((N, N))
    _, tangent = fwdad.jvp(Restructure(x), (dense,), (t,))
    assert_close(_fields(pushforward_restructure(x, t)), _fields(tangent), rtol=1e-12)
    ct = random_tangent(x, rng)
    _, pullback = fwdad.vjp(Restructure(x), dense)
    assert_close(pullback_restructure(x, ct), pullback(ct)[0], rtol=1e-12)


def _rows():
    for x, y in zip(FIRST, SECOND):
        yield "matmul", (x, y)
        yield "sum", (x,)
        yield "trace", (x,)
        yield "solve", (x, B)


ROWS = list(_rows())
ROW_IDS = [f"{name}-{type(args[0]).__name__}" for name, args in ROWS]


def _own_code(name):
    rule = GENERIC[name]

    def loss(*args):
        return _observe(rule.primal(*args))
    return loss


@pytest.mark.parametrize("name,args", ROWS, ids=ROW_IDS)
def test_generic_pullback_matches_ad_through_own_code(name, args):
    _, own = fwdad.vjp(_own_code(name), *args)
    out, pullback = generic_rrule(GENERIC[name], *args)
    _, observe = fwdad.vjp(_observe, out)
    generic = pullback(observe(1.0)[0])
    assert_close([_fields(c) for c in generic], [_fields(c) for c in own(1.0)], rtol=1e-9)


@pytest.mark.parametrize("name,args", ROWS, ids=ROW_IDS)
def test_generic_pushforward_matches_ad_through_own_code(name, args):
    rng = np.random.default_rng(2)
    tangents = [random_tangent(a, rng) for a in args]
    _, own = fwdad.jvp(_own_code(name), args, tangents)
    out, out_tangent = generic_frule(GENERIC[name], args, tangents)
    _, generic = fwdad.jvp(_observe, (out,), (out_tangent,))
    assert np.isclose(generic, own, rtol=1e-9)
