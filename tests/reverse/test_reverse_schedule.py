"""Reverse schedules of @fwdad.static_graph (issue 21): a replayed vjp equals the full
reverse rule's (bitwise where the operations are the same, else to 1e-12) on every
reverse-mode corpus function, and every guard changed sees the fallback, which stays
right."""
import copy
import math

import numpy as np
import pytest

import fwdad
from fwdad.tangents import random_tangent
from tests.corpus import CORPUS
from tests.reverse.cases import CASES
from tests.reverse.dot_product import check_dot_product
from tests.reverse.examples import EXAMPLES
from tests.test_static_graph import branchy, looped  # (the forward schedules' guards)

pytestmark = pytest.mark.usefixtures("restore_rules")

ROWS = [(e.fn, e.args) for e in CORPUS] + [(row[0], row[1]) for row in EXAMPLES]
SCALE = 2.0


def _vjp_twice(f, args, ct=None):
    """vjp of f at args, then its pullback of `ct` (a random one when None)."""
    out, pullback = fwdad.vjp(f, *copy.deepcopy(list(args)))
    ct = random_tangent(out, np.random.default_rng(1)) if ct is None else ct
    return out, ct, pullback(ct)


def _same(got, want):
    """Bitwise: a schedule runs the operations of the full rule, in its order."""
    if isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    if want is fwdad.NoTangent or want is None:
        assert got is want
        return
    if isinstance(want, dict):
        assert got.keys() == want.keys()
        for key in want:
            _same(got[key], want[key])
        return
    assert np.array_equal(got, want, equal_nan=True), (got, want)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row[0].__name__)
def test_replay_equals_the_full_rule(row):
    fn, args = row
    try:
        out, ct, want = _vjp_twice(fn, args)
    except fwdad.FwdadError:
        pytest.skip("the full reverse rule refuses this function")
    scheduled = fwdad.static_graph(fn)
    for _ in range(3):  # record, then replay twice (buffers made anew each time)
        got_out, _, got = _vjp_twice(scheduled, args, ct)
        _same(got_out, out)
        _same(got, want)
    counts = scheduled.static_graph.reverse.counts
    assert counts["records"] == 1
    assert counts["replays"] == 2 or counts["full"] == 2, counts


SCHEDULED = ["arithmetic", "math_calls", "branch", "scalar_loop", "while_loop",
             "break_continue", "recursive_power", "three_calls_deep", "closure_read",
             "lambda_and_higher_order", "tuple_unpacking",
             "conditional_expression", "chained_compare", "keyword_arguments",
             "global_constant", "numpy_elementwise", "numpy_matmul", "numpy_inplace",
             "numpy_methods"]


@pytest.mark.parametrize("name", SCHEDULED)
def test_corpus_functions_are_replayed(name):
    example = next(e for e in CORPUS if e.fn.__name__ == name)
    scheduled = fwdad.static_graph(example.fn)
    for _ in range(2):
        _vjp_twice(scheduled, example.args)
    graph = scheduled.static_graph.reverse
    assert graph.counts["replays"] == 1, graph.reasons


# ---- every rrule case through a schedule: the generic step runs each rule's pullback ----
def _calling(fn, kwargs, count):
    """A Python function of `count` positional arguments calling fn (a schedule records
    Python code; fn and its keyword arguments are closure variables, read live)."""
    def one(a0):
        return fn(a0, **kwargs)

    def two(a0, a1):
        return fn(a0, a1, **kwargs)

    def three(a0, a1, a2):
        return fn(a0, a1, a2, **kwargs)
    return {1: one, 2: two, 3: three}[count]


RULE_CASES = [pytest.param(c, id=str(c), marks=[] if i % 8 == 0 else [pytest.mark.long])
              for i, c in enumerate(CASES) if 1 <= len(c.args) <= 3]


@pytest.mark.parametrize("case", RULE_CASES)
def test_rule_cases_replay_as_the_full_rule(case):
    f = _calling(case.fn, case.kwargs, len(case.args))
    try:
        out, ct, want = _vjp_twice(f, case.args)
    except Exception:  # noqa: BLE001 (the full rule's own failures are its tests')
        pytest.skip("the full reverse rule fails on this case")
    scheduled = fwdad.static_graph(f)
    for _ in range(3):
        got_out, _, got = _vjp_twice(scheduled, case.args, ct)
        _same(got_out, out)
        _same(got, want)


# ---- exact where the operations are the same --------------------------------------------
def layer(w, x):
    for _ in range(3):
        x = np.tanh(w @ x) + 0.5 * x
    x[0] = x[1] * 2.0
    return x.sum() + x.mean()


def test_bitwise_on_arrays_and_writes():
    rng = np.random.default_rng(0)
    w, x = rng.standard_normal((4, 4)), rng.standard_normal(4)
    want = fwdad.grad(layer, (0, 1))(w, x)
    scheduled = fwdad.static_graph(layer)
    for _ in range(3):
        got = fwdad.grad(scheduled, (0, 1))(w, x)
        assert all(np.array_equal(g, v) for g, v in zip(got, want))
    assert scheduled.static_graph.reverse.counts["replays"] == 2


def test_pullback_runs_twice_and_arguments_end_as_written():
    def write_argument(x):
        x[1] = x[0] * 3.0
        return (x * x).sum()
    scheduled = fwdad.static_graph(write_argument)
    for _ in range(2):
        x = np.array([1.0, 2.0, 3.0])
        out, pullback = fwdad.vjp(scheduled, x)
        np.testing.assert_array_equal(x, [1.0, 3.0, 3.0])  # as a plain call leaves it
        first, second = pullback(1.0), pullback(1.0)
        np.testing.assert_array_equal(first[0], [20.0, 0.0, 6.0])
        np.testing.assert_array_equal(second[0], first[0])
    assert scheduled.static_graph.reverse.counts["replays"] == 1


def test_called_from_other_reverse_code():
    """A scheduled function inside a gradient: one tape callback for the whole call."""
    inner = fwdad.static_graph(lambda_free_layer)

    def outer(w, x):
        return inner(w, x) * inner(w, 2.0 * x)
    rng = np.random.default_rng(2)
    w, x = rng.standard_normal((3, 3)), rng.standard_normal(3)
    want = fwdad.grad(lambda w, x: lambda_free_layer(w, x) * lambda_free_layer(w, 2.0 * x),
                      (0, 1))(w, x)
    for _ in range(2):
        got = fwdad.grad(outer, (0, 1))(w, x)
        for g, v in zip(got, want):
            np.testing.assert_allclose(g, v, rtol=1e-12)
    assert inner.static_graph.reverse.counts["replays"] >= 2


def lambda_free_layer(w, x):
    return np.sum(np.tanh(w @ x) ** 2)


def test_nested_static_graphs_make_one_schedule():
    inner = fwdad.static_graph(lambda_free_layer)

    def outer(w, x):
        return inner(w, x) + inner(w, -x)
    scheduled = fwdad.static_graph(outer)
    rng = np.random.default_rng(4)
    w, x = rng.standard_normal((3, 3)), rng.standard_normal(3)
    want = fwdad.grad(lambda w, x: lambda_free_layer(w, x) + lambda_free_layer(w, -x),
                      (0, 1))(w, x)
    for _ in range(2):
        got = fwdad.grad(scheduled, (0, 1))(w, x)
        assert all(np.array_equal(g, v) for g, v in zip(got, want))
    assert scheduled.static_graph.reverse.counts["replays"] == 1
    assert sum(inner.static_graph.reverse.counts.values()) == 0  # (recorded through)


def test_dot_product_of_a_replay():
    """<vjp(ct), t> == <ct, jvp(t)>, the replayed pullback against forward mode."""
    scheduled = fwdad.static_graph(layer)
    rng = np.random.default_rng(3)
    args = (rng.standard_normal((4, 4)), rng.standard_normal(4))
    fwdad.vjp(scheduled, *copy.deepcopy(args))  # records
    check_dot_product(scheduled, args)
    assert scheduled.static_graph.reverse.counts["replays"] >= 1


# ---- guards: each change falls back to the full rule, which is right ------------------
def _guarded(fn, first, second, reason=None):
    """Record at `first`, call at `second`: the second call must fall back (or have no
    schedule for its signature) and still match the full rule."""
    scheduled = fwdad.static_graph(fn)
    fwdad.grad(scheduled)(*first)
    got = fwdad.grad(scheduled)(*second)
    np.testing.assert_allclose(got, fwdad.grad(fn)(*second), rtol=1e-12)
    return scheduled.static_graph.reverse


def scaled(x):
    return (x * SCALE).sum()


def test_branch_outcome_guard():
    graph = _guarded(branchy, (np.ones(3),), (-np.ones(3),))
    assert graph.counts["fallbacks"] == 1


def test_loop_length_guard():
    x = np.linspace(0.1, 0.5, 3)
    graph = _guarded(looped, (x, 3), (x, 4))
    assert graph.counts["records"] == 2  # (n is part of the signature: a new record)
    n = np.array(3)
    graph = _guarded(lambda_loop, (x, 3.0), (x, 4.0))
    assert graph.counts["fallbacks"] == 1
    del n


def lambda_loop(x, n):
    y = x
    for _ in range(int(n)):
        y = y * 0.9 + np.sin(y)
    return y.mean()


def test_shape_and_type_guards():
    graph = _guarded(scaled, (np.ones(3),), (np.ones(4),))
    assert graph.counts["records"] == 2
    scheduled = fwdad.static_graph(scaled)
    fwdad.grad(scheduled)(np.ones(3))
    assert fwdad.grad(scheduled)(np.ones((1, 3))).tolist() == [[2.0, 2.0, 2.0]]
    assert fwdad.grad(scheduled)(np.float64(1.0)) == 2.0  # (a signature of its own)
    assert scheduled.static_graph.reverse.counts["records"] == 3


def test_dtype_guard_on_a_constant_array():
    def weighted(x, c):
        return (x * c).sum()
    scheduled = fwdad.static_graph(weighted)
    x = np.ones(2)
    fwdad.grad(scheduled)(x, np.ones(2))
    got = fwdad.grad(scheduled)(x, np.full(2, 0.1, dtype=np.float32))
    np.testing.assert_array_equal(got, fwdad.grad(weighted)(x, np.full(2, 0.1,
                                                                       dtype=np.float32)))
    assert scheduled.static_graph.reverse.counts["records"] == 2


def _scaled_by_cell(scale):
    def scaled_cell(x):
        return (x * scale).sum()
    return scaled_cell


def test_closure_variable_guard():
    f = _scaled_by_cell(2.0)
    scheduled = fwdad.static_graph(f)
    x = np.ones(2)
    fwdad.grad(scheduled)(x)
    f.__closure__[0].cell_contents = 7.0
    np.testing.assert_array_equal(fwdad.grad(scheduled)(x), [7.0, 7.0])
    assert scheduled.static_graph.reverse.counts["fallbacks"] == 1


def test_global_guard():
    global SCALE
    scheduled = fwdad.static_graph(scaled)
    x = np.ones(3)
    fwdad.grad(scheduled)(x)
    try:
        SCALE = 5.0
        np.testing.assert_array_equal(fwdad.grad(scheduled)(x), [5.0, 5.0, 5.0])
    finally:
        SCALE = 2.0
    assert scheduled.static_graph.reverse.counts["fallbacks"] == 1


def _double(v):
    return v * 2.0


def _triple(v):
    return v * 3.0


CALLEES = [_double]


def dynamic_callee(x):
    return CALLEES[0](x).sum()


def test_dynamic_callee_guard():
    scheduled = fwdad.static_graph(dynamic_callee)
    x = np.ones(2)
    fwdad.grad(scheduled)(x)
    try:
        CALLEES[0] = _triple  # (the same list: only the callee guard sees it)
        np.testing.assert_array_equal(fwdad.grad(scheduled)(x), [3.0, 3.0])
    finally:
        CALLEES[0] = _double
    assert scheduled.static_graph.reverse.counts["fallbacks"] == 1


def test_value_guard_on_a_computed_index():
    def pick(x):
        return x[int(np.argmax(x))] * 2.0
    scheduled = fwdad.static_graph(pick)
    fwdad.grad(scheduled)(np.array([1.0, 3.0, 2.0]))
    got = fwdad.grad(scheduled)(np.array([4.0, 3.0, 2.0]))
    np.testing.assert_array_equal(got, [2.0, 0.0, 0.0])
    assert scheduled.static_graph.reverse.counts["fallbacks"] == 1


def test_guard_on_the_item_max_picks():
    def larger(x, y):
        return max([x, y]) * 2.0
    scheduled = fwdad.static_graph(larger)
    assert fwdad.grad(scheduled, (0, 1))(1.0, 2.0) == (0.0, 2.0)
    assert fwdad.grad(scheduled, (0, 1))(3.0, 2.0) == (2.0, 0.0)
    assert fwdad.grad(scheduled, (0, 1))(0.5, 2.0) == (0.0, 2.0)
    counts = scheduled.static_graph.reverse.counts
    assert counts["fallbacks"] == 1 and counts["replays"] == 1


def test_write_then_failing_guard_restores_the_argument():
    def write_then_branch(x):
        x[0] = x[1] * 2.0
        if x[2] > 0:
            return x.sum()
        return (x * x).sum()
    scheduled = fwdad.static_graph(write_then_branch)
    fwdad.grad(scheduled)(np.array([1.0, 2.0, 3.0]))
    x = np.array([1.0, 2.0, -3.0])
    got = fwdad.grad(scheduled)(x)
    np.testing.assert_array_equal(got, fwdad.grad(write_then_branch)(
        np.array([1.0, 2.0, -3.0])))
    assert scheduled.static_graph.reverse.counts["fallbacks"] == 1


def test_failing_assert_falls_back_and_raises():
    def checked(x):
        assert x > 0.0, "x must be positive"
        return x * x
    scheduled = fwdad.static_graph(checked)
    assert fwdad.grad(scheduled)(2.0) == 4.0
    with pytest.raises(AssertionError, match="positive"):
        fwdad.grad(scheduled)(-2.0)
    assert scheduled.static_graph.reverse.counts["fallbacks"] == 1


# ---- what is never scheduled says why ----------------------------------------------------
def test_reasons():
    def guarded(x):
        try:
            return x * 2.0
        except ValueError:
            return x
    scheduled = fwdad.static_graph(guarded)
    fwdad.grad(scheduled)(1.5)
    assert fwdad.grad(scheduled)(1.5) == 2.0
    graph = scheduled.static_graph.reverse
    assert graph.counts["full"] == 1 and "try" in next(iter(graph.reasons.values()))
    assert graph.source() == ""


def test_functions_defined_inside_are_recorded_through():
    def outer(x, w):
        scale = w * 2.0

        def inner(v):
            return np.sin(v) * scale
        table = [inner, lambda v: v * v]
        return inner(x).sum() + table[1](x).sum()
    scheduled = fwdad.static_graph(outer)
    x, w = np.array([0.3, -1.2]), 0.7
    want = fwdad.grad(outer, (0, 1))(x, w)
    for _ in range(2):
        got = fwdad.grad(scheduled, (0, 1))(x, w)
        assert np.array_equal(got[0], want[0]) and got[1] == want[1]
    assert scheduled.static_graph.reverse.counts["replays"] == 1


def test_a_function_defined_inside_and_given_to_a_library_is_not_scheduled():
    def ordered(x):
        return sorted([x, 2.0 * x], key=lambda v: -v)[0] * 1.0
    scheduled = fwdad.static_graph(ordered)
    for _ in range(2):
        assert fwdad.grad(scheduled)(1.5) == 2.0
    assert scheduled.static_graph.reverse.counts["full"] == 1


def test_a_write_into_a_list_argument_is_not_scheduled():
    def grows(x, items):
        items.append(x * 2.0)
        return sum(items)
    scheduled = fwdad.static_graph(grows)
    for _ in range(2):
        assert fwdad.grad(scheduled)(1.5, [1.0]) == 2.0
    assert "list passed as an argument" in next(iter(
        scheduled.static_graph.reverse.reasons.values()))


def scaled_by(x, k=1.0):
    return (x * k).sum()


def test_keyword_arguments_run_the_full_rule():
    scheduled = fwdad.static_graph(scaled_by)
    assert list(fwdad.grad(scheduled)(np.ones(2), k=3.0)) == [3.0, 3.0]
    assert scheduled.static_graph.reverse.reasons[None] == "keyword arguments"


def test_source_is_printed_python():
    scheduled = fwdad.static_graph(lambda_free_layer)
    fwdad.grad(scheduled)(np.eye(2), np.ones(2))
    text = scheduled.static_graph.reverse.source()
    assert text.startswith("def lambda_free_layer_reverse_schedule(a0, a1):")
    assert "yield" in text and "Var" not in text


def test_second_order_falls_back_with_a_reason():
    """Forward over the reverse rule (hessian, hvp) runs the full reverse rule."""
    def cube(x):
        return (x ** 3).sum()
    scheduled = fwdad.static_graph(cube)
    x = np.array([0.5, -1.0])
    fwdad.grad(scheduled)(x)
    hessian = fwdad.hessian(scheduled)(x)
    np.testing.assert_allclose(hessian, np.diag(6.0 * x), rtol=1e-12)
    assert math.isfinite(hessian.sum())
    graph = scheduled.static_graph.reverse
    assert "forward mode over the reverse rule" in graph.reasons["second order"]


# ---- generated programs (the fuzzer's generator, seeds of this file's own) --------------
@pytest.mark.parametrize("seed", range(99_850_000, 99_850_040))
def test_generated_programs_replay_as_the_full_rule(seed):
    from tests.fuzz.case import Case
    from tests.fuzz.generate import generate
    case = Case(generate(seed))
    ct, after = case.cotangent(), copy.deepcopy(case.args)
    try:
        out, pullback = fwdad.vjp(case.f, *after)
        want = pullback(ct)
    except Exception:  # noqa: BLE001 (the full rule's own failures are the fuzzer's)
        pytest.skip("the full reverse rule fails on this program")
    scheduled = fwdad.static_graph(case.f)
    for _ in range(3):
        args = copy.deepcopy(case.args)
        got_out, pullback = fwdad.vjp(scheduled, *args)
        _same(got_out, out)
        _same(list(args), list(after))  # (arguments end as the full rule leaves them)
        _same(pullback(ct), want)


# ---- the bench workloads, small, against independent references -------------------------
def _bench():
    import pathlib
    import sys
    root = str(pathlib.Path(__file__).resolve().parents[2])
    if root not in sys.path:  # bench/ is not an installed package
        sys.path.insert(0, root)
    from bench import reverse_schedule
    return reverse_schedule


def test_cofactor_determinant_gradient_is_the_cofactor_matrix():
    bench = _bench()
    m = bench.matrix_inputs(n=4, seed=1)
    scheduled = fwdad.static_graph(bench.cofactor_sum)
    for _ in range(2):
        got = np.array(fwdad.grad(scheduled)(m))
    a = np.array(m)
    np.testing.assert_allclose(got, np.linalg.det(a) * np.linalg.inv(a).T, rtol=1e-10)
    assert scheduled.static_graph.reverse.counts["replays"] == 1


def test_lstm_gradient_against_finite_differences():
    bench = _bench()
    params, xs = bench.lstm_inputs(steps=5, hidden=3, inputs=2, seed=2)
    scheduled = fwdad.static_graph(bench.lstm)
    for _ in range(2):
        got = fwdad.grad(scheduled)(params, xs)
    for which, index in ((0, (1, 1)), (1, (4, 2)), (2, (7,))):
        step = 1e-6
        up, down = copy.deepcopy(params), copy.deepcopy(params)
        up[which][index] += step
        down[which][index] -= step
        fd = (bench.lstm(up, xs) - bench.lstm(down, xs)) / (2 * step)
        np.testing.assert_allclose(got[which][index], fd, rtol=1e-6, atol=1e-9)
    assert scheduled.static_graph.reverse.counts["replays"] == 1


# ---- out= given by position: the rules stay pure steps ---------------------------------
def clipped_sums(x):
    """np.clip and np.sum take out= by position; called without it they are steps."""
    return np.sum(np.clip(x, -0.5, 0.6) * x, 0).sum()


def clipped_into(x):
    r, m = x * 0.0, np.zeros(3)
    np.clip(x, -0.5, 0.6, r)  # (a bare TypeError before: the rule took out= by keyword)
    np.sum(x, 1, None, m)
    return (r * x).sum() + (m * m).sum()


def test_rules_that_take_out_by_position_are_replayed():
    x = np.random.default_rng(2).standard_normal((3, 4))
    scheduled = fwdad.static_graph(clipped_sums)
    for _ in range(2):
        _vjp_twice(scheduled, (x,))
    graph = scheduled.static_graph.reverse
    assert graph.counts["replays"] == 1, graph.reasons


def test_out_by_position_under_a_schedule():
    x = np.random.default_rng(3).standard_normal((3, 4))
    want = fwdad.grad(clipped_into)(x)
    h, fd = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        fd[i] = (clipped_into(x + e) - clipped_into(x - e)) / (2 * h)
    np.testing.assert_allclose(want, fd, rtol=1e-6, atol=1e-8)
    scheduled = fwdad.static_graph(clipped_into)
    for _ in range(3):
        _same(fwdad.grad(scheduled)(x), want)
