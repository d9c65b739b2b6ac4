"""bench/higher_order.py, small: its closed forms against central finite differences
(float64), fwdad's grad, hvp and hessian against the closed forms, and the benchmark's
report without peers. No timings."""
import pathlib
import sys

import numpy as np
import pytest

from tests.util import central_difference, central_gradient

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # bench/ is not an installed package
    sys.path.insert(0, str(ROOT))

from bench import higher_order  # noqa: E402
from bench.companion_rows import higher_order_rows  # noqa: E402
from bench.workloads_higher import (  # noqa: E402
    rosenbrock,
    rosenbrock_gradient,
    rosenbrock_hessian,
    rosenbrock_hvp,
    rosenbrock_point,
)

H = 1e-6


@pytest.mark.parametrize("n", [2, 7])
def test_closed_forms_match_finite_differences(n):
    """The references themselves are right, so the benchmark's checks mean something."""
    x, v = rosenbrock_point(n), np.random.default_rng(1).standard_normal(n)
    np.testing.assert_allclose(rosenbrock_gradient(x), central_gradient(rosenbrock, x, H),
                               rtol=1e-6, atol=1e-5)
    along = central_difference(rosenbrock_gradient, x, v, H)
    np.testing.assert_allclose(rosenbrock_hvp(x, v), along, rtol=1e-6, atol=1e-5)
    hessian = rosenbrock_hessian(x)
    np.testing.assert_allclose(hessian, hessian.T)
    np.testing.assert_allclose(hessian @ v, rosenbrock_hvp(x, v), rtol=1e-12)


@pytest.mark.parametrize("n", [2, 9])
def test_fwdad_derivatives_match_closed_forms(n):
    derivatives = higher_order.fwdad_derivatives()
    x, v = rosenbrock_point(n), np.random.default_rng(2).standard_normal(n)
    higher_order.check("grad", derivatives["grad"](x), rosenbrock_gradient(x))
    higher_order.check("hvp", derivatives["hvp"](x, v), rosenbrock_hvp(x, v))
    higher_order.check("hessian", derivatives["hessian"](x), rosenbrock_hessian(x))


def test_check_refuses_a_wrong_derivative():
    x = rosenbrock_point(5)
    with pytest.raises(SystemExit, match="wrong"):
        higher_order.check("grad", 1.001 * rosenbrock_gradient(x), rosenbrock_gradient(x))


def test_rows_name_every_library(monkeypatch):
    monkeypatch.setattr(higher_order, "installed_peers",
                        lambda: {"jax (eager)": None, "torch.func": None})
    monkeypatch.setattr(higher_order, "HESSIAN_N", 6)
    rows = higher_order_rows(repeats=1, n=12)
    entries = {row.entry: row for row in rows}
    assert "x grad" in entries["fwdad.hvp"].ratio and "n=10^5" in entries["fwdad.hvp"].target
    for entry in ("jax.jvp of jax.grad", "torch.func.jvp of grad", "jax.hessian (eager)",
                  "torch.func.hessian"):
        assert entries[entry].value == "absent"
    assert entries["fwdad.hessian"].ratio.endswith("x")


def test_script_runs(capsys):
    assert higher_order.main(["--quick", "--n", "12"]) == 0
    out = capsys.readouterr().out
    assert "hvp / grad, chained Rosenbrock, n = 12" in out and "hessian" in out
