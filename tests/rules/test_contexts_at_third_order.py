"""Managers that hold no values, at third and fourth order: the level-2 rule of a `with`
statement runs their methods on plain values, and differentiating that rule again must
too (np.errstate's `__enter__` had no rule at third order: 4 fuzz programs refused)."""
import numpy as np
import pytest

from tests.rules.contexts_at_order import FUNCTIONS, closed_form, derivative


@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_derivatives_match_the_closed_form(f, order):
    x = 0.7
    assert np.isclose(derivative(f, order)(x), closed_form(x, order), rtol=1e-12, atol=1e-12)


def test_the_closed_form_matches_differences():
    """The reference itself, against central differences of the order below."""
    x, h = 0.7, 1e-5
    for order in (1, 2, 3, 4):
        difference = (closed_form(x + h, order - 1) - closed_form(x - h, order - 1)) / (2 * h)
        assert np.isclose(closed_form(x, order), difference, rtol=1e-8)
