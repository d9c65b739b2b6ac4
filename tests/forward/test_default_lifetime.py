"""The registry of mutable defaults (core/duals.MUTABLE_DEFAULTS) lets a default go
with the last function that has it: it kept every default alive for good."""
import gc
import weakref

import numpy as np
import pytest

import fwdad
from fwdad.core.duals import MUTABLE_DEFAULTS
from fwdad.core.rebinding import forget_rules
from tests.util import assert_close


def _array_default():
    def helper(x, store=np.zeros(3)):  # noqa: B008 (the default array is the point)
        store[...] = x
        return store * 2.0
    return helper


def _list_default():
    def helper(x, store=[]):  # noqa: B006 (the default list is the point)
        store.append(x)
        return store[-1] * 2.0
    return helper


@pytest.mark.parametrize("make", [_array_default, _list_default], ids=lambda m: m.__name__)
def test_a_default_is_let_go_with_its_function(make):
    helper = make()
    x, t = np.array([0.3, -0.5, 0.7]), np.array([1.0, 2.0, -1.0])
    assert_close(fwdad.jvp(helper, (x,), (t,))[1], 2.0 * t)
    key, alive = id(helper.__defaults__[0]), weakref.ref(helper)
    assert key in MUTABLE_DEFAULTS
    del helper
    forget_rules()  # (a derived rule holds its function)
    gc.collect()
    assert alive() is None
    assert key not in MUTABLE_DEFAULTS


def test_a_default_two_functions_share_stays_while_one_lives():
    first = _array_default()
    second = _array_default()
    second.__defaults__ = first.__defaults__
    x, t = np.array([0.3, -0.5, 0.7]), np.array([1.0, 2.0, -1.0])
    fwdad.jvp(first, (x,), (t,))
    fwdad.jvp(second, (x,), (t,))
    key = id(first.__defaults__[0])
    del first
    forget_rules()
    gc.collect()
    assert key in MUTABLE_DEFAULTS
    assert_close(fwdad.jvp(second, (x,), (t,))[1], 2.0 * t)
    del second
    forget_rules()
    gc.collect()
    assert key not in MUTABLE_DEFAULTS
