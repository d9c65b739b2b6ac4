"""np.linalg's eigenvalues and singular values have no derivative where two meet (or a
singular value is zero): fwdad refuses there, in both modes, naming the user's line,
instead of returning the derivative of one arbitrary split (eigvalsh at the identity
used to give diag(da), not the sorted eigenvalues of da)."""
import numpy as np
import pytest

import fwdad

REPEATED = np.diag([2.0, 2.0, 1.0])
RANK_DEFICIENT = np.array([[1.0, 2.0], [2.0, 4.0]])


def eigvalsh_sum_squares(a):
    return np.sum(np.linalg.eigvalsh(a) ** 2 * np.arange(1.0, 4.0))


def eigh_vectors(a):
    return np.sum(np.linalg.eigh(a)[1] ** 3)


def singular_values(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) * np.array([1.0, 3.0]))


def singular_vectors(a):
    return np.sum(np.linalg.svd(a)[0] ** 3)


CASES = [(eigvalsh_sum_squares, np.eye(3), "np.linalg.eigvalsh"),
         (eigh_vectors, REPEATED, "np.linalg.eigh"),
         (singular_values, RANK_DEFICIENT, "np.linalg.svd"),
         (singular_vectors, np.eye(2), "np.linalg.svd")]


@pytest.mark.parametrize("fn, a, name", CASES, ids=[c[2] + "-" + c[0].__name__ for c in CASES])
def test_forward_refuses(fn, a, name):
    with pytest.raises(fwdad.NonDifferentiableError, match=name) as info:
        fwdad.jvp(fn, (a,), (np.ones_like(a),))
    assert "test_spectral_refusals.py" in str(info.value)


@pytest.mark.parametrize("fn, a, name", CASES, ids=[c[2] + "-" + c[0].__name__ for c in CASES])
def test_reverse_refuses(fn, a, name):
    with pytest.raises(fwdad.NonDifferentiableError, match=name):
        fwdad.grad(fn)(a)


def test_full_matrices_of_a_non_square_matrix_is_a_fwdad_error():
    with pytest.raises(fwdad.NonDifferentiableError, match="full_matrices=False"):
        a = np.arange(6.0).reshape(3, 2)
        fwdad.jvp(lambda a: np.linalg.svd(a)[0], (a,), (np.ones((3, 2)),))


def test_distinct_values_still_differentiate():
    a = np.diag([3.0, 2.0, 1.0]) + 0.1
    h, t = 1e-6, np.arange(9.0).reshape(3, 3)
    t = t + t.T
    fd = (eigvalsh_sum_squares(a + h * t) - eigvalsh_sum_squares(a - h * t)) / (2 * h)
    assert fwdad.jvp(eigvalsh_sum_squares, (a,), (t,))[1] == pytest.approx(fd, rel=1e-6)
