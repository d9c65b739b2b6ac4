"""A float ddof with a derivative in var, std, nanvar, nanstd (functions and methods):
var = s / (n - ddof) has d var / d ddof = var / (n - ddof), in both modes (forward:
rules/reductions.ddof_term; reverse: the composition in reverse/rules_reductions.py),
against central differences, the other mode, and a batch of tangents."""
import numpy as np
import pytest

import fwdad
from tests.util import fd_jvp

X = np.array([[1.0, 2.0, 4.0, 7.0], [0.5, -1.5, 3.0, -1.0]])
WITH_NAN = np.array([[1.0, np.nan, 4.0, 7.0], [0.5, -1.5, 3.0, -1.0]])

CASES = [  # (name, f(ddof, x), x)
    ("var", lambda d, x: np.var(x, ddof=d), X),
    ("var axis", lambda d, x: np.sum(np.var(x, axis=1, ddof=d)), X),
    ("std", lambda d, x: np.std(x, ddof=d), X),
    ("std axis keepdims", lambda d, x: np.sum(np.std(x, axis=0, ddof=d, keepdims=True)), X),
    ("ndarray.var", lambda d, x: x.var(ddof=d), X),
    ("ndarray.std", lambda d, x: x.std(axis=1, ddof=d)[1], X),
    ("nanvar", lambda d, x: np.sum(np.nanvar(x, axis=1, ddof=d)), WITH_NAN),
    ("nanstd", lambda d, x: np.nanstd(x, ddof=d), WITH_NAN),
    ("equal values", lambda d, x: np.std(x * 0.0 + 2.0, ddof=d), X),  # (std 0: tangent 0)
]


def _along_ddof(f, d, x):
    return fd_jvp(lambda d_: f(d_, x), (d,), (1.0,))


@pytest.mark.parametrize("name, f, x", CASES, ids=[c[0] for c in CASES])
def test_ddof_derivative_in_both_modes(name, f, x):
    d = 0.7
    want = _along_ddof(f, d, x)
    assert np.isclose(fwdad.jvp(lambda d_: f(d_, x), (d,), (1.0,))[1], want, rtol=1e-6,
                      atol=1e-9)
    assert np.isclose(fwdad.grad(f, argnums=0)(d, x), want, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name, f, x", CASES, ids=[c[0] for c in CASES])
def test_ddof_and_x_together_agree_between_modes(name, f, x):
    """The dot-product test on (ddof, x) at once: <grad, t> == jvp(t)."""
    d, t = 0.7, (0.3, np.where(np.isnan(x), 0.0, np.linspace(-1.0, 1.0, x.size).reshape(x.shape)))
    forward = fwdad.jvp(f, (d, x), t)[1]
    grads = fwdad.grad(f, argnums=(0, 1))(d, x)
    reverse = grads[0] * t[0] + np.nansum(np.where(np.isnan(x), 0.0, grads[1]) * t[1])
    assert np.isclose(forward, reverse, rtol=1e-9, atol=1e-12)
    assert np.isclose(forward, fd_jvp(f, (d, x), t), rtol=1e-6, atol=1e-9)


def test_a_batch_of_ddof_tangents():
    f = CASES[1][1]
    _, batch = fwdad.batched_jvp(lambda d: f(d, X), (0.7,), (np.array([1.0, -2.0]),))
    assert np.allclose(batch, _along_ddof(f, 0.7, X) * np.array([1.0, -2.0]), rtol=1e-6)
