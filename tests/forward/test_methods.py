"""Method calls on float arrays (forward/optimizer/methods.py): `u.reshape(m, m)` is pure
in the variants for the arguments' kinds, and its result a view of u. Writing through
the view changes u, and the optimized rule must see that exactly as the plain rule
does: checked against the plain rule (one tangent and batched), central differences
and jacfwd."""
import numpy as np
import pytest

import fwdad
from fwdad.dual import Dual
from fwdad.forward.derive import build_rule
from fwdad.forward.optimizer.kinds import signature
from fwdad.forward.routes import BATCHED, KINDS
from tests.util import assert_close, assert_optimized_matches_plain, fd_jvp


def written_through_reshape(x):
    """g views u: the write through g changes u, which is read after it."""
    u = x * 1.5
    g = u.reshape(2, 3)
    g[0, 1] = 5.0 * g[1, 2]
    g[1, :] += x[:3]
    return u * 2.0 + g.sum()


def written_through_ravel(x):
    u = x * x
    v = u.ravel()
    v[0] += x[1, 2] * v[4]
    return u * v[0] + v.reshape(2, 3)


def written_through_transpose(x):
    u = np.sin(x)
    t = u.transpose()
    t[2, 0] = t[0, 1] * 3.0
    return u.copy() * x


def viewed_then_updated(x):
    """The source is updated after the view is made: the view sees it."""
    u = x * 2.0
    g = u.reshape(3, 2)
    u[1:] += x[:-1]
    return g * g


def argument_written_through(x):
    """A view of the argument written through: the caller's array changes too."""
    g = x.reshape(2, 3)
    g[1, 1] = g[0, 0] * g[0, 2]
    return x * 1.0


def flattened_sums(x):
    return x.reshape(-1).sum() * x.ravel() + x.T.copy().ravel()


POINTS = {written_through_reshape: (6,), written_through_ravel: (2, 3),
          written_through_transpose: (2, 3), viewed_then_updated: (6,),
          argument_written_through: (6,), flattened_sums: (2, 3)}
CASES = list(POINTS)


def _point(fn, seed=0):
    return np.random.default_rng(seed).uniform(0.2, 0.9, POINTS[fn])


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_optimized_rule_matches_plain_rule(fn):
    rule = build_rule(fn)
    assert_optimized_matches_plain(rule, rule.unoptimized, [_point(fn)],
                                   np.random.default_rng(1))


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_variants_call_the_methods_rules(fn):
    """The variant for float arrays calls the methods' rules (no dynamic call). The
    one for batched tangents does too where nothing is written through a view (a write
    to an array that another name holds stays the plain rule's: batched_variant.py)."""
    x = _point(fn)
    routes = build_rule(fn).routes
    kinds = ((KINDS, signature((Dual(x, x),))),)
    keys = [kinds] + ([BATCHED + kinds] if fn is flattened_sums else [])
    for key in keys:
        source = routes.variant(key).source
        assert "_fw_array_" in source and "_fw_call(" not in source, source


def test_the_five_point_stencil_runs_optimized():
    """bench/sparse.py's residual_2d: grid = u.reshape(m, m), updated in place (by the
    rule, or written inline in the variant for batched tangents)."""
    from bench.sparse import residual_2d
    x = np.random.default_rng(0).uniform(0.1, 0.9, 16)
    rule = build_rule(residual_2d)
    kinds = ((KINDS, signature((Dual(x, x),))),)
    for key, by_rule in ((kinds, True), (BATCHED + kinds, False)):
        source = rule.routes.variant(key).source
        assert ("_fw_update_owned" in source) is by_rule and "_fw_call(" not in source, \
            source
    assert_optimized_matches_plain(rule, rule.unoptimized, [x], np.random.default_rng(1))


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_jvp_and_jacfwd_match_central_differences(fn):
    x = _point(fn)
    t = np.random.default_rng(2).standard_normal(x.shape)
    _, got = fwdad.jvp(fn, (x.copy(),), (t,))
    assert_close(got, fd_jvp(fn, (x.copy(),), (t,)), rtol=1e-6)
    jac = fwdad.jacfwd(fn)(x.copy())
    for i, e in enumerate(np.eye(x.size)):
        column = jac.reshape(jac.shape[:-x.ndim] + (x.size,))[..., i]
        assert_close(column, fd_jvp(fn, (x.copy(),), (e.reshape(x.shape),)), rtol=1e-6)


class Mutating(np.ndarray):
    """A subclass whose reshape writes into the array: not a float array's kind."""

    def reshape(self, *shape):
        self[0] = 2.0 * self[0]
        return np.ndarray.reshape(self, *shape)


def reshaped_subclass(x):
    g = x.reshape(2, 3)
    return g * x[0]


def test_a_subclass_with_its_own_method_is_called_as_it_is():
    """A subclass may override the method: its kind is OTHER, and the call stays a
    dynamic call, which runs its reshape (mutating the argument) as Python does."""
    x = np.linspace(0.3, 0.8, 6).view(Mutating)
    t, h = np.linspace(1.0, 2.0, 6), 1e-6
    y, dy = fwdad.jvp(reshaped_subclass, (x.copy(),), (t,))
    assert_close(np.asarray(y), np.asarray(reshaped_subclass(x.copy())))
    ahead, behind = ((x + s * h * t).view(Mutating) for s in (1.0, -1.0))
    want = (np.asarray(reshaped_subclass(ahead)) - np.asarray(reshaped_subclass(behind)))
    assert_close(np.asarray(dy), want / (2 * h), rtol=1e-6)
