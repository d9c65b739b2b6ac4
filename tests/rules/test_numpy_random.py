"""np.random rules: a draw through fwdad gives exactly the plain call's values (with a
generator in the same state), no tangent, and leaves the generator in the same state;
shuffles move tangents with their values."""
import copy

import numpy as np
import pytest

import fwdad
from fwdad.core.duals import const
from fwdad.dual import Dual
from fwdad.rules.registry import get_frule
from fwdad.tangents import NoTangent, random_tangent
from tests.rules.random_cases import RANDOM_ROWS


def _state(value):
    source = value if isinstance(value, np.random.Generator) else None
    if source is not None:
        return source.bit_generator.state
    if isinstance(value, np.random.RandomState):
        return value.get_state(legacy=False)
    return None


def _same(a, b):
    if isinstance(a, (np.random.Generator, np.random.RandomState)):
        return type(a) is type(b) and _same(_state(a), _state(b))
    if isinstance(a, np.random.BitGenerator):
        return type(a) is type(b) and _same(a.state, b.state)
    if isinstance(a, np.random.SeedSequence):
        return repr(a) == repr(b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return np.array_equal(a, b)


def _global_state():
    return np.random.get_state(legacy=False)


@pytest.mark.parametrize("case", RANDOM_ROWS, ids=str)
@pytest.mark.filterwarnings("ignore:This function is deprecated:DeprecationWarning")
def test_random_rule_matches_a_plain_call(case):
    plain_args = copy.deepcopy(case.args)
    saved = _global_state()
    want = case.fn(*plain_args, **case.kwargs)
    want_global = _global_state()
    np.random.set_state(saved)
    args = copy.deepcopy(case.args)
    rng = np.random.default_rng(0)
    draw = getattr(case.fn, "__name__", "") not in ("shuffle", "permutation", "permuted")
    # (a draw's parameters are constants: one with a derivative is refused,
    # tests/test_random_parameters.py; a shuffled array carries its tangent)
    duals = [const(a) if draw else Dual(a, random_tangent(a, rng)) for a in args]
    out = get_frule(case.fn)(*duals, **{k: const(v) for k, v in case.kwargs.items()})
    assert _same(want, out.primal)
    assert _same(_global_state(), want_global)
    for before, after in zip(plain_args, args):
        assert _same(_state(before), _state(after))
    if draw:  # a draw: constant
        assert _all_zero(out.tangent)


def _all_zero(tangent):
    if isinstance(tangent, (tuple, list)):
        return all(_all_zero(t) for t in tangent)
    return tangent is NoTangent or not np.any(tangent)


@pytest.mark.parametrize("method", ["shuffle", "permutation"])
@pytest.mark.parametrize("source", [np.random.default_rng, np.random.RandomState])
def test_a_shuffle_moves_tangents_with_values(method, source):
    """The tangent of a shuffled array: its values' tangents, in their new places
    (each value here is its own tangent, so the tangent equals the primal)."""
    def f(x, rng):
        y = x * 1.0
        out = getattr(rng, method)(y)
        return y if out is None else out
    x = np.arange(12.0).reshape(6, 2)
    out, dout = fwdad.jvp(f, (x, source(5)), (x, None))
    assert np.array_equal(out, dout)
    assert np.array_equal(out, f(x, source(5)))


def test_draws_inside_a_function_are_constants():
    def f(x):
        rng = np.random.default_rng(11)
        return x * rng.normal(size=3) + np.random.RandomState(2).uniform(size=3)
    x, dx = np.array([0.3, -1.2, 0.5]), np.array([1.0, 2.0, 3.0])
    out, dout = fwdad.jvp(f, (x,), (dx,))
    assert np.array_equal(out, f(x))
    assert np.allclose(dout, dx * np.random.default_rng(11).normal(size=3))


def test_module_level_draws_follow_the_global_seed():
    def f(x):
        return x + np.random.normal(size=2)
    np.random.seed(4)
    out, dout = fwdad.jvp(f, (np.zeros(2),), (np.ones(2),))
    np.random.seed(4)
    assert np.array_equal(out, np.random.normal(size=2))
    assert np.array_equal(dout, np.ones(2))
