"""In-place updates, items and whole sums written inline in the variant for batched
tangents and kinds (forward/optimizer/batched_updates.py, array_lines.py, batch_axes.py):
each program against the plain rule (batched tangents, one argument's unbatched beside
another's batched), against central differences through jacfwd, and with what must stay
a rule call (views of arguments, values that are batched where the target is not,
numbers written into slices, targets built from constants, int arrays) left to it."""
import re

import numpy as np
import pytest

import fwdad
from fwdad.dual import Dual
from fwdad.errors import SharedTangentError
from fwdad.forward.derive import build_rule
from fwdad.forward.optimizer.kinds import signature
from fwdad.forward.routes import BATCHED, KINDS
from tests.util import assert_same, fd_jvp, run_rule

C = np.array([0.5, -1.0, 2.0, 0.25, 1.5, -0.75])
_WRITTEN_INLINE = re.compile(r"^ +\w+\[.*\] [-+]?= ", re.MULTILINE)


# ---- written inline ---------------------------------------------------------------------
def slice_updates(x):
    r = np.sin(x) * 2.0
    r[1:-1] += x[2:] * x[:-2]
    r[0] = x[0] - 0.5
    r[-1] -= np.sum(x) * 0.25
    return r


def steps_and_negatives(x):
    r = x * x
    r[::-2] += x[1::2] * 3.0
    r[-3:-1] = np.cos(x[:2])
    r[-2] = np.mean(x)
    return r + 1.0


def matrix_updates(x):
    r = np.exp(x) - 1.0
    r[1:, :-1] += x[:-1, 1:]
    r[0] = np.tanh(x[1])
    r[-1] -= x[0] * 2.0
    return r * np.sum(x)


def constant_values(x):
    r = x * 3.0
    r[0] = 0.5
    r[1:3] += 1.0
    r[-1] = 2
    return r


def from_another_argument(x, w):
    """r from x, the value from w: dr has a batch axis wherever dw does."""
    r = x * w
    r[1:] += w[:-1] * 2.0
    return r


INLINE = {slice_updates: [(6,)], steps_and_negatives: [(6,)], matrix_updates: [(4, 3)],
          constant_values: [(6,)], from_another_argument: [(6,), (6,)]}


def _args(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.2, 0.9, shape) for shape in shapes]


def _variant(fn, args):
    rule = build_rule(fn)
    key = BATCHED + ((KINDS, signature(tuple(Dual(a, a) for a in args))),)
    return rule, rule.routes.variant(key)


@pytest.mark.parametrize("fn", list(INLINE), ids=lambda f: f.__name__)
def test_updates_are_inlined_and_match_the_plain_rule(fn):
    args = _args(INLINE[fn])
    rule, variant = _variant(fn, args)
    source = variant.source
    assert _WRITTEN_INLINE.search(source), source
    for call in ("_fw_update_owned(", "_fw_getitem(", "_fw_sum(", "_fw_mean("):
        assert call not in source, source
    rng = np.random.default_rng(1)
    for batch in (1, 3):
        tangents = [rng.standard_normal((batch,) + a.shape) for a in args]
        assert_same(run_rule(rule, args, tangents), run_rule(rule.unoptimized, args, tangents))
    if len(args) == 2:  # one batched tangent, the other unbatched, each way round
        for batched in (0, 1):
            tangents = [rng.standard_normal(((3,) if i == batched else ()) + a.shape)
                        for i, a in enumerate(args)]
            assert_same(run_rule(rule, args, tangents),
                        run_rule(rule.unoptimized, args, tangents))


@pytest.mark.parametrize("fn", list(INLINE), ids=lambda f: f.__name__)
def test_jacfwd_of_inlined_updates_matches_differences(fn):
    args = _args(INLINE[fn], seed=2)
    jac = fwdad.jacfwd(fn)(*args)
    for k, column in enumerate(np.eye(args[0].size)):
        direction = [column.reshape(args[0].shape)] + [np.zeros_like(a) for a in args[1:]]
        want = fd_jvp(fn, args, direction)
        got = jac.reshape(want.shape + (-1,))[..., k]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_item_of_an_unbatched_tangent_is_a_number_and_of_a_batch_a_copy():
    def item(x, w):
        return x * w[0] + w[1:3].sum()
    args = _args([(3,), (4,)])
    rule, variant = _variant(item, args)
    assert ".take(0, axis=-1)" in variant.source, variant.source
    dw = np.ones(4)
    out = variant(Dual(args[0], np.ones((2, 3))), Dual(args[1], dw))
    assert_same(out.tangent, np.ones((2, 3)) * args[1][0] + args[0] + 2.0)
    dw_batch = np.ones((2, 4))
    tangents = [np.zeros(3), dw_batch]
    assert_same(run_rule(rule, args, tangents), run_rule(rule.unoptimized, args, tangents))


@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 2, 2)], ids=str)
def test_whole_sums_and_means_reduce_the_last_axes(shape):
    def sums(x, w):
        return np.sum(x) * w + np.mean(w * x) - x.sum()
    args = _args([shape, shape], seed=3)
    rule, variant = _variant(sums, args)
    assert "_fw_sum(" not in variant.source and "_fw_mean(" not in variant.source
    rng = np.random.default_rng(4)
    for tangents in ([rng.standard_normal((3,) + shape), rng.standard_normal(shape)],
                     [rng.standard_normal(shape), rng.standard_normal((1,) + shape)]):
        assert_same(run_rule(rule, args, tangents), run_rule(rule.unoptimized, args, tangents))


# ---- left to the rule -------------------------------------------------------------------
def into_a_view_of_an_argument(x):
    y = x[1:]
    y[0] += 1.0
    return x * 2.0


def into_a_reshape_of_an_argument(x):
    y = x.reshape(2, 3)
    y[0] = np.sin(y[1])
    return y * x.sum()


def into_a_copy_of_a_local(x):
    r = x * 2.0
    s = r
    s[0] = x[1] * 3.0
    return r + s


def batched_value_into_unbatched_target(x, w):
    """r from w (unbatched under jacfwd wrt x), the value from x (batched)."""
    r = w * 2.0
    r[1:] += x[:-1]
    r[0] = x[0]
    return r


def number_into_a_slice(x):
    r = x * 2.0
    r[1:4] = np.sum(x)
    r[4:] += x[0]
    return r


def target_from_constants(x):
    r = C * 2.0
    r[1:3] += x[:2]
    r[0] = x[2]
    return r


def int_array_written_with_floats(x):
    r = np.arange(6) * 2
    r[1:3] = x[:2]
    return x * r


RULE = {into_a_view_of_an_argument: [(6,)], into_a_reshape_of_an_argument: [(6,)],
        into_a_copy_of_a_local: [(6,)],
        batched_value_into_unbatched_target: [(6,), (6,)], number_into_a_slice: [(6,)],
        target_from_constants: [(6,)], int_array_written_with_floats: [(6,)]}


@pytest.mark.parametrize("fn", list(RULE), ids=lambda f: f.__name__)
def test_what_is_not_known_safe_keeps_the_rule_and_is_right(fn):
    args = _args(RULE[fn], seed=5)
    rule, variant = _variant(fn, args)
    if variant is not rule.routes.plain:  # (no `r[k] += v` written inline)
        assert not _WRITTEN_INLINE.search(variant.source), variant.source
    rng = np.random.default_rng(6)
    for batched in range(len(args)):
        tangents = [rng.standard_normal(((3,) if i == batched else ()) + a.shape)
                    for i, a in enumerate(args)]
        want = run_rule(rule.unoptimized, args, tangents)
        if want is SharedTangentError:  # (the plain rule cannot widen a zero it shares:
            # jacfwd then passes batched zeros, which the optimized rule needs not)
            want = run_rule(rule.unoptimized, args, [np.broadcast_to(t, (3,) + a.shape).copy()
                                                     for t, a in zip(tangents, args)])
            if want is not SharedTangentError:  # (C's zero, even then: differences below)
                assert_same(run_rule(rule, args, tangents)[0], want[0])
        else:
            assert_same(run_rule(rule, args, tangents), want)
    jac = fwdad.jacfwd(fn)(*[a.copy() for a in args])
    for k, column in enumerate(np.eye(6)):
        direction = [column] + [np.zeros_like(a) for a in args[1:]]
        want = fd_jvp(fn, [a.copy() for a in args], direction)
        np.testing.assert_allclose(jac[..., k], want, rtol=1e-6, atol=1e-8)


def test_batched_value_into_unbatched_target_calls_the_rule():
    args = _args(RULE[batched_value_into_unbatched_target])
    _, variant = _variant(batched_value_into_unbatched_target, args)
    assert "_fw_update_owned(" in variant.source, variant.source


def test_number_into_a_slice_calls_the_rule():
    _, variant = _variant(number_into_a_slice, _args([(6,)]))
    assert variant.source.count("_fw_update_owned(") == 2, variant.source


# ---- the bench rows this is for -----------------------------------------------------
@pytest.mark.parametrize("name", ["pde_residual", "residual_1d"])
def test_bench_residuals_batched_variants_call_no_rule(name):
    """jacfwd of the PDE residual and sparse_jacfwd of the 1-D residual (bench/): their
    variants are the arithmetic alone, and their Jacobians the differences'."""
    from bench import sparse, workloads_jacobian
    fn = getattr(workloads_jacobian, name, None) or getattr(sparse, name)
    x = np.sin(np.linspace(0.0, 3.0, 12))
    _, variant = _variant(fn, [x])
    called = re.findall(r"_fw_(\w+)\(", variant.source.split("return _fw_plain")[1])
    # (into_left and into_right are arithmetic too: optimizer/dead_operands.py)
    assert set(called) <= {"rolled", "np_exp", "Dual", "into_left", "into_right"}, (
        called, variant.source)
    jac = fwdad.jacfwd(fn)(x)
    want = np.stack([fd_jvp(fn, [x], [e]) for e in np.eye(12)], axis=1)
    np.testing.assert_allclose(jac, want, rtol=1e-6, atol=1e-6)
