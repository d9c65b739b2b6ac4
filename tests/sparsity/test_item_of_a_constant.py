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


def test_item_of_a_constant_in_global_mode_keeps_the_pattern_of_the_dense_jacobian():
    """Globally every array a primitive returns counts as unknown: .item() of one that
    depends on no input raised a MissingRuleError naming fwdad's Unknown.item."""
    x1 = np.array([[0.1, 0.2], [0.3, 0.4]])
    pattern = fwdad.jacobian_sparsity(scaled_by_a_constant_total, 0.3, x1,
                                      mode="global").toarray()
    dense = fwdad.jacfwd(scaled_by_a_constant_total)(0.3, x1)
    np.testing.assert_array_equal(pattern, np.reshape(dense != 0, pattern.shape))


def scaled_by_its_own_total(x):
    return x * np.sum(x).item()


def scaled_by_its_own_totals(x):
    return x * np.array(np.sum(x * 2.0, keepdims=True).tolist())


@pytest.mark.parametrize("f, method", [(scaled_by_its_own_total, "item"),
                                       (scaled_by_its_own_totals, "tolist")])
def test_a_value_of_the_inputs_taken_out_of_its_array_is_refused_globally(f, method):
    with pytest.raises(fwdad.ValueDependentPatternError,
                       match=rf"\(\.{method}\(\)\) in {f.__name__} at .*test_item_of_a_"
                             rf"constant.py:\d+"):
        fwdad.jacobian_sparsity(f, np.ones(3), mode="global")
