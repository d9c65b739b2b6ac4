"""A gradient inside a derivative (hessian, jacfwd of grad, jvp of a function that calls
grad) of an f that writes a field of an instance argument it does not differentiate
(`p.c = p.c * x[0]`): the inner derivative runs f once per direction, each run on its
own copy of the instance (fwdad/run_copies.py), and the instance ends as one plain call
leaves it. Shared, the write reached the next run and compounded: every row but the
first was silently wrong. Checked against central differences."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import fwdad
from tests.test_shared_instances import C, Params, X, rebinds_through_one, shared_model
from tests.util import central_hessian, central_jacobian


def rebinds(x: np.ndarray, p: Params) -> float:
    p.c = p.c * x[0]
    return float(np.sum(np.sin(x) * p.c) + p.k * x[1] ** 2)


def plain(x: np.ndarray) -> float:
    return rebinds(x, Params(2.0, C.copy()))


@pytest.mark.parametrize("second", ["hessian", "jacfwd of grad", "jacrev of grad"])
def test_second_derivative_through_a_written_instance(second: str) -> None:
    p = Params(2.0, C.copy())
    got = fwdad.hessian(rebinds)(X, p) if second == "hessian" else \
        getattr(fwdad, second.split()[0])(fwdad.grad(rebinds))(X, p)
    np.testing.assert_allclose(got, central_hessian(plain, X), rtol=1e-5, atol=1e-7)


def test_shared_instance_hessian() -> None:
    got = fwdad.hessian(rebinds_through_one)(X, shared_model())
    want = central_hessian(lambda x: rebinds_through_one(x, shared_model()), X)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_the_instance_ends_as_one_call_leaves_it() -> None:
    """An outer function reads the field after the inner grad: its value and its
    derivative are the plain function's."""
    def outer(x: np.ndarray) -> Any:
        m = shared_model()
        inner = fwdad.grad(rebinds_through_one)(x, m)
        return np.concatenate([m.second.c, inner])
    dx = np.array([1.0, -0.5, 0.25])
    out, dout = fwdad.jvp(outer, (X,), (dx,))
    np.testing.assert_allclose(out, outer(X), rtol=1e-12)
    np.testing.assert_allclose(out[:3], C * X[0], rtol=1e-12)
    np.testing.assert_allclose(dout, central_jacobian(outer, X) @ dx, rtol=1e-6, atol=1e-8)
