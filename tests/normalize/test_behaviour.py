"""Normalization keeps behaviour: normalized code runs and returns what the original
returns, on every function of the corpus."""
import copy
import operator

import numpy as np
import pytest

import fwdad
from fwdad.compile import render
from fwdad.normalize import normalize
from fwdad.source import get_source
from tests.corpus import CORPUS


def run_normalized(fn, args):
    src = get_source(fn)
    text = render(normalize(src))  # the renderer rules are written with
    namespace = dict(fn.__globals__, operator=operator, fwdad=fwdad)
    exec(compile(text, f"<normalized {fn.__name__}>", "exec"), namespace)
    return namespace[src.tree.name](*args)


@pytest.mark.parametrize("example", CORPUS, ids=str)
def test_normalized_code_behaves_like_the_original(example):
    want = example.fn(*copy.deepcopy(example.args))
    got = run_normalized(example.fn, copy.deepcopy(example.args))
    np.testing.assert_allclose(got, want, rtol=1e-12)
