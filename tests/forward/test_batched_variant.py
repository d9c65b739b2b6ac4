"""The optimized rule for batched tangents (forward/optimizer/batched_variant.py) gives what the
plain rule gives: each template it may inline against its frule with batched tangents,
and whole programs of generated shapes against the plain rule, batch sizes equal to an
axis included (where a misaligned batch axis would still broadcast)."""
import ast
import math

import numpy as np
import pytest

import fwdad
from fwdad.dual import Dual
from fwdad.forward.derive import build_rule
from fwdad.forward.optimizer import templates
from fwdad.forward.optimizer.batched_variant import (
    BATCH_SAFE,
    MIN_SAME_RANK,
    SAME_RANK_SAFE,
    batch_ready,
)
from fwdad.forward.routes import BATCHED
from fwdad.rules import registry
from fwdad.rules.registry import get_frule
from fwdad.tangents import NoTangent, stack
from tests.util import assert_same, run_rule

# The templates left out, and why: a new template must be put in one list or the other.
NOT_BATCH_SAFE = {"_np_sum": "sums the batch axis too", "_np_mean": "means it too",
                  "_matmul": "x @ dy contracts the batch axis of dy for a 1-d x (right "
                             "when both have the same rank, at least 2: SAME_RANK_SAFE)",
                  "_np_matmul": "as _matmul"}


def _all_templates():
    """name -> [(template, the primal it stands for)]: a NumPy function and its math
    twin share a name (rules/derivatives.py), each with its own template."""
    found = {}
    for entry in registry.entries():
        if entry.template is not None:
            found.setdefault(entry.template.name, []).append((entry.template, entry.primal))
    for extra in (templates.pow_literal, templates.pow_two):
        found.setdefault(extra.template.name, [(extra.template, None)])
    return found


def test_every_template_is_classified():
    names = set(_all_templates())
    assert BATCH_SAFE <= names, BATCH_SAFE - names
    assert names == BATCH_SAFE | set(NOT_BATCH_SAFE), names ^ (BATCH_SAFE | set(NOT_BATCH_SAFE))
    assert SAME_RANK_SAFE <= names, SAME_RANK_SAFE - names


# ---- each template, batched, against its frule ----------------------------------------
def _evaluate(tpl, values, tangents, out):
    """The template's tangent expression on plain values (the optimizer's math)."""
    scope = dict(tpl.globals, out=out)
    scope.update(zip(tpl.params, values))
    scope.update(zip(tpl.tangents, tangents))
    return eval(compile(ast.Expression(tpl.tangent), "<template>", "eval"), scope)


def _operands(tpl, rng, batch):
    """(values, tangents) as inlined lines see them: one operand active (an array of
    shape (2, 3) or a number, its tangent batched), the others inactive numbers."""
    cases = []
    for active in rng.uniform(0.2, 0.6, (2, 3)), float(rng.uniform(0.2, 0.6)):
        for at in range(len(tpl.params)):
            values = [1.7 + i for i in range(len(tpl.params))]
            tangents = [NoTangent] * len(tpl.params)
            values[at] = active
            tangents[at] = rng.standard_normal((batch,) + np.shape(active))
            cases.append((values, tangents))
    return cases


SAFE_PRIMALS = [(name, primal) for name, pairs in sorted(_all_templates().items())
                if name in BATCH_SAFE for _, primal in pairs if primal is not None]


@pytest.mark.parametrize("name, primal", SAFE_PRIMALS, ids=lambda v: getattr(v, "__name__", v))
@pytest.mark.parametrize("batch", [1, 3])
def test_batch_safe_template_matches_its_rule(name, primal, batch):
    tpl = next(tpl for tpl, its in _all_templates()[name] if its is primal)
    rule = get_frule(primal)
    for values, tangents in _operands(tpl, np.random.default_rng(batch), batch):
        if getattr(primal, "__module__", None) == "math" and np.ndim(values[0]):
            continue  # math functions take numbers only
        want = rule(*[Dual(v, t) for v, t in zip(values, tangents)])
        zeros = [0.0 if t is NoTangent else t for t in tangents]
        got = _evaluate(tpl, values, zeros, want.primal)
        np.testing.assert_allclose(got, want.tangent, rtol=1e-13, atol=1e-13)
        assert np.shape(got) == (batch,) + np.shape(want.primal)


# ---- templates with every operand active, all of one rank (the variant for kinds) -------
SAME_RANK_PRIMALS = [(name, primal) for name, pairs in sorted(_all_templates().items())
                     if name in SAME_RANK_SAFE for _, primal in pairs
                     if primal is not None and getattr(primal, "__module__", None) != "math"]


def _same_rank_operands(tpl, rng, batch, rank):
    """(values, tangents): every operand an array of `rank` axes (a float for rank 0),
    shapes that broadcast (one of them has 1 on the first axis) or multiply; every
    tangent batched but the first one's, unbatched."""
    shapes = [(2, 3, 3)[:rank], (1, 3, 3)[:rank]] if tpl.name not in MIN_SAME_RANK \
        else [(2, 3, 4)[3 - rank:], (2, 4, 3)[3 - rank:]]
    values = [rng.uniform(0.5, 1.5, s) if rank else float(rng.uniform(0.5, 1.5))
              for s in shapes[:len(tpl.params)]]
    tangents = [rng.standard_normal(((batch,) if i else ()) + np.shape(v))
                for i, v in enumerate(values)]
    return values, tangents


@pytest.mark.parametrize("name, primal", SAME_RANK_PRIMALS,
                         ids=lambda v: getattr(v, "__name__", v))
@pytest.mark.parametrize("rank", [0, 1, 2, 3])
@pytest.mark.parametrize("batch", [1, 3])  # 3: the size of an axis
def test_same_rank_template_matches_its_rule(name, primal, rank, batch):
    tpl = next(tpl for tpl, its in _all_templates()[name] if its is primal)
    if rank < MIN_SAME_RANK.get(name, 0):
        pytest.skip("not inlined for this rank")
    values, tangents = _same_rank_operands(tpl, np.random.default_rng(rank + 7 * batch),
                                           batch, rank)
    rule = get_frule(primal)
    want = rule(*[Dual(v, t) for v, t in zip(values, tangents)])
    got = _evaluate(tpl, values, tangents, want.primal)
    np.testing.assert_allclose(got, want.tangent, rtol=1e-13, atol=1e-13)
    assert np.shape(got) == (batch,) + np.shape(want.primal)
    for b in range(batch):  # and one tangent at a time (the unbatched math)
        one = rule(*[Dual(v, t[b] if i else t) for i, (v, t) in
                     enumerate(zip(values, tangents))]).tangent
        np.testing.assert_allclose(got[b], one, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("name", ["pow_two", "pow_literal"])
def test_literal_powers_match_the_pow_rule(name):
    tpl = _all_templates()[name][0][0]
    x = np.random.default_rng(0).uniform(0.5, 1.5, (2, 3))
    dx = np.random.default_rng(1).standard_normal((4, 2, 3))
    c = 2 if name == "pow_two" else 3.5
    want = get_frule(pow)(Dual(x, dx), Dual(c, NoTangent))
    scope = dict(tpl.globals, x=x, dx=dx, c=c, c1=c - 1, out=want.primal)
    got = eval(compile(ast.Expression(tpl.tangent), "<template>", "eval"), scope)
    np.testing.assert_allclose(got, want.tangent, rtol=1e-13)


# ---- whole programs: the variant against the plain rule --------------------------------
def chain(x, s):
    y = np.sin(x) * 2.0 + x ** 2 - 1.0 / x
    z = np.exp(-y) * s + math.cos(s) * 3.0
    return z / 2.0 + np.tanh(z) - np.sqrt(x * x + 1.0)


def unary_only(x):
    return np.log1p(np.exp(-x)) * 0.5 - np.cos(x) / 3.0 + (x + 1.0) ** 3.5


def with_a_sum(x, w):
    return np.sum(np.tanh(x) * w) + np.square(x) * 0.25


def numbers(s, t):
    return math.sin(s) * t + math.exp(-t) / 2.0 - s ** 2


SHAPES = [(), (3,), (2, 3), (1, 3), (3, 3)]


def _arguments(fn, shape, rng):
    x = rng.uniform(0.5, 1.5, shape) if shape else float(rng.uniform(0.5, 1.5))
    other = {chain: 0.7, unary_only: None, with_a_sum: rng.uniform(-1, 1, shape or ()),
             numbers: 1.3}[fn]
    if fn is numbers:
        return (float(rng.uniform(0.5, 1.5)), other)
    return (x,) if other is None else (x, other)


@pytest.mark.parametrize("fn", [chain, unary_only, with_a_sum, numbers], ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("batch", [1, 3])  # 3: the size of an axis
def test_variant_matches_plain_rule(fn, shape, batch):
    rng = np.random.default_rng(len(shape) * 10 + batch)
    args = _arguments(fn, shape, rng)
    optimized, plain = build_rule(fn), build_rule(fn, optimized=False)
    for active in range(len(args) + 1):  # one argument's tangent unbatched, then none
        tangents = [stack([_random(a, rng) for _ in range(batch)]) if i != active
                    else _random(a, rng) for i, a in enumerate(args)]
        assert_same(run_rule(optimized, args, tangents), run_rule(plain, args, tangents))
    variant = optimized.routes.variant(BATCHED)
    assert variant is not optimized.routes.plain, "the variant inlines nothing"
    assert "for batched tangents" in variant.source


def gammas(s, t):
    return math.lgamma(s) * t + math.lgamma(t + 1.0)


def test_batched_variant_inlines_lgamma():
    """math.lgamma's template is elementwise: its batched lines are inlined, and the
    variant's Jacobian equals central differences."""
    variant = build_rule(gammas).routes.variant(BATCHED)
    assert "digamma" in variant.source and "_fw_lgamma(" not in variant.source, \
        variant.source
    jac = fwdad.jacfwd(gammas, argnums=(0, 1))(1.7, 2.3)
    step = 1e-6
    for i, (ds, dt) in enumerate([(step, 0.0), (0.0, step)]):
        fd = (gammas(1.7 + ds, 2.3 + dt) - gammas(1.7 - ds, 2.3 - dt)) / (2 * step)
        np.testing.assert_allclose(np.ravel(jac[i]), fd, rtol=1e-7)


def _random(value, rng):
    return rng.standard_normal(np.shape(value)) if np.ndim(value) else float(rng.standard_normal())


def test_jacfwd_matches_one_tangent_at_a_time():
    x = np.array([0.4, 0.9, 1.3])
    jac = fwdad.jacfwd(chain)(x, 0.7)
    for i in range(3):
        _, column = fwdad.jvp(chain, (x, 0.7), (np.eye(3)[i], 0.0))
        np.testing.assert_allclose(jac[:, i], column, rtol=1e-13)


def test_variant_source_inlines_unary_lines_and_calls_rules_for_arrays():
    source = build_rule(chain).routes.variant(BATCHED).source
    assert "np_cos(x) * dx" in source, source
    assert "_fw_add(" in source, source  # two arrays: the rule aligns them


def inplace(x):
    y = np.sin(x)
    y[0] += 1.0
    return y * 2.0


def updates_argument(x):
    x[0] += 1.0
    return x * 2.0


def test_rule_that_updates_a_private_local_in_place_gets_a_variant():
    """y is made by a template and read by nothing else: its update runs on the split
    tangent (forward/optimizer/inplace.py), and the variant equals the plain rule."""
    routes = build_rule(inplace).routes
    assert routes.variant(BATCHED) is not routes.plain
    x, dx = np.linspace(0.1, 0.9, 4), np.random.default_rng(3).normal(size=(3, 4))
    got = routes.variant(BATCHED)(Dual(x, dx))
    want = routes.plain(Dual(x, dx.copy()))
    np.testing.assert_array_equal(got.primal, want.primal)
    np.testing.assert_array_equal(got.tangent, want.tangent)


def test_rule_that_updates_an_argument_in_place_gets_no_variant():
    routes = build_rule(updates_argument).routes
    assert routes.variant(BATCHED) is routes.plain


# ---- the guard: what the variant turns away goes to the plain rule ---------------------
class Box:
    def __init__(self, v):
        self.v = v


@pytest.mark.parametrize("primal, tangent, ready", [
    (np.ones(3), np.ones((2, 3)), True), (np.ones(3), np.ones(3), True),
    (1.5, np.ones(4), True), (1.5, 0.0, True), (2, NoTangent, True),
    (np.arange(3), NoTangent, False), (np.ones(3), np.ones((2, 4)), False),
    ((1.0, np.ones(2)), (np.ones(5), np.ones((5, 2))), True),
    ({"a": np.ones(2)}, {"a": np.ones((3, 2))}, True),
    (Box(1.0), fwdad.tangents.zero_tangent(Box(1.0)), False)])
def test_batch_ready(primal, tangent, ready):
    assert batch_ready(Dual(primal, tangent)) is ready


def test_int_argument_goes_to_the_plain_rule():
    def scaled(x, n):
        return np.sin(x) * n + 1.0
    optimized, plain = build_rule(scaled), build_rule(scaled, optimized=False)
    args = (np.array([0.2, 0.4]), np.arange(2))
    tangents = [np.ones((3, 2)), NoTangent]
    assert_same(run_rule(optimized, args, tangents), run_rule(plain, args, tangents))
