"""Primitives without a sparsity rule: a dense row and one warning per primitive."""
import warnings

import numpy as np
import pytest

import fwdad
from fwdad import DenseFallbackWarning
from tests.sparsity.reference import pattern_and_nonzeros

M = np.eye(3) * 4.0 + 1.0


def two_pseudo_inverses(x):  # (np.linalg.pinv has no sparsity rule)
    a = np.linalg.pinv(M + x[:3, None]) @ x[:3]
    b = np.linalg.pinv(M + (x[3:] ** 2)[:, None]) @ x[:3]
    return np.concatenate([a, b, x[:1]])


@pytest.mark.parametrize("mode", ["local", "global"])
def test_a_primitive_without_a_rule_warns_once_and_depends_on_every_input(mode):
    x = np.linspace(0.5, 1.5, 6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pattern = fwdad.jacobian_sparsity(two_pseudo_inverses, x, mode=mode).toarray()
    ours = [w for w in caught if issubclass(w.category, DenseFallbackWarning)]
    assert len(ours) == 1
    assert "numpy.linalg.pinv" in str(ours[0].message)
    line = two_pseudo_inverses.__code__.co_firstlineno + 1
    assert f"test_fallback.py:{line}" in str(ours[0].message)
    assert pattern[:6].all()  # dense rows for both
    np.testing.assert_array_equal(pattern[6], np.eye(6)[0] > 0)  # exact past them
    with pytest.warns(DenseFallbackWarning):
        _, nonzeros = pattern_and_nonzeros(two_pseudo_inverses, x, mode=mode)
    assert not (nonzeros & ~pattern).any()


def test_each_call_warns_again():
    x = np.ones(6)
    for _ in range(2):
        with pytest.warns(DenseFallbackWarning):
            fwdad.jacobian_sparsity(two_pseudo_inverses, x)


def written_by_a_primitive_without_a_rule(x):
    y = np.zeros(4)
    np.copyto(y, x[:4] * 2.0)   # has a rule (a move)
    np.put(y, [0], x[4])        # the fallback: all of y may be written
    np.add(y, 1.0, out=y)       # elementwise into `out`
    return y


def test_in_place_writes_of_the_fallback_depend_on_every_input():
    x = np.linspace(0.5, 1.5, 5)
    with pytest.warns(DenseFallbackWarning, match="numpy.put"):
        pattern, nonzeros = pattern_and_nonzeros(written_by_a_primitive_without_a_rule, x)
    assert not (nonzeros & ~pattern).any()
    assert pattern.all()  # (np.put may have written anywhere in y)


def test_no_warning_for_code_with_rules():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DenseFallbackWarning)
        fwdad.jacobian_sparsity(lambda x: np.sum(np.sin(x) * x[::-1]), np.ones(4))
