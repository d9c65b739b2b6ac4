"""The optimized rule gives what the plain derived rule gives: outputs, tangents and the
state of the arguments afterwards, on the corpus, on the benchmark workloads and on
cases chosen to break unboxing (aliasing, mutation, self-updates, literal powers)."""
import copy
import math

import numpy as np
import pytest

from bench.jvp_overhead import make_mlp, make_rk4_solve, elementwise
import fwdad
from fwdad.dual import Dual
from fwdad.forward.derive import build_rule
from fwdad.tangents import NoTangent, Tangent, random_tangent, stack
from tests.corpus import CORPUS
from tests.util import assert_close, fd_jvp


# ---- cases chosen to break the optimizer --------------------------------------------
def alias_then_mutate(x):
    a = np.zeros(3)
    b = a
    b[0] = x
    return a * 2.0


def inactive_list_grows(x):
    values = []
    for i in range(3):
        values.append(x * i)
    return sum(values)


def swap(x, y):
    a, b = x, y * 2.0
    a, b = b, a
    return a - 3.0 * b


def self_updates(x):
    y = x
    y = y * y
    y = math.exp(y)
    y = y / (1.0 + y)
    return y


def literal_powers(x):
    return x ** 0 + x ** 1 + x ** 2 + x ** 2.0 + x ** 3 + x ** 0.5 + 2.0 ** x


def mixed_ints(x, n):
    k = n * 2 + 1
    return x * k + n / 3


def constant_weights(x):
    w = np.ones((3, 3)) * 0.5
    return np.tanh(w @ x) @ w


def updates_argument(a, x):
    a[0] = a[0] * x
    a += x
    return a.sum()


def shared_tangent(x):
    y = +x
    z = y + 0.0
    z[0] = 5.0
    return x * 1.0


def broadcast_by_constants(x):
    """The constant operand gives the result its shape: the tangent must have it too."""
    return (x + np.zeros(3), np.zeros(3) - x, np.add(x, np.zeros(3)),
            np.subtract(np.zeros((2, 1)), x), -(x + np.zeros(3)), np.sum(x + np.ones(3)),
            x * np.ones((2, 1)) + np.ones(3) * 0.0, np.ones((2, 3)) @ (x + np.zeros(3)))


def broadcast_by_int_array(x, k):
    return x + k, k - x, np.add(x, k)


def new_array_from_view(a):
    c = a[:] + 0.0
    a[0] = 7.0
    return c


def self_update_of_view(a):
    y = a[1:]
    y = y + 0.0
    a[1] = 7.0
    return y


def _twice(x):
    b = x * 2.0
    return b, b + 0.0


def caller_updates_a_result(x):
    b, c = _twice(x)
    b[0] = 5.0
    return c


class Particle:
    def __init__(self, x, v):
        self.x = x
        self.v = v

    def energy(self, k=2.0):
        return 0.5 * self.v * self.v + k * self.x ** 2

    def step(self, dt):
        self.x = self.x + dt * self.v
        return self


def objects(x, v):
    p = Particle(x, v)
    p.step(0.1)
    return p.energy() + p.energy(k=3.0)


def _scaled(x, *, scale=2.0, **rest):
    return x * scale + rest["shift"]


def keyword_only(x):
    return _scaled(x, scale=3.0, shift=x)


def while_break(x):
    y = x
    while True:
        y = y * 1.1
        if y > 5.0:
            break
    return y


def rows_of_array(a):
    total = np.zeros(3)
    for row in a:
        total = total + row * row
    return total


def rk4(k, y0):
    return make_rk4_solve(20)(k, y0)


_RNG = np.random.default_rng(3)
MLP = make_mlp(_RNG.standard_normal((4, 4)), _RNG.standard_normal((4, 4)),
               _RNG.standard_normal((5, 4)))

CASES = [(e.fn, e.args) for e in CORPUS] + [
    (alias_then_mutate, (0.3,)), (inactive_list_grows, (0.7,)), (swap, (0.4, 1.2)),
    (self_updates, (0.6,)), (literal_powers, (1.3,)), (mixed_ints, (0.5, 3)),
    (constant_weights, (np.array([0.1, 0.2, -0.4]),)),
    (updates_argument, (np.array([1.0, 2.0]), 0.5)),
    (shared_tangent, (np.array([1.0, 2.0]),)),
    (objects, (0.3, 1.2)), (keyword_only, (0.7,)), (while_break, (1.3,)),
    (rows_of_array, (np.arange(6.0).reshape(2, 3),)),
    (rk4, (0.7, 1.0)), (elementwise, (np.linspace(-1, 1, 9),)),
    (MLP, (_RNG.standard_normal((4, 4)),)),
    (broadcast_by_constants, (0.5,)), (broadcast_by_int_array, (0.5, np.arange(3))),
    (broadcast_by_int_array, (np.array([[0.5], [1.5]]), np.arange(3))),
    (new_array_from_view, (np.array([1.0, 2.0, 3.0]),)),
    (self_update_of_view, (np.array([1.0, 2.0, 3.0]),)),
    (caller_updates_a_result, (np.array([1.0, 2.0]),)),
]


def _ids(case):
    return case[0].__name__


def _run(rule, args, tangents):
    """What the rule gives (outputs and arguments afterwards), or the error it raises."""
    duals = [Dual(copy.deepcopy(a), copy.deepcopy(t)) for a, t in zip(args, tangents)]
    try:
        out = rule(*duals)
    except Exception as exc:  # both rules must fail alike
        return type(exc)
    return (out.primal, out.tangent), [(d.primal, d.tangent) for d in duals]


def _same(got, want, where="output"):
    if isinstance(want, type) or isinstance(got, type):
        assert got is want, f"{where}: {got} against {want}"
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]")
    elif isinstance(want, Tangent):
        _same(vars(got), vars(want), where)
    elif isinstance(want, dict):
        assert got.keys() == want.keys(), where
        for k in want:
            _same(got[k], want[k], f"{where}[{k!r}]")
    elif want is NoTangent or got is NoTangent:
        zero = got if want is NoTangent else want
        assert zero is NoTangent or np.all(np.asarray(zero) == 0), where
    else:
        assert np.shape(got) == np.shape(want), f"{where}: shape {np.shape(got)}"
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, err_msg=where)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_optimized_rule_matches_plain_rule(case):
    fn, args = case
    optimized, plain = build_rule(fn), build_rule(fn, optimized=False)
    tangents = [random_tangent(a, np.random.default_rng(0)) for a in args]
    want = _run(plain, args, tangents)
    assert not isinstance(want, type), f"the plain rule raised {want.__name__}"
    _same(_run(optimized, args, tangents), want)


@pytest.mark.parametrize("case", CASES[len(CORPUS):], ids=_ids)
def test_optimized_rules_match_finite_differences(case):
    """Callees use optimized rules on both sides above: check against the reference."""
    fn, args = case
    tangents = [random_tangent(a, np.random.default_rng(2)) for a in args]
    _, tangent = fwdad.jvp(fn, copy.deepcopy(args), tangents)
    assert_close(tangent, fd_jvp(fn, args, tangents), rtol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_batched_tangents_match_plain_rule(case):
    fn, args = case
    optimized, plain = build_rule(fn), build_rule(fn, optimized=False)
    rng = np.random.default_rng(1)
    tangents = [stack([random_tangent(a, rng) for _ in range(3)]) for a in args]
    _same(_run(optimized, args, tangents), _run(plain, args, tangents))


@pytest.mark.parametrize("fn", [e.fn for e in CORPUS if e.fn.__name__ in (
    "arithmetic", "math_calls", "branch", "scalar_loop", "while_loop", "numpy_elementwise",
    "numpy_matmul", "tuple_unpacking")] + [rk4, swap, constant_weights])
def test_simple_code_is_inlined(fn):
    source = build_rule(fn).source
    assert source.startswith("# optimized"), source
    assert "_fw_mul(" not in source and "_fw_add(" not in source, source


GOLDEN_RK4 = """
        _fw_neg1 = -k
        _fw_dmul1 = -dk * y + _fw_neg1 * dy
        _fw_mul1 = _fw_neg1 * y
        _fw_sin1 = _fw_math_sin(t)
        dk1 = _fw_dmul1
        k1 = _fw_mul1 + _fw_sin1
"""

GOLDEN_ELEMENTWISE = """
    _fw_dmul1 = _fw_np_cos(x) * dx * _fw_exp1 + _fw_sin1 * (_fw_exp1 * -(2 * x * dx))
    _fw_mul1 = _fw_sin1 * _fw_exp1
    del _fw_exp1, _fw_sin1
"""


def test_optimized_source_reads_like_hand_written_code():
    source = build_rule(make_rk4_solve(5)).source
    assert GOLDEN_RK4.strip("\n") in source, source
    assert "    y, dy, t = y0, dy0, 0.0\n" in source, source
    assert "dt" not in source and "t = t + h" in source, source  # t is never active
    source = build_rule(elementwise).source  # tangents moved into their one use, freed
    assert GOLDEN_ELEMENTWISE.strip("\n") in source, source


def test_constant_weights_cost_no_tangent_products():
    source = build_rule(MLP).source
    assert "dh1 = (1.0 - h1 * h1) * (x @ dw1)" in source, source
    assert "dh2 = (1.0 - h2 * h2) * (dh1 @ w2)" in source, source
    assert "dw2" not in source and "dx" not in source, source
