"""The NaN-skipping median and quantiles (fwdad/rules/numpy_library.py) where NaNs are
(the case tables step finite values only): the derivative of each slice's median is
the indicator of its middle number, or the mean of the two middle ones; a slice of
NaNs is NaN with a zero derivative. Both modes, against that closed form."""
import warnings

import numpy as np
import pytest

import fwdad

HOLES = np.array([[0.3, np.nan, -2.5, 0.9], [np.nan, np.nan, np.nan, np.nan],
                  [1.3, -0.2, 0.7, 0.05]])


def _row_medians(a):
    return np.nanmedian(a, axis=1)


@pytest.mark.parametrize("jacobian", [fwdad.jacfwd, fwdad.jacrev])
def test_the_median_of_each_rows_numbers_moves_with_its_middle_ones(jacobian):
    want = np.zeros((3, 3, 4))
    want[0, 0, 0] = 1.0  # 0.3 is the middle of (-2.5, 0.3, 0.9)
    want[2, 2, [2, 3]] = 0.5  # the middle two of -0.2, 0.05, 0.7, 1.3: 0.05 and 0.7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's: an all-NaN slice)
        value, numpys = _row_medians(HOLES), np.nanmedian(HOLES, axis=1)
        got = jacobian(_row_medians)(HOLES)
    np.testing.assert_allclose(value, numpys, rtol=1e-15)
    assert np.isnan(value[1])
    np.testing.assert_array_equal(got, want)


def _quantiles_of_the_numbers(a):
    return np.nanquantile(a, [0.0, 1.0], axis=None)


def test_the_extreme_quantiles_are_the_smallest_and_largest_number():
    got = fwdad.jacrev(_quantiles_of_the_numbers)(HOLES)
    want = np.zeros((2,) + HOLES.shape)
    want[0, 0, 2] = want[1, 2, 0] = 1.0
    np.testing.assert_array_equal(got, want)


def _over_two_axes(a):
    return np.nanmedian(a, axis=(0, 1))


def test_several_axes_are_refused_saying_what_to_do():
    with pytest.raises(fwdad.FwdadError, match=r"^np\.nanmedian\(\.\.\., axis=\(0, 1\)\) "
                       r"in _over_two_axes at "
                       r".*: fwdad takes one axis or None\. Move those axes"):
        fwdad.jvp(_over_two_axes, (HOLES,), (HOLES,))


def _nearest_nanpercentile(a):
    return np.nanpercentile(a, 40.0, method="nearest")


def _lower_nanquantile(a):
    return np.nanquantile(a, 0.4, method="lower")


def _higher_percentile(a):
    return np.percentile(a, 40.0, method="higher")


def _midpoint_quantile(a):
    return np.quantile(a, 0.4, method="midpoint")


@pytest.mark.parametrize("f, called, method", [
    (_nearest_nanpercentile, "nanpercentile", "nearest"),
    (_lower_nanquantile, "nanquantile", "lower"),
    (_higher_percentile, "percentile", "higher"),
    (_midpoint_quantile, "quantile", "midpoint")], ids=lambda v: getattr(v, "__name__", v))
@pytest.mark.parametrize("mode", ["jvp", "vjp"])
def test_a_method_other_than_linear_is_refused_naming_the_function_called(f, called,
                                                                         method, mode):
    """Each refusal names what the user called (nanpercentile's named np.quantile)."""
    x = HOLES[0] if called.startswith("nan") else HOLES[2]
    message = (rf"^np\.{called}\(\.\.\., method='{method}'\) in \w+ at .*test_numpy_library\.py:"
               rf"\d+: fwdad differentiates quantiles with method='linear'")
    with pytest.raises(fwdad.FwdadError, match=message):
        if mode == "jvp":
            fwdad.jvp(f, (x,), (x,))
        else:
            fwdad.vjp(f, x)
