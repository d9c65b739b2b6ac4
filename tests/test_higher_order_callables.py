"""Second and third derivatives through callables that first-order rules call by
objects of their own: a functools.partial made inside the function (of a partial too)
or read from a global, a classmethod reached through its class that calls a
staticmethod, and a NamedTuple's `_replace` and `_make`. Each had no level-2 rule
(a partial was refused, the others raised a MissingRuleError naming fwdad's own
functions); each is checked against central differences of the order below, to third
order. A partial at third order raised an AttributeError, then was refused; at fourth
order it is refused, naming the line."""
import collections
import functools

import numpy as np
import pytest

import fwdad
from tests.util import central_difference


def _core(a, scale, shift=0.25):
    return np.cos(a) * scale + shift * a


GLOBAL = functools.partial(_core, shift=0.3)


def made_inside(x):
    w = functools.partial(_core, scale=x[0], shift=0.5)
    return np.sum(w(x) * x[1] + functools.partial(_core, x)(0.75) ** 2)


def of_a_partial_and_a_global(x):
    w = functools.partial(functools.partial(_core, x * x), shift=x[2])
    return np.sum(GLOBAL(x, 2.0) * w(scale=x[0]))


class Scaler:
    BASE = 0.5

    @staticmethod
    def bend(a):
        return np.sin(a) * 0.5 + a

    @classmethod
    def apply(cls, a, k):
        return cls.bend(a) * cls.BASE + k * a


def class_and_static_methods(x):
    return np.sum(Scaler.apply(x, x[1]) * x + Scaler().bend(x) * 0.25)


Pair = collections.namedtuple("Pair", "lo hi")


def replaced_and_made(x):
    pair = Pair(x * 0.5, np.cos(x))
    pair = pair._replace(hi=pair.hi * pair.lo + 0.25)
    lo, hi = Pair._make([pair.hi, pair.lo * x])
    return np.sum(lo * hi * 2.0)


FUNCTIONS = [made_inside, of_a_partial_and_a_global, class_and_static_methods,
             replaced_and_made]
X, T = np.array([0.3, -0.4, 0.8]), np.array([1.0, 0.5, -0.25])
SECOND = {
    "hessian": lambda f: fwdad.hessian(f)(X),
    "jacrev(jacfwd)": lambda f: fwdad.jacrev(fwdad.jacfwd(f))(X),
    "jacfwd(jacfwd)": lambda f: fwdad.jacfwd(fwdad.jacfwd(f))(X),
    "jacfwd(jacrev)": lambda f: fwdad.jacfwd(fwdad.jacrev(f))(X),
}


@pytest.mark.parametrize("mode", SECOND)
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_second_derivatives_match_differences_of_the_gradient(f, mode):
    want = np.array([central_difference(fwdad.grad(f), X, e, h=1e-5) for e in np.eye(3)])
    np.testing.assert_allclose(SECOND[mode](f), want, rtol=1e-6, atol=1e-8)


def _second_along(f):
    def along(x):
        return fwdad.jvp(lambda y: fwdad.jvp(f, (y,), (T,))[1], (x,), (T,))[1]
    return along


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_third_derivatives_match_differences_of_the_second(f):
    got = fwdad.jvp(_second_along(f), (X,), (T,))[1]
    want = central_difference(_second_along(f), X, T, h=1e-5)
    assert got == pytest.approx(want, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("f", [made_inside, of_a_partial_and_a_global],
                         ids=lambda f: f.__name__)
def test_fourth_derivatives_through_a_partial_are_refused_at_the_users_line(f):
    """Third derivatives through a partial have level-3 rules of their own
    (forward/nested/partials.py); a fourth level would need one more."""
    with pytest.raises(fwdad.FwdadError, match=rf"fourth derivatives through (making|calling) "
                       rf"a functools.partial in {f.__name__} at .*callables.py:\d+"):
        fwdad.jvp(lambda y: fwdad.jvp(_second_along(f), (y,), (T,))[1], (X,), (T,))
