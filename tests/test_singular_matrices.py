"""Singular matrices. det has a derivative there, adj(a) (Jacobi's formula), which both
modes give (they raised NumPy's LinAlgError from a^-1). log|det a|, the condition number
and the factors of QR and LU have none, and are refused in both modes with a message
naming the user's line (each raised a LinAlgError from inside fwdad's rules)."""
import numpy as np
import pytest
import scipy.linalg as sl

import fwdad
from fwdad.errors import NonDifferentiableError
from tests.util import central_gradient

SINGULAR = [np.array([[1.0, 2.0], [2.0, 4.0]]),
            np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]),
            np.diag([2.0, 0.0, 0.0]), np.zeros((3, 3))]


def weighted_det(a):
    return np.linalg.det(a) * 2.0 + sl.det(a)


def log_abs_det(a):
    return np.linalg.slogdet(a)[1]


@pytest.mark.parametrize("a", SINGULAR, ids=["rank1-2x2", "rank2-3x3", "rank1-diag", "zero"])
@pytest.mark.parametrize("mode", ["jacfwd", "grad"])
def test_det_of_a_singular_matrix(a, mode):
    got = getattr(fwdad, mode)(weighted_det)(a)
    np.testing.assert_allclose(got, central_gradient(weighted_det, a), rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("mode", ["jacfwd", "grad"])
def test_slogdet_of_a_singular_matrix_is_refused(mode):
    with pytest.raises(NonDifferentiableError, match=r"np.linalg.slogdet in log_abs_det at "
                                                     r".*test_singular_matrices.py:\d+: a is "
                                                     r"singular"):
        getattr(fwdad, mode)(log_abs_det)(SINGULAR[0])


def q_factor(a):
    return np.sum(np.linalg.qr(a)[0])


def u_factor(a):
    return np.sum(sl.lu_factor(a)[0])


def frobenius_condition(a):
    return np.linalg.cond(a, "fro")


@pytest.mark.parametrize("f, call, problem", [
    (q_factor, "np.linalg.qr", r"a is rank deficient \(R has a zero on its diagonal"),
    (u_factor, "scipy.linalg.lu_factor", r"a is rank deficient \(U has a zero on its "
                                         r"diagonal"),
    (frobenius_condition, "np.linalg.cond", r"the matrix is singular")],
    ids=["qr", "lu_factor", "cond"])
@pytest.mark.filterwarnings("ignore::scipy.linalg.LinAlgWarning")  # (SciPy's, at the zero)
@pytest.mark.parametrize("mode", ["jacfwd", "grad"])
def test_factors_and_condition_of_a_singular_matrix_are_refused(f, call, problem, mode):
    with pytest.raises(NonDifferentiableError, match=rf"{call} in {f.__name__} at "
                                                     rf".*test_singular_matrices.py:\d+: "
                                                     rf"{problem}"):
        getattr(fwdad, mode)(f)(SINGULAR[1])
