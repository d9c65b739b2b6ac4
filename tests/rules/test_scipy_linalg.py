"""The scipy.linalg rules beyond their table rows (tests/rules/scipy_linalg_cases.py):
the options refused in both modes, complex input refused, and a factorization computed
once and used for two right-hand sides."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.rules.scipy_linalg_cases import SPD, SQUARE, VEC

sl = pytest.importorskip("scipy.linalg")


@pytest.mark.parametrize("assume_a", ["banded", "diagonal", "upper triangular"])
def test_solve_with_a_partial_solver_is_refused_in_both_modes(assume_a):
    def f(a):
        return np.sum(sl.solve(a, VEC, assume_a=assume_a))
    for differentiate in (lambda: fwdad.jvp(f, (SQUARE,), (SQUARE,)),
                          lambda: fwdad.grad(f)(SQUARE)):
        with pytest.raises(FwdadError, match="assume_a None, 'gen', 'sym' or 'pos'") as info:
            differentiate()
        assert "test_scipy_linalg.py:" in str(info.value)  # the user's line


def test_a_complex_matrix_is_refused():
    a = SQUARE + 0.5j * np.eye(3)
    with pytest.raises(FwdadError, match="real input only"):
        fwdad.jvp(sl.inv, (a,), (a,))


def test_one_factorization_for_two_right_hand_sides():
    def f(a):
        lu_and_piv = sl.lu_factor(a)
        c_and_lower = sl.cho_factor(a @ a.T + np.eye(3))
        return sl.lu_solve(lu_and_piv, VEC) + sl.lu_solve(lu_and_piv, 2.0 * VEC, 1) + \
            sl.cho_solve(c_and_lower, VEC)

    def plain(a):
        return np.linalg.solve(a, VEC) + np.linalg.solve(a.T, 2.0 * VEC) + \
            np.linalg.solve(a @ a.T + np.eye(3), VEC)
    _, got = fwdad.jvp(f, (SQUARE,), (SPD,))
    _, want = fwdad.jvp(plain, (SQUARE,), (SPD,))
    np.testing.assert_allclose(got, want, rtol=1e-10)
    np.testing.assert_allclose(fwdad.jacfwd(f)(SQUARE), fwdad.jacfwd(plain)(SQUARE),
                               rtol=1e-10)
