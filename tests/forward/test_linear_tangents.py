"""The batched variant's tangents linear in one tangent, collected into one product
(forward/optimizer/linear_tangents.py), and vectors reshaped inline
(forward/optimizer/array_lines.py): the expressions rewritten or left alone, each
rewrite against the original numerically, and the variants against the plain rule and
central differences."""
import ast

import numpy as np
import pytest

import fwdad
from fwdad.forward.optimizer.kinds import FLOAT, OTHER
from fwdad.forward.optimizer.linear_tangents import _factored
from tests.forward.test_batched_updates import _args, _variant
from tests.util import assert_same, fd_jvp, run_rule

VECTOR = ("array", 1, np.dtype(np.float64))
KINDS = {"a": VECTOR, "b": VECTOR, "s": FLOAT, "n": OTHER,
         "f32": ("npfloat", np.dtype(np.float32))}
TANGENTS = {"du", "dw"}

# (tangent expression, what it becomes, or None: left as it is)
CASES = [
    ("4.0 * du * a + b * -du", "du * (a * 4.0 - b)"),
    ("du * a + du * b", "du * (a + b)"),
    ("du * a - du", "du * (a - 1)"),
    ("(du - du * a) / b", "du * ((1 - a) / b)"),
    ("-(du * s) + b * du", "du * (-s + b)"),
    ("-(du * s) + f32 * du", None),  # float32 and a Python float: float32 (see _DOUBLE)
    ("du / a + du / b", "du * (1.0 / a + 1.0 / b)"),
    ("-(-du) * 2.0", "du * 2.0"),
    ("-du", None),  # one pass over the batch already
    ("+(+du)", None),  # the tangent itself: it would alias it where the original copies
    ("du * a", None),
    ("du * a + dw * b", None),  # two tangents
    ("du * du + du", None),  # not linear
    ("du + 1.0", None),  # affine
    ("du * np.cos(a) + du", None),  # a call in the coefficient
    ("du * n + du", None),  # a value of unknown kind (an int array, say)
    ("du[0] * a + du", None),  # a part of the tangent
    ("du * a.T + du", None),  # an attribute
    ("a / du + du", None),  # divided by the tangent
]


@pytest.mark.parametrize("source, expected", CASES, ids=[c[0] for c in CASES])
def test_linear_tangents_are_collected_or_left(source, expected):
    got = _factored(ast.parse(source, mode="eval").body, TANGENTS, KINDS)
    if expected is None:
        assert got is None, ast.unparse(got)
        return
    assert ast.unparse(got) == expected
    rng = np.random.default_rng(0)
    values = {"a": rng.uniform(0.5, 2.0, 5), "b": rng.uniform(0.5, 2.0, 5), "s": 0.7,
              "f32": np.float32(1.25), "du": rng.standard_normal((3, 5)), "np": np}
    np.testing.assert_allclose(eval(expected, values), eval(source, values),
                               rtol=1e-13, atol=1e-15)


# ---- in the variants ---------------------------------------------------------------------
def reaction(u):
    return 4.0 * u * (1.0 - u) + u / 3.0


def cubic_and_quotient(x, w):
    return (x * x - 2.0 * x) * 0.5 - x / (1.0 + w * w)


def stencil(u):
    m = int(round(np.sqrt(u.size)))
    grid = u.reshape(m, m)
    lap = -4.0 * grid
    lap[1:, :] += grid[:-1, :]
    lap[:, :-1] += grid[:, 1:]
    return (lap * 2.0 + grid - grid ** 3).reshape(-1)


def written_through_a_reshaped_view(u):
    r = u * 2.0
    g = r.reshape(2, 3)
    g[0] += u[:3]
    return r * u


VARIANTS = {reaction: [(6,)], cubic_and_quotient: [(6,), (6,)], stencil: [(9,)],
            written_through_a_reshaped_view: [(6,)]}


@pytest.mark.parametrize("fn", list(VARIANTS), ids=lambda f: f.__name__)
def test_variants_match_the_plain_rule_and_differences(fn):
    args = _args(VARIANTS[fn])
    rule, variant = _variant(fn, args)
    rng = np.random.default_rng(1)
    for batch in (1, 3):
        tangents = [rng.standard_normal((batch,) + a.shape) for a in args]
        assert_same(run_rule(rule, args, tangents), run_rule(rule.unoptimized, args, tangents))
    if len(args) == 2:  # one batched tangent, the other unbatched
        tangents = [rng.standard_normal((3,) + args[0].shape), rng.standard_normal(args[1].shape)]
        assert_same(run_rule(rule, args, tangents), run_rule(rule.unoptimized, args, tangents))
    jac = fwdad.jacfwd(fn)(*args)
    for k, column in enumerate(np.eye(args[0].size)):
        direction = [column] + [np.zeros_like(a) for a in args[1:]]
        want = fd_jvp(fn, args, direction)
        np.testing.assert_allclose(jac[..., k], want, rtol=1e-6, atol=1e-8)


def test_a_repeated_tangent_is_multiplied_once():
    _, variant = _variant(reaction, _args([(6,)]))
    assert "du * (" in variant.source, variant.source
    assert variant.source.count("du") <= 4, variant.source  # (split, guard, one product)


def test_a_vector_reshaped_is_a_view_with_its_tangent():
    args = _args([(9,)])
    _, variant = _variant(stencil, args)
    source = variant.source
    assert "du.reshape(du.shape[:-1] + (m, m))" in source, source
    for call in ("_fw_getitem(", "_fw_update_owned("):
        assert call not in source, source
    # the last reshape merges two axes, a view or a copy by the layout: left to its rule
    assert source.count("_fw_array_reshape(") == 1, source


@pytest.mark.parametrize("batched", [False, True])
def test_inlined_reshape_of_a_vector_views_primal_and_tangent(batched):
    def reshaped(u):
        return u.reshape(2, -1)
    u = np.linspace(0.1, 0.6, 6)
    rule, variant = _variant(reshaped, [u])
    assert "_fw_array_reshape(" not in variant.source, variant.source
    du = np.arange(18.0).reshape(3, 6)[:, ::-1] if batched else np.arange(12.0)[::2]
    out = variant(fwdad.Dual(u, du))
    assert np.shares_memory(out.primal, u) and np.shares_memory(out.tangent, du)
    assert_same(out.tangent, du.reshape(du.shape[:-1] + (2, 3)))
