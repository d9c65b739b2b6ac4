"""A function that takes a derivative itself (fwdad.jvp inside it): sparsity detection
does not follow the inner derivative's calls, one level deeper, and says so at the
user's line (a MissingRuleError naming fwdad's SparsityCall before); with the pattern
given, sparse_jacfwd differentiates it, as jacfwd does."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError

X = np.array([0.3, -0.7, 1.1])


def squares(y):
    return np.sum(y * y)


def scaled_by_a_derivative(x):
    return fwdad.jvp(squares, (x,), (np.ones(3),))[1] * x


@pytest.mark.parametrize("mode", ["local", "global"])
def test_detection_refuses_at_the_users_line(mode):
    with pytest.raises(FwdadError, match=r"jacobian_sparsity in squares at .*"
                                         r"test_nested_derivative.py:\d+: the function takes "
                                         r"a derivative itself"):
        fwdad.jacobian_sparsity(scaled_by_a_derivative, X, mode=mode)


def test_a_given_pattern_is_differentiated():
    got = fwdad.sparse_jacfwd(scaled_by_a_derivative, sparsity=np.ones((3, 3), bool))(X)
    # d/dx (2 sum(x) x) = 2 sum(x) I + 2 x 1^T
    want = 2 * np.sum(X) * np.eye(3) + 2 * np.outer(X, np.ones(3))
    np.testing.assert_allclose(got.toarray(), want, rtol=1e-14)
