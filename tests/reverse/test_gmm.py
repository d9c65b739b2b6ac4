"""The gradient of ADBench's GMM objective (d=10, k=25, n=1000) matches central finite
differences on sampled coordinates of each differentiable argument."""
import numpy as np
import pytest

import fwdad
from tests.reverse.gmm import gmm_inputs, gmm_objective


@pytest.fixture(scope="module")
def point_and_gradient():
    args = gmm_inputs()
    value, grads = fwdad.value_and_grad(gmm_objective, argnums=(0, 1, 2))(*args)
    return args, value, grads


def test_value_is_the_plain_value(point_and_gradient):
    args, value, _ = point_and_gradient
    assert np.isclose(value, gmm_objective(*args), rtol=1e-13)


@pytest.mark.parametrize("argnum", [0, 1, 2], ids=["alphas", "means", "icf"])
def test_gradient_matches_finite_differences(point_and_gradient, argnum):
    args, _, grads = point_and_gradient
    rng = np.random.default_rng(argnum)
    shape = args[argnum].shape
    for flat in rng.choice(int(np.prod(shape)), size=6, replace=False):
        index = np.unravel_index(flat, shape)
        h = 1e-5
        plus, minus = [a.copy() if isinstance(a, np.ndarray) else a for a in args], \
            [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        plus[argnum][index] += h
        minus[argnum][index] -= h
        fd = (gmm_objective(*plus) - gmm_objective(*minus)) / (2 * h)
        assert np.isclose(grads[argnum][index], fd, rtol=1e-6, atol=1e-4), \
            f"d/d arg{argnum}{index}: reverse {grads[argnum][index]!r}, fd {fd!r}"
