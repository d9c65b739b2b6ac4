"""The scipy.linalg rules beyond their table rows (tests/rules/scipy_linalg_cases.py):
the options refused in both modes, complex input refused, a factorization computed
once and used for two right-hand sides, eigh and svd where their values are repeated
or zero, and sqrtm and logm against the complex step and where refused."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.rules.scipy_linalg_cases import SPD, SPD_STACK, SQUARE, VEC

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


# ---- eigh and svd: what has no derivative ---------------------------------------------------
def _both_modes(f, x):
    """Differentiate f at x forward (jvp) and reverse (grad of a sum)."""
    return [lambda: fwdad.jvp(f, (x,), (SPD,)), lambda: fwdad.grad(lambda a: np.sum(f(a)))(x)]


def eigh_general(a):
    return sl.eigh(a, SPD)[0]


def eigvalsh_up_to(a, hi):
    return sl.eigvalsh(a, subset_by_value=(-np.inf, hi))


def eigh_from_9_to_25(a):
    return sl.eigh(a, subset_by_value=(9.0, 25.0))[0]


def test_the_generalized_problem_is_refused():
    for differentiate in _both_modes(eigh_general, SPD):
        with pytest.raises(FwdadError, match="standard problem") as info:
            differentiate()
        assert "test_scipy_linalg.py:" in str(info.value)  # the user's line


def test_a_subset_whose_bound_is_an_eigenvalue_is_refused():
    hi = sl.eigvalsh(SPD)[1]  # on the bound: kept, but lost for any smaller eigenvalue
    for differentiate in (lambda: fwdad.jvp(eigvalsh_up_to, (SPD, hi), (SPD, 0.0)),
                          lambda: fwdad.grad(lambda a: np.sum(eigvalsh_up_to(a, hi)))(SPD)):
        with pytest.raises(FwdadError, match="on a bound of subset_by_value"):
            differentiate()


def test_a_stack_keeping_different_positions_is_refused():
    """[2.1, 8.3, 21.8] keeps its third eigenvalue, [9.7, 99.4, 396.1] its first."""
    with pytest.raises(FwdadError, match="different positions"):
        fwdad.jvp(eigh_from_9_to_25, (SPD_STACK,), (SPD_STACK,))


def eigenvectors(a):
    return sl.eigh(a)[1]


def eigenvalues(a):
    return sl.eigvalsh(a)


def singular_vectors(a):
    return sl.svd(a)[0]


def singular_values(a):
    return sl.svdvals(a)


REPEATED = np.diag([2.0, 2.0, 1.0])  # (and 2 + 1e-15 beside 2: equal to rounding)
SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])  # rank 2


@pytest.mark.parametrize("f, x, match", [
    (eigenvectors, REPEATED, "two of the eigenvalues are equal"),
    (eigenvalues, REPEATED + np.diag([1e-15, 0.0, 0.0]), "two of the eigenvalues are equal"),
    (singular_vectors, REPEATED, "two of the singular values are equal"),
    (singular_values, REPEATED, "two of the singular values are equal"),
    (singular_values, SINGULAR, "a singular value is zero"),
    (singular_vectors, SINGULAR, "a singular value is zero")])
def test_repeated_and_zero_values_are_refused(f, x, match):
    for differentiate in _both_modes(f, x):
        with pytest.raises(FwdadError, match=match) as info:
            differentiate()
        assert "test_scipy_linalg.py:" in str(info.value)


def test_eigenvalues_just_apart_are_differentiated():
    """A gap far above rounding: the derivative exists (and is large near a crossing)."""
    x = np.diag([2.0 + 1e-6, 2.0, 1.0])
    _, dw = fwdad.jvp(eigenvalues, (x,), (np.diag([1.0, -1.0, 0.5]),))
    np.testing.assert_allclose(dw, [0.5, -1.0, 1.0])  # ascending: 1, 2, 2 + 1e-6


def full_vectors(a):
    return sl.svd(a)[0]


def test_full_singular_vectors_of_a_non_square_matrix_are_refused():
    a = SQUARE[:, :2].copy()
    for differentiate in (lambda: fwdad.jvp(full_vectors, (a,), (a,)),
                          lambda: fwdad.grad(lambda a: np.sum(full_vectors(a)))(a)):
        with pytest.raises(FwdadError, match="full_matrices=False only"):
            differentiate()


@pytest.mark.parametrize("f", [eigenvectors, singular_vectors])
def test_complex_eigh_and_svd_are_refused(f):
    a = SPD + 0.5j * (SQUARE - SQUARE.T)
    with pytest.raises(FwdadError, match="real input only"):
        fwdad.jvp(f, (a,), (a,))


# ---- sqrtm and logm: against the complex step, and what is refused -----------------------------
def _complex_step(f, a, da, h=1e-20):
    """f(a + i h da).imag / h: the exact derivative of a real-analytic matrix function to
    rounding (no cancellation: an independent reference for the rules)."""
    return f(a + 1j * h * da).imag / h


WIDE_SPD = SPD @ np.diag([1.0, 1e-2, 1e2]) @ SPD  # eigenvalues spread over ~6 decades


@pytest.mark.parametrize("f", [sl.sqrtm, sl.logm], ids=["sqrtm", "logm"])
@pytest.mark.parametrize("a", [SQUARE, SPD, WIDE_SPD], ids=["square", "spd", "wide_spd"])
def test_tangent_matches_the_complex_step(f, a):
    da = np.random.default_rng(3).standard_normal(a.shape)
    _, tangent = fwdad.jvp(f, (a,), (da,))
    want = _complex_step(f, a, da)
    assert np.max(np.abs(tangent - want)) <= 1e-11 * np.max(np.abs(want))


def test_logm_tangent_inverts_the_tangent_of_expm():
    """expm(logm(a)) = a: expm's Fréchet derivative at logm(a) maps dlogm back to da."""
    da = np.random.default_rng(4).standard_normal((3, 3))
    out, dlog = fwdad.jvp(sl.logm, (SQUARE,), (da,))
    np.testing.assert_allclose(sl.expm_frechet(out, dlog, compute_expm=False), da,
                               rtol=1e-10, atol=1e-12)


def sqrtm_of(a):
    return sl.sqrtm(a)


def logm_of(a):
    return sl.logm(a)


NEGATIVE_EIGENVALUE = np.diag([-1.0, 2.0, 3.0])             # complex results
SINGULAR_TRIANGLE = np.diag([0.0, 2.0, 3.0]) + np.triu(np.ones((3, 3)), 1)  # real ones


@pytest.mark.filterwarnings("ignore:.*singular")  # (SciPy's own, for the value)
@pytest.mark.parametrize("f", [sqrtm_of, logm_of])
@pytest.mark.parametrize("a, match", [(NEGATIVE_EIGENVALUE, "is complex"),
                                      (SINGULAR_TRIANGLE, "singular")])
def test_a_complex_result_and_a_singular_matrix_are_refused(f, a, match):
    for differentiate in _both_modes(f, a):
        with pytest.raises(FwdadError, match=match) as info:
            differentiate()
        assert "test_scipy_linalg.py:" in str(info.value)


def sqrtm_with_its_error(a):
    return sl.sqrtm(a, disp=False)[0]


@pytest.mark.filterwarnings("ignore:The `disp` argument is deprecated")
def test_the_deprecated_disp_false_is_refused():
    with pytest.raises(FwdadError, match="disp=False"):
        fwdad.jvp(sqrtm_with_its_error, (SPD,), (SPD,))
