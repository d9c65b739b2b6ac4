"""`.item()` of a value computed from a constant argument under jacobian_sparsity: its
zero tangent there is a Python float, which the rule of item read as an array (an
AttributeError; fuzzer seed 100,152,108)."""
import numpy as np
import pytest

import fwdad


def scaled_by_a_constant_total(x0, x1):
    transposed = x1.T  # (the fuzzer's program: a view of x1 taken first)
    total = np.sum(x1).item()
    return np.sin(x0) * total + 0.0 * np.sum(transposed)


@pytest.mark.filterwarnings("ignore::fwdad.DenseFallbackWarning")
def test_item_of_a_constant_keeps_the_pattern_of_the_dense_jacobian():
    x1 = np.array([[0.1, 0.2], [0.3, 0.4]])
    pattern = fwdad.jacobian_sparsity(scaled_by_a_constant_total, 0.3, x1).toarray()
    dense = fwdad.jacfwd(scaled_by_a_constant_total)(0.3, x1)
    np.testing.assert_array_equal(pattern, np.reshape(dense != 0, pattern.shape))
