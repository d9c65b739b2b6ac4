"""jvp's fast path of Python functions of Python floats (forward/float_calls.py): the
rule resolved once per zero pattern gives what central differences give, every
pattern its own rule, and a rule registered since is used at once."""
import math

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from fwdad.forward import float_calls
from tests.util import assert_close, fd_jvp


def tiny(x, y):
    return math.sin(x) * y + x


def with_int_default(x, y, n=2):
    return x ** n * y


def varargs(x, *rest):
    return x * sum(rest) + math.exp(x)


def branching(x, y):
    if x * y > 0.0:
        return x * y * y
    return math.cos(x) - y


def helper_of(x):
    return _offset(x) * x


def _offset(x):
    return x + 1.0


CALLS = [(tiny, (0.5, 2.0), (1.0, 0.0)), (tiny, (0.5, 2.0), (0.0, 1.0)),
         (tiny, (0.5, 2.0), (0.3, -0.7)), (tiny, (0.5, 2.0), (0.0, 0.0)),
         (tiny, [0.5, 2.0], [-0.0, 1.0]), (with_int_default, (1.5, -0.5), (1.0, 0.0)),
         (varargs, (0.4, 1.0, 2.0), (1.0, 0.0, 1.0)), (varargs, (0.4, 1.0), (0.0, 1.0)),
         (branching, (0.5, 2.0), (1.0, 0.0)), (branching, (-0.5, 2.0), (1.0, 0.5)),
         (helper_of, (0.25,), (1.0,))]


@pytest.mark.parametrize("f, primals, tangents", CALLS,
                         ids=lambda v: getattr(v, "__name__", None) or repr(v))
def test_fast_path_matches_differences(f, primals, tangents):
    assert float_calls.pattern(f, primals, tangents) is not None  # (the path under test)
    for _ in range(2):  # (the second call takes the resolved rule)
        out, tangent = fwdad.jvp(f, primals, tangents)
        assert out == f(*primals)
        assert_close(tangent, fd_jvp(f, primals, tangents))


@pytest.mark.parametrize("primals, tangents", [((0.5, 2), (1.0, 0.0)),
                                               ((np.float64(0.5), 2.0), (1.0, 0.0)),
                                               ((0.5, 2.0), (1.0, None)),
                                               ((0.5, 2.0), (np.float64(1.0), 0.0))])
def test_other_arguments_take_the_general_path(primals, tangents):
    assert float_calls.pattern(tiny, primals, tangents) is None
    _, tangent = fwdad.jvp(tiny, primals, tangents)
    dx = float(tangents[0])
    assert math.isclose(tangent, (math.cos(0.5) * 2.0 + 1.0) * dx)


def test_a_rule_registered_later_replaces_the_resolved_one():
    def clipped(x):
        return x * 3.0

    def caller(x):
        return clipped(x) + x

    assert fwdad.jvp(caller, (1.0,), (1.0,)) == (4.0, 4.0)

    @fwdad.frule(clipped)
    def _clipped(x: fwdad.Dual) -> fwdad.Dual:
        return fwdad.Dual(x.primal * 3.0, x.tangent * 5.0)  # (a rule that differs)
    assert fwdad.jvp(caller, (1.0,), (1.0,)) == (4.0, 6.0)
    assert fwdad.jvp(clipped, (1.0,), (1.0,)) == (3.0, 5.0)  # (its own rule now)


def test_a_wrong_number_of_arguments_is_explained():
    with pytest.raises(FwdadError, match="tiny"):
        fwdad.jvp(tiny, (0.5,), (1.0,))
    with pytest.raises(FwdadError, match="tangents"):
        fwdad.jvp(tiny, (0.5, 2.0), (1.0,))
