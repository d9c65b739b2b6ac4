"""The benchmark's workloads, small: fwdad's jvp against the hand-written tangent and
against central finite differences (float64). No timings."""
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # bench/ is not an installed package
    sys.path.insert(0, str(ROOT))

import fwdad  # noqa: E402
from bench.jvp_overhead import elementwise_workload, mismatch, rk4_workload  # noqa: E402

WORKLOADS = [rk4_workload(steps=50), elementwise_workload(size=1000)]


def central_difference(workload, h=1e-6):
    """(f(p + h t) - f(p - h t)) / 2h, moving every primal along its tangent."""
    def at(step):
        return workload.f(*(p + step * t for p, t in zip(workload.primals,
                                                         workload.tangents)))
    return (at(h) - at(-h)) / (2 * h)


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_jvp_matches_hand_written_tangent(workload):
    result = fwdad.jvp(workload.f, workload.primals, workload.tangents)
    assert mismatch(workload, result) == ""


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_jvp_matches_finite_differences(workload):
    out, tangent = fwdad.jvp(workload.f, workload.primals, workload.tangents)
    assert out == pytest.approx(workload.f(*workload.primals), rel=1e-12)
    assert tangent == pytest.approx(central_difference(workload), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w.name)
def test_hand_written_tangent_matches_finite_differences(workload):
    """The reference itself is right, so the benchmark's check means something."""
    _, tangent = workload.hand(*workload.primals, *workload.tangents)
    assert tangent == pytest.approx(central_difference(workload), rel=1e-6, abs=1e-8)
