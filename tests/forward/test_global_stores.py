"""A value assigned to a variable declared `global`, or `nonlocal` to a def outside the
differentiated code, is stored plain, and a later read makes a zero tangent: a
derivative assigned that way would be lost, so it is refused (core/duals.store_global).
So is one written into an attribute of a module, a class or a function, which carry no
tangent (rules/objects.py). Constants may be stored; nonlocals of an enclosing
differentiated def keep Duals."""
import sys

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.util import assert_close

SCALE = 1.0


def _scaled():
    return SCALE * 3.0


def rebinds_a_global(w):
    global SCALE
    SCALE = w[0] * 2.0
    return _scaled() * w[1]


def stores_a_constant(w):
    global SCALE
    SCALE = 2.0
    return _scaled() * w[0] ** 3 * w[1]


def _closure_rebinding():
    state = 1.0

    def f(w):
        nonlocal state
        state = w[0] * 2.0
        return read() * w[1]

    def read():
        return state * 3.0
    return f


def _nonlocal_from_a_nested_def():
    cell = 1.0

    def f(w):
        def inner():
            nonlocal cell
            cell = w[0]
        inner()
        return cell * w[1]
    return f


def nonlocal_inside_the_differentiated_code(w):
    acc = 0.0

    def add():
        nonlocal acc
        acc = acc + w[0] * w[1]
    add()
    add()
    return acc * w[0]


THIS_MODULE = sys.modules[__name__]


class Settings:
    shared = 1.0


def module_attribute(w):
    THIS_MODULE.SCALE = w[0] * 2.0
    return _scaled() * w[1]


def class_attribute(w):
    Settings.shared = w[0] * 2.0
    return Settings.shared * w[1]


def function_attribute(w):
    function_attribute.cache = w[0] * 2.0
    return function_attribute.cache * w[1]


@pytest.mark.parametrize("fn", [rebinds_a_global, _closure_rebinding(),
                                _nonlocal_from_a_nested_def(), module_attribute,
                                class_attribute, function_attribute],
                         ids=["global", "nonlocal", "nonlocal_in_nested_def", "module",
                              "class", "function"])
def test_a_derivative_stored_outside_the_differentiated_code_is_refused(fn):
    """These gave a partial derivative (the stored value's part lost), or a bare
    TypeError when a Dual was left in the user's closure cell."""
    w = np.array([0.3, -0.7])
    with pytest.raises(FwdadError, match="declared global or nonlocal|carries no deriv"
                       ) as info:
        fwdad.jvp(fn, (w,), (np.array([1.0, 0.5]),))
    assert "test_global_stores.py" in str(info.value)
    assert not isinstance(SCALE, fwdad.Dual)


def test_a_constant_stored_in_a_global_is_fine_to_second_order():
    """f = 6 x0^3 x1: the Hessian's closed form."""
    w = np.array([0.3, -0.7])
    hess = fwdad.hessian(stores_a_constant)(w)
    want = 6.0 * np.array([[6 * w[0] * w[1], 3 * w[0] ** 2], [3 * w[0] ** 2, 0.0]])
    assert_close(hess, want, rtol=1e-12)
    assert SCALE == 2.0 and type(SCALE) is float


def test_a_nonlocal_of_the_differentiated_code_keeps_its_derivative():
    """f = 2 x0^2 x1: its gradient's closed form, through jvp along each axis."""
    w = np.array([0.3, -0.7])
    for axis, want in ((0, 4 * w[0] * w[1]), (1, 2 * w[0] ** 2)):
        _, tangent = fwdad.jvp(nonlocal_inside_the_differentiated_code, (w,),
                               (np.eye(2)[axis],))
        assert_close(tangent, want, rtol=1e-12)
