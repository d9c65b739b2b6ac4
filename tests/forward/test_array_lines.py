"""Slices and np.roll of float arrays inlined in the variants for the arguments' kinds
(forward/optimizer/array_lines.py): each against the plain rule, one tangent and
batched, a batched tangent next to an unbatched one, and a parameter with no tangent."""
import numpy as np
import pytest

from fwdad.dual import Dual
from fwdad.forward.derive import build_rule
from fwdad.forward.optimizer.kinds import signature
from fwdad.forward.routes import BATCHED, KINDS
from fwdad.tangents import NoTangent
from tests.util import assert_optimized_matches_plain, assert_same, run_rule


def sliced_vector(x):
    return x[1:] * x[:-1] + x[2:].sum()


def sliced_matrix(x):
    y = np.sin(x)
    return y[1:, :-1] - 2.0 * y[:-1, 1:] + x[1:, 1:] * y[:-1][:, :-1]


def rolled(x):
    return (np.roll(x, 1) - 2.0 * x + np.roll(x, -1)) * x


def sliced_other(x, c):
    """c may come with no tangent: the guard sends that call to the plain rule."""
    y = c * 3.0
    return y[1:] * x[:-1] + y[:-1]


POINTS = {sliced_vector: [(7,)], sliced_matrix: [(4, 3)], rolled: [(6,)],
          sliced_other: [(5,), (5,)]}


def _args(fn):
    rng = np.random.default_rng(0)
    return [rng.uniform(0.2, 0.9, shape) for shape in POINTS[fn]]


@pytest.mark.parametrize("fn", list(POINTS), ids=lambda f: f.__name__)
def test_batched_variant_inlines_and_matches_plain_rule(fn):
    args = _args(fn)
    rule = build_rule(fn)
    key = BATCHED + ((KINDS, signature(tuple(Dual(a, a) for a in args))),)
    source = rule.routes.variant(key).source
    assert "_fw_getitem(" not in source and "_fw_roll(" not in source, source
    assert_optimized_matches_plain(rule, rule.unoptimized, args, np.random.default_rng(1))


def test_a_batched_tangent_beside_an_unbatched_one():
    x, c = _args(sliced_other)
    rule = build_rule(sliced_other)
    tangents = [np.random.default_rng(2).standard_normal((3, 5)), np.ones(5)]
    assert_same(run_rule(rule, [x, c], tangents),
                run_rule(rule.unoptimized, [x, c], tangents))


def test_a_parameter_with_no_tangent_goes_to_the_plain_rule():
    x, c = _args(sliced_other)
    rule = build_rule(sliced_other)
    tangents = [np.random.default_rng(3).standard_normal((3, 5)), NoTangent]
    assert_same(run_rule(rule, [x, c], tangents),
                run_rule(rule.unoptimized, [x, c], tangents))
