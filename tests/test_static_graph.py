"""@fwdad.static_graph: a replayed schedule gives what the derived rule gives, and every
guard (types, shapes, branch outcomes, loop lengths, rebound globals, unsupported code)
falls back to the full rule, which stays correct."""
import copy

import numpy as np
import pytest

import fwdad
from fwdad.dual import Dual
from fwdad.forward.derive import build_rule
from fwdad.tangents import random_tangent, stack
from tests.test_higher_order_iterators import resumed_after_break
from tests.util import assert_close, fd_jvp

# Each static_graph registers its wrapper as a primitive: put the rule table back after
# every test, so that the meta-tests (a rule per row, an rrule per frule) do not see them
# in whatever process runs them later (pytest-xdist does not keep the file order).
pytestmark = pytest.mark.usefixtures("restore_rules")

SCALE = 2.0


def layer(x, w):
    h = np.tanh(w @ x)
    return (x + 0.5 * h).sum() * SCALE


def branchy(x):
    if x.sum() > 0:
        return np.sin(x).sum()
    return np.cos(x).sum()


def looped(x, n):
    y = x
    for _ in range(n):
        y = y * 0.9 + np.sin(y)
    return y.mean()


def poly(x):
    return (x * x + np.sin(x)) * 2.0


def mutates(x):
    y = x * 1.0
    y[0] = 3.0 * x[1]
    return y.sum()


def _pair(rng, *shapes):
    return [rng.standard_normal(s) if s else float(rng.standard_normal()) for s in shapes]


def _check(g, args, tangents):
    """jvp through the static graph equals the derived rule's, and finite differences."""
    out, tangent = fwdad.jvp(g, args, tangents)
    rule = build_rule(g.__wrapped__, optimized=False)
    want = rule(*[Dual(a, t) for a, t in zip(args, tangents)])
    assert_close(out, want.primal, rtol=1e-12)
    assert_close(tangent, want.tangent, rtol=1e-12)
    if all(np.asarray(a).dtype != np.float32 for a in args):
        assert_close(tangent, fd_jvp(g.__wrapped__, args, tangents), rtol=1e-6)


def test_second_call_replays_and_agrees():
    g, rng = fwdad.static_graph(layer), np.random.default_rng(0)
    x, w, dx, dw = _pair(rng, (3,), (3, 3), (3,), (3, 3))
    for _ in range(3):
        _check(g, (x, w), (dx, dw))
    assert g.static_graph.counts == {"records": 1, "replays": 2}


# (what changes, first args, second args): each needs a new schedule or a fallback
GUARDS = [
    ("shape", layer, (np.ones(3) * 0.1, np.eye(3)), (np.ones(4) * 0.1, np.eye(4)),
     "records"),
    ("type", poly, (np.ones(3) * 0.2,), (0.2,), "records"),
    ("dtype", poly, (np.ones(3) * 0.2,), (np.ones(3, np.float32) * 0.2,), "records"),
    ("NumPy scalar type", poly, (np.float64(0.2),), (np.float32(0.2),), "records"),
    ("branch", branchy, (np.array([0.5, 0.2]),), (np.array([-0.5, 0.2]),), "fallbacks"),
    ("loop length", looped, (np.ones(3) * 0.2, 2), (np.ones(3) * 0.2, 4), "fallbacks"),
]


@pytest.mark.parametrize("what, fn, first, second, counter", GUARDS,
                         ids=[guard[0] for guard in GUARDS])
def test_guard_falls_back_and_stays_correct(what, fn, first, second, counter):
    g, rng = fwdad.static_graph(fn), np.random.default_rng(1)
    for args in (first, first, second, second):
        tangents = [random_tangent(a, rng) for a in args]
        _check(g, args, tangents)
    assert g.static_graph.counts[counter] >= 1, g.static_graph.counts
    assert g.static_graph.counts["replays"] >= 1, g.static_graph.counts


def test_numpy_scalars_replay():
    """Items of an array (np.float64) are scalars of a signature, not a reason for the
    full rule (they were: solve_ivp's args=(p[0], ...) never replayed)."""
    g, rng = fwdad.static_graph(layer), np.random.default_rng(3)
    x, w, dx, dw = _pair(rng, (3,), (3, 3), (3,), (3, 3))
    scale = np.float64(1.5)
    for _ in range(3):
        _check(g, (x * scale, w), (dx * scale, dw))
        _check(fwdad.static_graph(poly), (scale,), (np.float64(0.7),))
    assert g.static_graph.counts == {"records": 1, "replays": 2}


def lotka_volterra(t, y, alpha, beta, delta, gamma):
    prey, predator = y
    return [alpha * prey - beta * prey * predator, delta * prey * predator - gamma * predator]


def test_solve_ivp_replays_the_right_hand_side():
    """The sensitivity system calls the rule of a @static_graph right-hand side at every
    step, with the parameters as NumPy scalars: it replays, and agrees with the plain
    right-hand side's sensitivities and with central differences."""
    si = pytest.importorskip("scipy.integrate")
    rhs = fwdad.static_graph(lotka_volterra)

    def solve(fun, x):
        return si.solve_ivp(fun, (0.0, 2.0), x[:2], t_eval=[1.0, 2.0], args=tuple(x[2:]),
                            rtol=1e-10, atol=1e-12).y
    x = np.array([1.0, 0.5, 1.1, 0.4, 0.1, 0.4])
    dx = np.array([0.3, -0.2, 0.1, 0.0, 0.0, 0.05])
    _, tangent = fwdad.jvp(lambda v: solve(rhs, v), (x,), (dx,))
    _, plain = fwdad.jvp(lambda v: solve(lotka_volterra, v), (x,), (dx,))
    assert rhs.static_graph.counts["replays"] > 10 * rhs.static_graph.counts["records"]
    assert "full" not in rhs.static_graph.counts
    assert_close(tangent, plain, rtol=1e-12)
    assert_close(tangent, fd_jvp(lambda v: solve(lotka_volterra, v), (x,), (dx,)),
                 rtol=1e-5, atol=1e-7)


def test_rebound_global_falls_back():
    global SCALE
    g, x, w = fwdad.static_graph(layer), np.ones(2) * 0.3, np.eye(2)
    _check(g, (x, w), (np.ones(2), np.zeros((2, 2))))
    try:
        SCALE = 5.0
        _check(g, (x, w), (np.ones(2), np.zeros((2, 2))))
    finally:
        SCALE = 2.0
    assert g.static_graph.counts["fallbacks"] >= 1, g.static_graph.counts


def test_mutating_code_always_runs_the_full_rule():
    g = fwdad.static_graph(mutates)
    for _ in range(2):
        _check(g, (np.array([1.0, 2.0, 3.0]),), (np.array([0.5, -1.0, 2.0]),))
    assert g.static_graph.counts["replays"] == 0
    assert "mutate" in next(iter(g.static_graph.reasons.values()))


def test_batched_tangents_replay_correctly():
    g, rng = fwdad.static_graph(layer), np.random.default_rng(2)
    x, w = rng.standard_normal(3), rng.standard_normal((3, 3))
    tangents = [stack([random_tangent(a, rng) for _ in range(2)]) for a in (x, w)]
    want = build_rule(layer, optimized=False)(*[Dual(a, t) for a, t in zip((x, w), tangents)])
    for _ in range(2):
        got = g.static_graph(*[Dual(a, t.copy()) for a, t in zip((x, w), tangents)])
        assert_close(got.tangent, want.tangent, rtol=1e-12)
    assert g.static_graph.counts["replays"] == 1


def test_plain_calls_and_schedule_source():
    g = fwdad.static_graph(layer)
    assert g(np.ones(2), np.eye(2)) == layer(np.ones(2), np.eye(2))
    fwdad.jvp(g, (np.ones(2), np.eye(2)), (np.ones(2), np.eye(2)))
    source = g.static_graph.source()
    assert source.startswith("# optimized static schedule of layer"), source
    assert "v1 = a1 @ a0" in source, source


@pytest.fixture(scope="module")
def random_programs(tmp_path_factory):
    import importlib.util

    from tests.forward.test_optimize_random import _program, _scalar_program
    path = tmp_path_factory.mktemp("static") / "static_programs.py"
    path.write_text("import math\n\nimport numpy as np\n\n\n" + "\n\n".join(
        [_program(s) for s in range(8)] + [_scalar_program(s) for s in range(8)]))
    spec = importlib.util.spec_from_file_location("static_programs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", [f"{k}_{s}" for k in ("program", "scalar") for s in range(8)])
def test_random_programs_replay_like_the_plain_rule(random_programs, name):
    """Calls at new points: replays, branch fallbacks and full runs all agree."""
    fn = getattr(random_programs, name)
    graph, plain = fwdad.static_graph(fn).static_graph, build_rule(fn, optimized=False)
    rng = np.random.default_rng(4)
    for _ in range(4):
        first = rng.standard_normal(3) * 0.5 if name.startswith("program") else \
            0.3 + rng.random()
        args, tangents = (first, float(rng.standard_normal())), [np.ones_like(first), 0.5]
        tangents[0] = tangents[0] if np.ndim(first) else 1.0
        want = plain(*[Dual(copy.deepcopy(a), copy.deepcopy(t))
                       for a, t in zip(args, tangents)])
        got = graph(*[Dual(copy.deepcopy(a), copy.deepcopy(t)) for a, t in zip(args, tangents)])
        assert_close(got.primal, want.primal, rtol=1e-12)
        assert_close(got.tangent, want.tangent, rtol=1e-12, atol=1e-12)


# ---- loops over iterators: a loop may stop early and leave the rest to another ---------
def pairs_of_two_slices(x):
    total = 0.0
    for a, b in zip(x[:2], x[2:]):
        total = total + a * b
    return total


def numbered(x):
    total = 0.0
    for i, a in enumerate(x):
        total = total + i * a * a
    return total


@pytest.mark.parametrize("fn", [pairs_of_two_slices, numbered, resumed_after_break],
                         ids=lambda f: f.__name__)
def test_loops_over_iterators_record_and_run_again_correctly(fn):
    g = fwdad.static_graph(fn)
    x, t = np.array([0.3, 0.5, 0.7, 1.1]), np.array([1.0, -2.0, 0.5, 0.3])
    want = fd_jvp(fn, (x,), (t,))
    for _ in range(2):  # the recording run, then the next call
        assert_close(fwdad.jvp(g, (x.copy(),), (t,))[1], want, rtol=1e-6)
        assert_close(fwdad.grad(g)(x.copy()) @ t, want, rtol=1e-6)


WRITTEN = np.zeros(3)


def _writes_one(v):
    WRITTEN[1] = v


def writes_a_global(x):
    WRITTEN[0] = x[0] * 2.0
    _writes_one(x[1] * 3.0)
    return np.sum(WRITTEN * x)


def test_a_function_that_writes_a_global_by_name_runs_its_full_rule():
    """The schedule would read WRITTEN as a constant (both modes refused the write
    through it, saying fwdad follows such writes): the graph records the reason and
    runs the full rule, which follows them, on every call."""
    x, t = np.array([0.3, 0.7, 1.1]), np.array([1.0, -0.5, 2.0])
    graph = fwdad.static_graph(writes_a_global)
    want_grad = np.array([4 * x[0], 6 * x[1], 0.0])  # WRITTEN[2] stays 0
    for _ in range(3):  # the record, then the calls after it
        WRITTEN[:] = 0.0
        assert_close(fwdad.grad(graph)(x), want_grad, rtol=1e-12)
        WRITTEN[:] = 0.0
        assert_close(fwdad.jvp(graph, (x,), (t,))[1], want_grad @ t, rtol=1e-12)
        assert_close(WRITTEN, [2 * x[0], 3 * x[1], 0.0], rtol=1e-12)  # (as a plain call)
        WRITTEN[:] = 0.0
        assert_close(fwdad.static_graph(fwdad.grad(writes_a_global))(x), want_grad,
                     rtol=1e-12)
    assert "writes into a global" in next(iter(graph.static_graph.reasons.values()))
