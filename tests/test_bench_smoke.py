"""The benchmark's workloads, small: fwdad's jvp against the hand-written tangent and
against central finite differences (float64). No timings."""
import pathlib
import sys

import numpy as np
import pytest

from tests.util import fd_jvp

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # bench/ is not an installed package
    sys.path.insert(0, str(ROOT))

import fwdad  # noqa: E402
from bench.jvp_overhead import elementwise_workload, mismatch, mlp_workload, rk4_workload  # noqa: E402
from bench.small_ops import chain, long_body_source, tiny  # noqa: E402

WORKLOADS = [rk4_workload(steps=50), elementwise_workload(size=1000),
             mlp_workload(batch=6, width=5)]


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_jvp_matches_hand_written_tangent(workload):
    result = fwdad.jvp(workload.f, workload.primals, workload.tangents)
    assert mismatch(workload, result) == ""


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_jvp_matches_finite_differences(workload):
    out, tangent = fwdad.jvp(workload.f, workload.primals, workload.tangents)
    np.testing.assert_allclose(out, workload.f(*workload.primals), rtol=1e-12)
    want = fd_jvp(workload.f, workload.primals, workload.tangents)  # (central differences)
    np.testing.assert_allclose(tangent, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_hand_written_tangent_matches_finite_differences(workload):
    """The reference itself is right, so the benchmark's check means something."""
    _, tangent = workload.hand(*workload.primals, *workload.tangents)
    want = fd_jvp(workload.f, workload.primals, workload.tangents)  # (central differences)
    np.testing.assert_allclose(tangent, want, rtol=1e-6, atol=1e-8)


SMALL = [(tiny, (0.5, 2.0)), (chain, (np.linspace(-0.5, 0.5, 8), np.eye(8) * 0.3))]


@pytest.mark.parametrize("fn, args", SMALL, ids=lambda c: getattr(c, "__name__", ""))
def test_small_workloads_match_finite_differences(fn, args):
    rng = np.random.default_rng(0)
    tangents = [rng.standard_normal(np.shape(a)) if np.ndim(a) else 1.0 for a in args]
    _, tangent = fwdad.jvp(fn, args, tangents)
    h = 1e-6
    plus = fn(*(a + h * t for a, t in zip(args, tangents)))
    minus = fn(*(a - h * t for a, t in zip(args, tangents)))
    assert tangent == pytest.approx((plus - minus) / (2 * h), rel=1e-6, abs=1e-8)


def test_long_body_is_a_function_of_the_stated_size():
    source = long_body_source(100)
    assert source.count("\n") == 100
    namespace = {"math": __import__("math")}
    exec(source, namespace)
    assert np.isfinite(namespace["long_body"](0.3, 0.7))


# ---- the workloads written with arguments (bench/arguments.py), small --------------------
def test_rk4_with_arguments_matches_hand_and_differences():
    from bench.arguments import rk4, rk4_hand
    args, h = (0.7, 1.0, 40, 0.05), 1e-6
    _, tangent = fwdad.jvp(rk4, args, (1.0, None, None, None))
    fd = (rk4(0.7 + h, *args[1:]) - rk4(0.7 - h, *args[1:])) / (2 * h)
    assert tangent == pytest.approx(rk4_hand(*args, 1.0)[1], rel=1e-12)
    assert tangent == pytest.approx(fd, rel=1e-7)


def test_mlp_with_arguments_matches_hand_and_differences():
    from bench.arguments import mlp, mlp_hand
    rng = np.random.default_rng(1)
    w1, x, w2, w3, dw1 = (rng.standard_normal((5, 5)) * 0.5 for _ in range(5))
    _, tangent = fwdad.jvp(mlp, (w1, x, w2, w3), (dw1, None, 0.0 * w2, None))
    h = 1e-6
    fd = (mlp(w1 + h * dw1, x, w2, w3) - mlp(w1 - h * dw1, x, w2, w3)) / (2 * h)
    np.testing.assert_allclose(tangent, mlp_hand(w1, x, w2, w3, dw1)[1], rtol=1e-12)
    np.testing.assert_allclose(tangent, fd, rtol=1e-6, atol=1e-9)


def test_least_squares_gradient_matches_differences():
    from bench.arguments import least_squares
    x, m, h = np.linspace(0.1, 0.5, 4), 16, 1e-6
    fd = [(least_squares(x + h * e, m) - least_squares(x - h * e, m)) / (2 * h)
          for e in np.eye(4)]
    np.testing.assert_allclose(fwdad.grad(least_squares)(x, m), fd, rtol=1e-6)


@pytest.mark.parametrize("pair, shown", [
    (("leapfrog", "leapfrog_plain"), "s_pos = "),
    (("leapfrog_stepper", "leapfrog_stepper_plain"), "step__s_fields("),
], ids=lambda x: x[0] if isinstance(x, tuple) else "")
def test_dataclass_state_matches_the_plain_code_and_differences(pair, shown):
    from bench import dataclass_state
    from fwdad.forward.derive import build_rule
    with_class, plain_code = (getattr(dataclass_state, name) for name in pair)
    rng = np.random.default_rng(2)
    pos, vel, dpos, dvel = (rng.standard_normal(6) for _ in range(4))
    args, tangents, h = (0.8, pos, vel, 30, 0.05), (1.0, dpos, dvel, None, None), 1e-6
    _, tangent = fwdad.jvp(with_class, args, tangents)
    _, plain = fwdad.jvp(plain_code, args, tangents)
    fd = (with_class(0.8 + h, pos + h * dpos, vel + h * dvel, 30, 0.05)
          - with_class(0.8 - h, pos - h * dpos, vel - h * dvel, 30, 0.05)) / (2 * h)
    assert tangent == pytest.approx(plain, rel=1e-12)
    assert tangent == pytest.approx(fd, rel=1e-6)
    source = build_rule(with_class).source
    assert source.startswith("# optimized") and shown in source


def test_dataclass_given_as_an_argument_matches_the_plain_code_and_differences():
    """bench/dataclass_state.py `advance`: the fields of the State it is given stay in
    locals (normalize/param_locals.py), with FWDAD_FIELDS on and off."""
    from bench import dataclass_state as d
    from fwdad.forward.routes import FIELDS
    args, tangents = d._point()
    _, plain = fwdad.jvp(d.leapfrog_plain, args, tangents)
    h, (k, pos, vel, steps, dt), (_, dpos, dvel, _, _) = 1e-6, args, tangents
    fd = (d.advance_given(k + h, pos + h * dpos, vel + h * dvel, steps, dt)
          - d.advance_given(k - h, pos - h * dpos, vel - h * dvel, steps, dt)) / (2 * h)
    for in_locals in (True, False):
        tangent = d.advance_jvp(in_locals)[1]
        assert tangent == pytest.approx(plain, rel=1e-12)
        assert tangent == pytest.approx(fd, rel=1e-6)
    routes = fwdad.derive_frule(d.advance).frule.routes
    (variant,) = [v for key, v in routes.variants.items() if (("s", FIELDS) in key)]
    assert "_fw_s__pos, _fw_ds__pos = " in variant.source
    assert "_fw_np_sin(" in variant.source  # (keyed on the fields' kinds: inlined)


@pytest.mark.parametrize("workload", ["solve_all", "solve_line"])
def test_ode_workloads_jacobians_match_finite_differences(workload):
    """bench/ode.py times jacfwd through solve_ivp: it must be the right Jacobian."""
    pytest.importorskip("scipy")
    from bench import ode
    f = getattr(ode, workload)
    x = np.concatenate([ode.Y0, ode.PARAMETERS]) if workload == "solve_all" else \
        np.array([0.3, 1.0, 1.0, 0.0])
    jacobian = fwdad.jacfwd(f)(x)
    h = 1e-5
    want = np.stack([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))], -1)
    np.testing.assert_allclose(jacobian, want, atol=1e-5 * np.max(np.abs(want)))
