"""The optimized rule gives what the plain derived rule gives: outputs, tangents and the
state of the arguments afterwards, on the corpus, on the benchmark workloads and on
cases chosen to break unboxing (aliasing, mutation, self-updates, literal powers)."""
import copy
import math

import numpy as np
import pytest

import fwdad
from bench.jvp_overhead import elementwise, make_mlp, make_rk4_solve
from fwdad.forward.derive import build_rule
from fwdad.tangents import NoTangent, random_tangent, stack
from tests.corpus import CORPUS
from tests.forward import operand_programs as operand_programs_module
from tests.util import assert_close, assert_optimized_matches_plain, assert_same, fd_jvp, run_rule


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


G_INTS = np.arange(3)


def int_scalar_times_int_array(x, n):
    """n * G_INTS has no tangent at run time, yet gives x + n * G_INTS its shape."""
    return x + n * G_INTS, n * G_INTS - x


def ints_of_builtins(x, a):
    return (x + len(a) * G_INTS, x - np.arange(len(a)), x + np.argsort(a),
            x + (a > 0), (a > 0) + x, x * 1.0 + np.argmax(a) * G_INTS,
            x + a.shape[0] * (a < 0))


def int_or_float_local(x, a):
    """k joins an int array and a float one: its tangent is NoTangent on one path."""
    k = G_INTS * 1
    if x > 10.0:
        k = a * x
    return x + k


def _order(a):
    return np.argsort(a)


def int_array_of_call(x, a):
    return x + _order(a), _order(a) - x


def sum_then_update(a, n):
    """a + n must not be a's tangent itself: a[0] = 7.0 would change it."""
    c = a + n
    a[0] = 7.0
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
    (int_scalar_times_int_array, (0.5, 2)), (int_scalar_times_int_array, (0.5, 2.0)),
    (ints_of_builtins, (0.5, np.array([0.3, -1.2, 0.8]))),
    (int_or_float_local, (0.5, np.array([0.3, -1.2, 0.8]))),
    (int_array_of_call, (0.5, np.array([0.3, -1.2, 0.8]))),
    (sum_then_update, (np.array([1.0, 2.0, 3.0]), 2)),
    (sum_then_update, (np.array([1.0, 2.0, 3.0]), np.int64(2))),
]


def _ids(case):
    return case[0].__name__


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_optimized_rule_matches_plain_rule(case):
    fn, args = case
    optimized, plain = build_rule(fn), build_rule(fn, optimized=False)
    tangents = [random_tangent(a, np.random.default_rng(0)) for a in args]
    want = run_rule(plain, args, tangents)
    assert not isinstance(want, type), f"the plain rule raised {want.__name__}"
    assert_same(run_rule(optimized, args, tangents), want)


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
    assert_same(run_rule(optimized, args, tangents), run_rule(plain, args, tangents))


# ---- operands of every kind: one with no tangent may give the result its shape --------
@pytest.fixture(scope="module")
def operand_programs(tmp_path_factory):
    return operand_programs_module.load(tmp_path_factory.mktemp("operands"), OPERAND_SEEDS)


OPERAND_SEEDS = list(range(300))


@pytest.mark.parametrize("seed", OPERAND_SEEDS)
def test_operands_of_every_kind(operand_programs, seed):
    """Optimized against plain rule, single and batched, and against finite differences."""
    fn = getattr(operand_programs, f"op_{seed}")
    args = operand_programs_module.arguments(fn, seed)
    optimized, plain = build_rule(fn), build_rule(fn, optimized=False)
    tangents = assert_optimized_matches_plain(optimized, plain, args,
                                              np.random.default_rng(seed))
    _, tangent = fwdad.jvp(fn, copy.deepcopy(args), tangents)
    want = fd_jvp(fn, copy.deepcopy(args), tangents)
    tangent = [np.zeros_like(w) if t is NoTangent else t for t, w in zip(tangent, want)]
    assert_close(tangent, want, rtol=1e-6)  # (an int result has NoTangent: a zero)


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
