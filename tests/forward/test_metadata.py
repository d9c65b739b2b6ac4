"""Reads of a parameter's metadata carry no tangent (forward/optimizer/metadata.py):
the optimized rule leaves out their tangent work and still equals the plain rule and
finite differences; a user class whose `size` is a property with a derivative goes to
the plain rule, which differentiates it."""
from dataclasses import dataclass

import numpy as np
import pytest

import fwdad
from fwdad.forward.derive import build_rule
from fwdad.tangents import random_tangent, stack
from tests.util import assert_close, assert_same, fd_jvp, run_rule


def spacing(u):
    n = u.shape[0]
    h = 1.0 / (n + 1)
    return u / (h * h) + u.size * u ** 2 + u.ndim


def reassigned(u):
    """u is assigned in the rule: its metadata are not known to be an array's."""
    u = u * 2.0
    return u * u.size


@dataclass
class Rod:
    length: float

    @property
    def size(self):
        return self.length * 2.0


def measured(rod, x):
    return rod.size * x


def test_metadata_reads_are_plain():
    source = build_rule(spacing).source
    assert "h = 1.0 / (n + 1)" in source, source  # no tangent of h
    assert "dh" not in source, source


@pytest.mark.parametrize("fn", [spacing, reassigned], ids=lambda f: f.__name__)
def test_optimized_rule_matches_plain_rule_and_differences(fn):
    x = np.array([0.3, -0.7, 1.1])
    rng = np.random.default_rng(0)
    optimized, plain = build_rule(fn), build_rule(fn, optimized=False)
    tangents = [random_tangent(x, rng)]
    assert_same(run_rule(optimized, (x,), tangents), run_rule(plain, (x,), tangents))
    batch = [stack([random_tangent(x, rng) for _ in range(3)])]
    assert_same(run_rule(optimized, (x,), batch), run_rule(plain, (x,), batch))
    _, got = fwdad.jvp(fn, (x.copy(),), tangents)
    assert_close(got, fd_jvp(fn, (x.copy(),), tangents), rtol=1e-6)


def test_a_size_property_with_a_derivative_is_differentiated():
    rod, x = Rod(1.5), 0.7
    assert "_fw_unoptimized" in build_rule(measured).source  # the guard is there
    _, tangent = fwdad.jvp(measured, (rod, x), (Rod(1.0), 0.0))
    assert tangent == pytest.approx(2.0 * x)  # d(2 * length * x) / d(length)
