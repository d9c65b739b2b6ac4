"""copy.deepcopy of a container holding arrays, and `dataclasses.astuple`/`asdict`
(which deep-copy the fields), under linearize (found by the fuzzer's classes construct,
tests/fuzz/classes.py): the copy of a recorded tangent was refused ("fwdad does not
copy it"); it is a copy recorded on the tape. lin(t) against jvp, and lin.T against lin
by the dot-product test."""
import copy
import dataclasses

import numpy as np
import pytest

import fwdad
from fwdad.tangents import inner, random_tangent
from tests.util import assert_close

X = np.array([0.3, -0.2, 0.5])
K = 0.7


def deep_copied(x, k):
    a = [x * 1.0, {"k": x * k}]
    b = copy.deepcopy(a)
    b[0][1] += k
    b[1]["k"] *= 2.0
    return np.sum(a[0] * b[0]) + b[1]["k"] * a[1]["k"]


@dataclasses.dataclass
class Pair:
    a: np.ndarray
    b: float


def as_tuple_and_dict(x, k):
    p = Pair(x * 1.0, k)
    first, second = dataclasses.astuple(dataclasses.replace(p, b=p.b * 3.0))
    fields = dataclasses.asdict(p)
    fields["a"][0] += 1.0
    return first * second + fields["a"] * fields["b"] + p.a


@pytest.mark.parametrize("f", [deep_copied, as_tuple_and_dict], ids=lambda f: f.__name__)
def test_linearize_through_deep_copies(f):
    rng = np.random.default_rng(2)
    out, lin = fwdad.linearize(f, X.copy(), K)
    assert_close(out, f(X.copy(), K))
    for _ in range(2):
        tangents = (rng.standard_normal(3), float(rng.standard_normal()))
        want = fwdad.jvp(f, (X.copy(), K), tangents)[1]
        assert_close(lin(*tangents), want, rtol=1e-12, atol=1e-14)
        cotangent = random_tangent(out, rng)
        assert inner(cotangent, lin(*tangents)) == pytest.approx(
            inner(lin.T(cotangent), tangents), rel=1e-10)
