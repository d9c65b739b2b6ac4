"""jvp agrees with central finite differences (float64, rtol 1e-6) on the corpus, in a
random direction of every argument at once."""
import copy

import numpy as np
import pytest

import fwdad
from fwdad.tangents import random_tangent
from tests.corpus import CORPUS
from tests.util import assert_close, fd_jvp


@pytest.mark.parametrize("example", CORPUS, ids=str)
def test_jvp_matches_finite_differences(example):
    rng = np.random.default_rng(1)
    tangents = [random_tangent(a, rng) for a in example.args]
    out, tangent = fwdad.jvp(example.fn, copy.deepcopy(example.args), tangents)
    assert_close(out, example.fn(*copy.deepcopy(example.args)), rtol=1e-12)
    assert_close(tangent, fd_jvp(example.fn, example.args, tangents), rtol=1e-6)


@pytest.mark.parametrize("example", CORPUS, ids=str)
def test_each_argument_separately(example):
    for i, arg in enumerate(example.args):
        tangents = [np.zeros_like(a) if j != i else np.ones_like(a)
                    for j, a in enumerate(example.args)]
        tangents = [float(t) if np.ndim(t) == 0 else t for t in tangents]
        _, tangent = fwdad.jvp(example.fn, copy.deepcopy(example.args), tangents)
        assert_close(tangent, fd_jvp(example.fn, example.args, tangents), rtol=1e-6)
