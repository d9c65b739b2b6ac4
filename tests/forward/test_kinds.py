"""Kinds of values (forward/optimizer/kinds.py), their propagation through a rule's Lines
(forward/optimizer/kind_flow.py), and the variants for batched tangents keyed by them
(forward/routes.py): a call with arguments of other kinds runs another variant, right
for its own kinds, never the one built for the kinds seen first."""
import math

import numpy as np
import pytest

import fwdad
from fwdad import frontend
from fwdad.dual import Dual
from fwdad.forward.derive import build_rule
from fwdad.forward.optimizer import activity
from fwdad.forward.optimizer.kind_flow import parameter_kinds, propagate
from fwdad.forward.optimizer.kinds import BOOL, FLOAT, INT, OTHER, join, kind_of, ndim, signature
from fwdad.forward.routes import BATCHED, KINDS
from fwdad.forward.transform.dual_code import transform_lines
from fwdad.tangents import NoTangent
from tests.util import assert_same, run_rule

F64, F32 = np.dtype("float64"), np.dtype("float32")
A2, A1, A2_32 = ("array", 2, F64), ("array", 1, F64), ("array", 2, F32)


class Sub(np.ndarray):
    """A subclass of ndarray: its operators may be its own, so its kind is OTHER."""


@pytest.mark.parametrize("value, kind", [
    (1.5, FLOAT), (3, INT), (True, BOOL), (np.float32(1.5), ("npfloat", F32)),
    (np.float64(2.0), ("npfloat", F64)), (np.ones((2, 3)), A2),
    (np.ones(3, np.float32), ("array", 1, F32)), (np.zeros(()), ("array", 0, F64)),
    (np.arange(3), OTHER), (np.ones(2).view(Sub), OTHER), ([1.0], ("list", (FLOAT,))),
    (None, OTHER),
    (np.int64(2), OTHER), (1j, OTHER)], ids=repr)
def test_kind_of(value, kind):
    assert kind_of(value) == kind


def test_join_is_a_flat_lattice():
    assert join(None, A2) == join(A2, None) == join(A2, A2) == A2
    assert join(A2, A1) == join(A2, FLOAT) == join(OTHER, A2) == OTHER
    assert [ndim(k) for k in (A2, FLOAT, ("npfloat", F32), OTHER, None)] == \
        [2, 0, 0, None, None]


def test_signature_reads_the_primals():
    args = (Dual(np.ones((2, 2)), np.zeros((2, 2))), Dual(2, NoTangent), Dual(0.5, 1.0))
    assert signature(args) == (A2, INT, FLOAT)


# ---- propagation ------------------------------------------------------------------------
def _kinds(fn, *params):
    """local -> kind, for `fn` called with arguments of the kinds `params`."""
    src, normalized = frontend.normalized(fn)
    tree, constants, lines = transform_lines(normalized, src)
    analysis = activity.analyse(tree, lines, constants.values)
    return propagate(analysis.lines, parameter_kinds(tree, params))


SCALE = np.ones(3)  # a global read live: its kind may change between calls


def straight(x, w, s):
    y = np.sin(x) * s
    z = x @ w
    v = x @ np.ones(2)
    t = np.sum(y)
    u = math.exp(s)
    c = y
    return y, z, v, t, u, c


def test_kinds_follow_numpy():
    kinds = _kinds(straight, A2, A2, FLOAT)
    assert (kinds["y"], kinds["z"], kinds["t"], kinds["u"], kinds["c"]) == \
        (A2, A2, ("npfloat", F64), FLOAT, A2)
    assert kinds["v"] == OTHER  # np.ones(2): a call whose result is not known by kinds
    kinds = _kinds(straight, A2_32, A2, FLOAT)
    assert (kinds["y"], kinds["z"], kinds["t"]) == (A2_32, A2, ("npfloat", F32))
    assert _kinds(straight, A1, A1, FLOAT)["z"] == ("npfloat", F64)  # (a dot product)


def branches(x, n):
    if n > 0:
        y = x * 2.0
    else:
        y = 1.5
    k = 0.5
    for _ in range(n):
        k = k * x
    return y + k + SCALE * x


def test_joins_at_branches_and_loop_heads():
    kinds = _kinds(branches, A2, INT)
    assert kinds["y"] == OTHER  # an array on one path, a float on the other
    assert kinds["k"] == OTHER  # a float at the loop head, an array after it
    assert _kinds(branches, FLOAT, INT)["k"] == FLOAT
    scaled = [n for n in _kinds(branches, FLOAT, INT) if n.startswith("_fw_mul")]
    assert OTHER in [_kinds(branches, FLOAT, INT)[n] for n in scaled]  # SCALE * x


def with_ints(x, n):
    a = n ** -1  # (an int's power: a float or an int by the values)
    return x * a


def test_int_operands_give_other():
    assert _kinds(with_ints, FLOAT, INT)["a"] == OTHER


def with_default(x, w=None):
    if w is None:
        w = x * 2.0
    return x * w


def test_parameters_not_passed_by_position_are_other():
    """w, passed by keyword, may be anything, though the body assigns it an array."""
    assert _kinds(with_default, A2)["w"] == OTHER
    assert _kinds(with_default, A2, A2)["w"] == A2


def test_keyword_argument_of_another_rank_is_right():
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 1.5, (3, 3))
    optimized = build_rule(with_default)
    _check(optimized, with_default, (x,), [_batched(x, rng)])  # (w from x)
    plain = build_rule(with_default, optimized=False)
    w = rng.uniform(0.5, 1.5, 3)
    tangents = (_batched(x, rng), _batched(w, rng))
    got = optimized(Dual(x, tangents[0]), w=Dual(w, tangents[1]))
    want = plain(Dual(x, tangents[0]), w=Dual(w, tangents[1]))
    assert_same((got.primal, got.tangent), (want.primal, want.tangent))
    np.testing.assert_allclose(got.tangent, tangents[0] * w + x * tangents[1][:, None, :],
                               rtol=1e-13)


# ---- variants keyed by kinds: each call runs the one for its own kinds -----------------
def two_arrays(x, w):
    return np.sin(x) * w + (x @ x) * w - x / w


def _batched(value, rng, batch=3):
    return rng.standard_normal((batch,) + np.shape(value))


def _check(optimized, fn, args, tangents):
    """The rule `optimized` of `fn` gives what the plain rule gives."""
    plain = build_rule(fn, optimized=False)
    assert_same(run_rule(optimized, args, tangents), run_rule(plain, args, tangents))


def test_variant_for_same_rank_arrays_inlines_two_active_operands():
    rng = np.random.default_rng(0)
    args = (rng.uniform(0.5, 1.5, (3, 3)), rng.uniform(0.5, 1.5, (3, 3)))
    optimized = build_rule(two_arrays)
    _check(optimized, two_arrays, args, [_batched(a, rng) for a in args])
    source = optimized.routes.variants[BATCHED + ((KINDS, (A2, A2)),)].source
    assert "dx @ x + x @ dx" in source, source
    assert "_fw_mul(" not in source and "_fw_matmul(" not in source, source


@pytest.mark.parametrize("args", [
    (np.full((3, 3), 0.7), np.full(3, 1.3)),                            # another rank
    (np.full((3, 3), 0.7, np.float32), np.full((3, 3), 1.3, np.float32)),  # float32
    (np.full((3, 3), 0.7).view(Sub), np.full((3, 3), 1.3)),              # a subclass
    (np.full((3, 3), 0.7), 2),                                            # an int
    (np.full((3, 3), 0.7), np.full((1, 3), 1.3)),                         # broadcasting
], ids=["rank", "float32", "subclass", "int", "broadcast"])
def test_each_signature_runs_a_variant_right_for_it(args):
    """First a call with two float64 matrices (its variant inlines both products), then,
    on the same rule, one of other kinds: it runs the variant for its own kinds (or the
    plain rule), which gives what the plain rule gives, and one tangent at a time."""
    rng = np.random.default_rng(1)
    first = (rng.uniform(0.5, 1.5, (3, 3)), rng.uniform(0.5, 1.5, (3, 3)))
    optimized = build_rule(two_arrays)
    _check(optimized, two_arrays, first, [_batched(a, rng) for a in first])
    tangents = [_batched(a, rng).astype(np.asarray(a).dtype) if not isinstance(a, int)
                else NoTangent for a in args]
    _check(optimized, two_arrays, args, tangents)
    (_, out), _ = run_rule(optimized, args, tangents)
    for b in range(3):
        one = [t if t is NoTangent else t[b] for t in tangents]
        (_, want), _ = run_rule(build_rule(two_arrays, optimized=False), args, one)
        np.testing.assert_allclose(out[b], want, rtol=1e-5)
    keys = {dict(key[1:]).get(KINDS) for key in optimized.routes.variants}
    assert keys == {(A2, A2), tuple(kind_of(a) for a in args)}, keys


def test_batched_jvp_matches_finite_differences():
    """jacfwd through the variant for two matrices against central differences."""
    rng = np.random.default_rng(2)
    x, w = rng.uniform(0.5, 1.5, (2, 2)), rng.uniform(0.5, 1.5, (2, 2))
    jac = fwdad.jacfwd(two_arrays, argnums=(0, 1))(x, w)
    eps = 1e-6
    for which, jac_of in ((0, jac[0]), (1, jac[1])):
        for i in np.ndindex(2, 2):
            step = np.zeros((2, 2))
            step[i] = eps
            up = [x, w]
            down = [x, w]
            up[which], down[which] = up[which] + step, down[which] - step
            fd = (two_arrays(*up) - two_arrays(*down)) / (2 * eps)
            np.testing.assert_allclose(jac_of[(...,) + i], fd, rtol=1e-6, atol=1e-8)
