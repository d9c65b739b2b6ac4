"""Forward over reverse (fwdad/over_reverse.py): jvp of grad, hvp and hessian by one
reverse pass run on Dual values, against finite differences of the gradient, closed
forms and the symmetry of the Hessian; and the fallback to forward over forward."""
import copy
import dataclasses
import tracemalloc

import numpy as np
import pytest

import fwdad
from fwdad import over_reverse
from fwdad.tangents import random_tangent
from tests.corpus import CORPUS
from tests.test_higher_order import rosenbrock, rosenbrock_hessian
from tests.util import assert_close, fd_jvp


@pytest.fixture
def passes(monkeypatch):
    """Counts the reverse passes run on Dual values (so a test knows which path ran)."""
    count = {"n": 0}
    real = over_reverse.value_and_grad

    def counted(*args, **kwargs):
        count["n"] += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(over_reverse, "value_and_grad", counted)
    return count


def gradient_of(f, argnums):
    return lambda *args: fwdad.grad(f, argnums)(*copy.deepcopy(args))


# ---- the functions: a loop, a branch, in-place updates, a class, a with block --------
def in_place(x, w):
    y = x.copy()
    y[1:] *= x[:-1]
    y[0] += w * np.sin(x[-1])
    return np.sum(np.tanh(y) * x)


@dataclasses.dataclass
class Spring:
    k: float
    rest: float

    def energy(self, d):
        return 0.5 * self.k * (d - self.rest) ** 2


def with_a_class(x, k):
    spring = Spring(k * x[0], 0.5)
    total = 0.0
    for d in x[1:]:
        if d > 0:
            total = total + spring.energy(d)
        else:
            total = total - d * spring.k
    return total


def reductions(a):
    return np.sum(np.min(a * a, axis=1)) + np.max(np.cumsum(a, axis=0)) ** 2


def through_aliases(x):
    """Reverse rules that look up another's rule (rules_array_api.py: get_rrule), which
    forward over reverse reads as a constant: tr(x x^T) + sum(A^T * A) + sum(x^3)."""
    a = np.outer(x, x)
    return np.linalg.trace(a) + np.sum(np.linalg.matrix_transpose(a) * a) + np.sum(
        np.astype(x, float) ** 3)


def through_aliases_hvp(x, v):
    """2 v + 4 |x|^2 v + 8 x (x . v) + 6 x v: the closed form of through_aliases."""
    return 2.0 * v + 4.0 * (x @ x) * v + 8.0 * x * (x @ v) + 6.0 * x * v


PROGRAMS = [  # (function, arguments): one reverse pass on Dual values
    (in_place, (np.array([0.3, -0.7, 1.1, 0.4]), 0.8)),
    (rosenbrock, (np.array([1.2, 0.8, -0.5, 0.3]),)),
    (through_aliases, (np.array([0.4, -1.3, 0.9]),)),
]
FALLBACK = [  # np.min's reverse rule writes with np.put_along_axis (no forward rule yet)
    (reductions, (np.array([[0.3, -1.2, 0.5], [1.1, 0.7, -0.4]]),)),
]


@pytest.mark.parametrize("f, args", PROGRAMS, ids=lambda v: getattr(v, "__name__", ""))
def test_jvp_of_grad_runs_one_reverse_pass_on_duals(f, args, passes):
    rng = np.random.default_rng(0)
    v = tuple(random_tangent(a, rng) for a in args)
    fwdad.jvp(fwdad.grad(f, tuple(range(len(args)))), copy.deepcopy(args), v)
    assert passes["n"] == 1


@pytest.mark.parametrize("f, args", PROGRAMS + FALLBACK,
                         ids=lambda v: getattr(v, "__name__", ""))
def test_jvp_of_grad_matches_finite_differences_of_grad(f, args):
    rng = np.random.default_rng(0)
    v = tuple(random_tangent(a, rng) for a in args)
    argnums = tuple(range(len(args)))
    grads, hv = fwdad.jvp(fwdad.grad(f, argnums), copy.deepcopy(args), v)
    assert_close(grads, fwdad.grad(f, argnums)(*copy.deepcopy(args)), rtol=1e-12)
    assert_close(hv, fd_jvp(gradient_of(f, argnums), args, v, h=1e-5), rtol=1e-6)


@pytest.mark.parametrize("f, args", PROGRAMS + FALLBACK,
                         ids=lambda v: getattr(v, "__name__", ""))
def test_hvp_is_symmetric(f, args):
    """<H v, w> = <v, H w>, and H v against finite differences of the gradient."""
    rng = np.random.default_rng(1)
    x, rest = args[0], args[1:]
    v, w = random_tangent(x, rng), random_tangent(x, rng)
    zeros = tuple(np.zeros_like(a) if isinstance(a, np.ndarray) else 0.0 for a in rest)
    hv = fwdad.hvp(f, copy.deepcopy(args), (v, *zeros))[0]
    hw = fwdad.hvp(f, copy.deepcopy(args), (w, *zeros))[0]
    assert np.vdot(hv, w) == pytest.approx(np.vdot(v, hw), rel=1e-10)
    assert_close(hv, fd_jvp(lambda x: fwdad.grad(f)(x, *copy.deepcopy(rest)), (x,), (v,),
                            h=1e-5), rtol=1e-6)


def test_a_class_made_inside_is_differentiated_or_refused_clearly():
    x, v = np.array([0.6, 1.2, -0.4, 0.9]), np.array([1.0, 0.5, -1.0, 2.0])
    try:
        (hv, _) = fwdad.hvp(with_a_class, (x, 1.5), (v, 0.0))
    except fwdad.FwdadError as exc:
        assert "Spring" in str(exc)
    else:
        assert_close(hv, fd_jvp(lambda x: fwdad.grad(with_a_class)(x, 1.5), (x,), (v,),
                                h=1e-5), rtol=1e-6)


def test_hessian_of_rosenbrock_is_the_closed_form(passes):
    x = np.array([1.2, 0.8, -0.5, 0.3, 2.0])
    np.testing.assert_allclose(fwdad.hessian(rosenbrock, chunk_size=x.size)(x),
                               rosenbrock_hessian(x), rtol=1e-12)
    assert passes["n"] == 1  # one batched pass: a tangent per entry of x
    np.testing.assert_allclose(fwdad.hessian(rosenbrock)(x), rosenbrock_hessian(x),
                               rtol=1e-12)  # (passes sized by the memory budget)


@pytest.mark.parametrize("example", [e for e in CORPUS if all(
    isinstance(a, float) for a in e.args)], ids=str)
def test_jvp_of_grad_on_the_corpus(example):
    rng = np.random.default_rng(2)
    v = tuple(random_tangent(a, rng) for a in example.args)
    argnums = tuple(range(len(example.args)))
    try:
        fwdad.grad(example.fn, argnums)(*copy.deepcopy(example.args))
    except fwdad.FwdadError:
        pytest.skip("reverse mode refuses this example")
    _, hv = fwdad.jvp(fwdad.grad(example.fn, argnums), copy.deepcopy(example.args), v)
    assert_close(hv, fd_jvp(gradient_of(example.fn, argnums), example.args, v, h=1e-5),
                 rtol=1e-6, atol=1e-7)


def test_hvp_through_rules_that_look_up_rules_is_the_closed_form(passes):
    x, v = np.array([0.4, -1.3, 0.9, 2.1]), np.array([1.0, -0.5, 0.25, 2.0])
    np.testing.assert_allclose(fwdad.hvp(through_aliases, (x,), (v,))[0],
                               through_aliases_hvp(x, v), rtol=1e-12)
    assert passes["n"] == 1
    from fwdad.reverse import registry  # (its table is read as a constant, never walked)
    from fwdad.rules.registry import entry_of
    assert entry_of(registry.get_rrule).kind == "nondiff"


def test_hvp_costs_a_few_gradients_not_a_jacobian():
    """Forward over forward would make a 200,000 x 200,000 Jacobian (320 GB)."""
    x = np.linspace(-1.0, 1.0, 200_000)
    v = np.cos(np.arange(x.size))
    (hv,) = fwdad.hvp(rosenbrock, (x,), (v,))
    want = np.zeros_like(x)  # H v of the chained Rosenbrock, term by term
    a, b = x[:-1], x[1:]
    want[:-1] += (1200.0 * a * a - 400.0 * b + 2.0) * v[:-1] - 400.0 * a * v[1:]
    want[1:] += -400.0 * a * v[:-1] + 200.0 * v[1:]
    np.testing.assert_allclose(hv, want, rtol=1e-10, atol=1e-8)



def sine_chain(x):
    for _ in range(12):
        x = np.sin(x) + 0.5 * x
    return np.sum(x)


def peak_bytes(run):
    run()  # (rules built before measuring)
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_hvp_drops_each_step_once_its_callback_has_run():
    """As reverse mode does: the values and adjoints of a step are freed once its
    callback has run, so the peak is about twice the gradient's (a value and a tangent
    for each), not every step's values and adjoints held to the end of the pass."""
    x, v = np.linspace(-1.0, 1.0, 20_000), np.cos(np.arange(20_000))
    (hv,) = fwdad.hvp(sine_chain, (x,), (v,))
    assert_close(hv, fd_jvp(gradient_of(sine_chain, 0), (x,), (v,), h=1e-5),
                 rtol=1e-6, atol=1e-7)
    grad = fwdad.grad(sine_chain)
    grad_peak = peak_bytes(lambda: grad(x))
    hvp_peak = peak_bytes(lambda: fwdad.hvp(sine_chain, (x,), (v,)))
    assert hvp_peak < 2.5 * grad_peak, (hvp_peak, grad_peak)


# ---- what falls back to forward over forward, and what is never mixed up -------------
def vector_valued(x):
    return np.sin(x) * x[0]


def test_hvp_of_a_vector_valued_function_falls_back_to_forward_over_forward(passes):
    x, v = np.array([0.3, 0.9]), np.array([1.0, -2.0])
    (hv,) = fwdad.hvp(vector_valued, (x,), (v,))
    want = fd_jvp(lambda x: fwdad.jacfwd(vector_valued)(x), (x,), (v,), h=1e-5)
    np.testing.assert_allclose(hv, want, rtol=1e-6)  # output shape in front


def test_a_closure_made_inside_differentiated_code_is_differentiated_too():
    def outer(a):
        return a * fwdad.grad(lambda b: a * b * b)(1.0)  # 2 a^2
    assert fwdad.jvp(outer, (3.0,), (1.0,))[1] == pytest.approx(12.0, rel=1e-12)
    assert fwdad.grad(outer)(3.0) == pytest.approx(12.0, rel=1e-12)


def test_argument_written_in_place_ends_as_a_plain_call_leaves_it():
    def scale_in_place(x):
        x *= 2.0
        return np.sum(x ** 3)
    x, v = np.array([0.5, -1.0]), np.array([1.0, 1.0])
    plain = x.copy()
    scale_in_place(plain)
    grads, hv = fwdad.jvp(fwdad.grad(scale_in_place), (x,), (v,))
    np.testing.assert_allclose(x, plain)  # written once, as a plain call writes it
    np.testing.assert_allclose(hv, 48.0 * np.array([0.5, -1.0]) * v, rtol=1e-12)
