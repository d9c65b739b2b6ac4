"""In-place updates: gradients through setitem/iadd/... (dot-product test against
forward mode), arguments left as a plain call leaves them, pullbacks that run twice."""
import copy

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.reverse.dot_product import check_dot_product
from tests.reverse.inplace_cases import INPLACE
from tests.util import assert_close


def _name(row):
    return row[0].__name__


@pytest.mark.parametrize("row", INPLACE, ids=_name)
def test_dot_product(row):
    fn, args = row
    check_dot_product(fn, args)


@pytest.mark.parametrize("row", INPLACE, ids=_name)
def test_arguments_end_as_after_a_plain_call(row):
    fn, args = row
    plain, mine = copy.deepcopy(list(args)), copy.deepcopy(list(args))
    fn(*plain)
    fwdad.vjp(fn, *mine)
    assert_close(mine, plain, rtol=0, atol=0)


@pytest.mark.parametrize("row", INPLACE, ids=_name)
def test_pullback_runs_twice(row):
    fn, args = row
    out, pullback = fwdad.vjp(fn, *copy.deepcopy(list(args)))
    ct = np.ones_like(out) if isinstance(out, np.ndarray) else 1.0
    first = pullback(ct)
    assert_close(pullback(ct), first, rtol=1e-14)


CONSTANT = np.arange(3.0)


def _write_variable_into_constant(x):
    y = CONSTANT * 1.0  # a plain array: computed from constants only
    y[0] = x
    return y


def test_writing_a_variable_into_a_constant_array_is_an_error():
    with pytest.raises(FwdadError, match="written into a constant array") as caught:
        fwdad.vjp(_write_variable_into_constant, 0.5)
    line = _write_variable_into_constant.__code__.co_firstlineno + 2
    assert str(caught.value).startswith(  # in the message, as forward mode's, not a note only
        f"x[i] = v in _write_variable_into_constant at {__file__}:{line}: ")


def _out_with_where(x):
    y = np.zeros(3)
    np.sin(x, out=y, where=x > 0)
    return y


def test_ufunc_out_with_where_is_a_clear_error():
    with pytest.raises(FwdadError, match="out= together with where="):
        fwdad.vjp(_out_with_where, np.array([0.5, -1.0, 2.0]))
