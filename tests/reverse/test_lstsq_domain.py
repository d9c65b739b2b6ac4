"""Reverse-mode np.linalg.lstsq where forward mode refuses: a rank-deficient matrix
(refused with forward mode's message, not NumPy's LinAlgError from a^T a), and equal
singular values, whose fourth result has no derivative there unless the cotangent
weighs them alike (refused only then: the solution, the residuals and the sum of the
singular values have one)."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError, NonDifferentiableError
from tests.util import central_gradient

TIED = np.array([[2.0, 0.0], [0.0, 2.0], [0.0, 0.0]])  # singular values 2, 2
B = np.array([1.0, 2.0, 3.0])


def largest_singular_value(a):
    return np.linalg.lstsq(a, B)[3][0]


def singular_values_summed(a):
    return np.sum(np.linalg.lstsq(a, B)[3])


def solution_summed(a):
    x, res, rank, s = np.linalg.lstsq(a, B)
    return np.sum(x * x) + 0.5 * np.sum(res)


def test_one_of_two_equal_singular_values_is_refused():
    with pytest.raises(NonDifferentiableError, match=r"np.linalg.lstsq in "
                       r"largest_singular_value at .*test_lstsq_domain.py:\d+: two singular "
                       r"values of a \(its fourth result\) are equal"):
        fwdad.grad(largest_singular_value)(TIED)


@pytest.mark.parametrize("f", [singular_values_summed, solution_summed],
                         ids=lambda f: f.__name__)
def test_what_has_a_derivative_at_the_tie_is_differentiated(f):
    np.testing.assert_allclose(fwdad.grad(f)(TIED), central_gradient(f, TIED), rtol=1e-6,
                               atol=1e-9)


def test_a_matrix_of_lower_rank_is_refused_at_the_users_line():
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    with pytest.raises(FwdadError, match=r"full column rank only .* in solution_summed at "
                                         r".*test_lstsq_domain.py:\d+: this a \(3 x 2\) "
                                         r"has rank 1"):
        fwdad.grad(solution_summed)(a)
