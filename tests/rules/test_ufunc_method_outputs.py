"""A ufunc method given out= is refused in both modes: its rules ignored out, so the
program's `out` kept its old value and derivative (np.add.reduce(x, 0, None, r) gave
zeros for r and for its derivative, with no error)."""
import numpy as np
import pytest

import fwdad


def _reduce_into(x):
    r = np.zeros(3)
    np.add.reduce(x, 0, None, r)
    return r * 2.0


def _reduce_into_keyword(x):
    r = np.zeros(2)
    np.maximum.reduce(x, axis=1, out=r)
    return r * 2.0


def _reduceat_into(x):
    r = np.zeros((2, 2))
    np.add.reduceat(x, [0, 2], axis=1, out=r)
    return r


@pytest.mark.parametrize("f, called", [(_reduce_into, "add.reduce"),
                                       (_reduce_into_keyword, "maximum.reduce"),
                                       (_reduceat_into, "add.reduceat")],
                         ids=lambda v: getattr(v, "__name__", v))
@pytest.mark.parametrize("mode", ["jvp", "vjp"])
def test_out_is_refused_naming_the_method_and_the_line(f, called, mode):
    x = np.arange(6.0).reshape(2, 3)
    message = (rf"numpy\.{called} with out= in {f.__name__} at "
               rf".*test_ufunc_method_outputs\.py:\d+: assign its result instead")
    with pytest.raises(fwdad.MissingRuleError, match=message):
        if mode == "jvp":
            fwdad.jvp(f, (x,), (np.ones_like(x),))
        else:
            fwdad.vjp(f, x)
