"""itertools in loops, endless iterators among them, in forward mode (test_rule: central
differences, batches) and reverse mode (the dot-product test against jvp)."""
import itertools

import numpy as np
import pytest

import fwdad
from fwdad import testing
from fwdad.errors import FwdadError
from tests.reverse.dot_product import check_dot_product
from tests.rules.infinite_iterators import ROWS


@pytest.mark.parametrize("fn, args", ROWS, ids=[fn.__name__ for fn, _ in ROWS])
def test_forward(fn, args):
    testing.test_rule(fn, *args)


@pytest.mark.parametrize("fn, args", ROWS, ids=[fn.__name__ for fn, _ in ROWS])
def test_reverse(fn, args):
    check_dot_product(fn, args)


@pytest.mark.parametrize("fn, args", ROWS, ids=[fn.__name__ for fn, _ in ROWS])
def test_jacobians_agree(fn, args):
    """jacfwd (batched tangents through the endless streams) equals jacrev."""
    forward, reverse = fwdad.jacfwd(fn, argnums=0)(*args), fwdad.jacrev(fn, argnums=0)(*args)
    np.testing.assert_allclose(forward, reverse, rtol=1e-12, atol=1e-14)


def _count_of(x):
    return next(itertools.count(x, 0.5)) * x


def test_count_item_by_closed_form():
    """count(x, h)'s k-th item is x + k h: d/dx = 1, d/dh = k."""
    def f(x, h):
        return list(itertools.islice(itertools.count(x, h), 4))[3]
    _, tangent = fwdad.jvp(f, (0.3, 0.2), (0.0, 1.0))
    assert tangent == 3.0
    assert fwdad.grad(_count_of)(1.5) == 2 * 1.5


def _takewhile_no_predicate(x):
    return sum(itertools.takewhile(None, [x, x]))


def test_takewhile_without_a_predicate_fails_as_python_does():
    with pytest.raises(TypeError):
        _takewhile_no_predicate(1.0)
    with pytest.raises((TypeError, FwdadError)):
        fwdad.jvp(_takewhile_no_predicate, (1.0,), (1.0,))
