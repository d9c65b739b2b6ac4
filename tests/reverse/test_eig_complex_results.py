"""Reverse mode through np.linalg.eig and eigvals where NumPy returns real eigenvalues
as complex arrays (NumPy 2.5 and later): the rules take them real, read the real part
of the cotangent, and give the gradient that forward mode and central differences give.
Here the rules' NumPy calls are given such results, whatever NumPy is installed."""
from __future__ import annotations

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from fwdad.reverse import rules_array_api
from tests.util import assert_close, fd_jvp

_P = np.array([[1.0, 0.3, -0.2], [0.1, 1.2, 0.4], [-0.3, 0.2, 0.9]])
REAL = _P @ np.diag([1.0, 2.5, -1.5]) @ np.linalg.inv(_P)  # real, distinct eigenvalues
ROTATION = np.array([[0.0, -1.0, 0.2], [1.0, 0.0, 0.1], [0.3, 0.2, 2.0]])  # a complex pair


def _as_complex(fn):
    def complex_results(a):
        out = fn(a)
        if isinstance(out, tuple):
            return type(out)(*(np.asarray(part, dtype=complex) for part in out))
        return np.asarray(out, dtype=complex)
    return complex_results


@pytest.fixture
def numpy_25(monkeypatch):
    monkeypatch.setattr(rules_array_api, "_general_eig", _as_complex(np.linalg.eig))
    monkeypatch.setattr(rules_array_api, "_general_eigvals",
                        _as_complex(np.linalg.eigvals))


def spectrum(a):
    w = np.linalg.eigvals(a)
    return np.sum(np.real(w) * np.array([1.0, -2.0, 0.5]))


def vectors(a):
    w, v = np.linalg.eig(a)
    order = np.argsort(np.real(w))  # (a constant order: the eigenvalues are far apart)
    return np.sum(np.real(w[order]) ** 2) + np.sum(np.real(v[:, order] ** 2) *
                                                   np.arange(9.0).reshape(3, 3))


@pytest.mark.parametrize("f", [spectrum, vectors])
def test_grad_of_complex_results_holding_real_eigenvalues(numpy_25, f):
    grad = fwdad.grad(f)(REAL.copy())
    direction = np.random.default_rng(0).standard_normal((3, 3))
    _, forward = fwdad.jvp(f, (REAL.copy(),), (direction,))
    assert_close(np.sum(grad * direction), forward, rtol=1e-9)
    assert_close(np.sum(grad * direction), fd_jvp(f, [REAL.copy()], [direction]),
                 rtol=1e-6)


def test_complex_eigenvalues_are_refused(numpy_25):
    with pytest.raises(FwdadError, match="real eigenvalues of a real matrix only"):
        fwdad.grad(spectrum)(ROTATION.copy())
