"""Third derivatives through state a function keeps outside its arguments: a mutable
default, a global or closure array, list, dict or instance written into by name, a
global assigned in place (`H += w`), `f.__defaults__`, and functools.partial made inside
or read from a global. Within one derivative every read of such an object shares one
Dual carrying every level of derivative (forward/defaults.py), and a partial's level-3
value holds its bound arguments' tangents at every level (forward/nested/partials.py).
Each program is checked by jvp of jvp of jvp, jacfwd of jvp of jvp, hessian of a jvp
and jacfwd of jacfwd of a jvp against central differences of the second derivative
(jvp of jvp); each was refused before ("... to second order only", "third derivatives
through ... a functools.partial"). (hessian of a grad, jacfwd of jacfwd of jacfwd and a
jvp of hvp nest a transformation other than jvp three deep, which fwdad/nesting.py
refuses for any function.)"""
import functools

import numpy as np
import pytest

import fwdad
from fwdad.dual import Dual
from tests.util import central_difference

X, T = np.array([0.3, -0.4, 0.8]), np.array([1.0, 0.5, -0.25])


# ---- the programs: each starts from the same state --------------------------------------
def _square_into(a, buf=[]):  # noqa: B006 (the mutable default is the point)
    buf.clear()
    buf.append(a * a)
    return buf[0] * np.sin(a)


def default_list(x):
    return np.sum(_square_into(x) * x[0])


def _scaled_into(a, out=np.zeros(3)):  # noqa: B006
    out[...] = np.sin(a)
    out *= a
    return np.sum(out * a)


def default_array(x):
    return _scaled_into(x) + x[1] ** 3


def _put(w, k=2.0, store=[]):  # noqa: B006
    store.append(np.sin(w) * k)


def _last(store=_put.__defaults__[1]):  # noqa: B006
    return store[-1]


def default_across_calls_and_defaults(x):
    """Written by two calls of _put, read by another function's default and through
    `_put.__defaults__` (a tuple holding a number too)."""
    _put.__defaults__[1].clear()
    _put(x)
    _put(x * x)
    return np.sum(_last() * x) + np.sum(_put.__defaults__[1][0] ** 2)


G = np.zeros(3)


def _write_g(x):
    G[...] = x * x


def global_array(x):
    _write_g(x)
    G[1] += np.sin(x[0])
    return np.sum(G * np.cos(x))


H = np.ones(3)


def global_assigned_in_place(x):
    global H
    H[...] = 1.0
    H += x * x
    H *= np.cos(x)
    alias = H
    H[2] = x[0] ** 3
    return np.sum(alias * x)


STORE = {}


def global_dict(x):
    STORE["a"] = x * x[1]
    STORE["b"] = np.exp(STORE["a"])
    return np.sum(STORE["b"] * x)


ITEMS = []


def global_list(x):
    ITEMS.clear()
    ITEMS.extend([x ** 3, x])
    ITEMS[1] = np.sin(ITEMS[0]) * ITEMS[1]
    return np.sum(ITEMS[1] * ITEMS[0]) + np.sum(ITEMS.pop())


class Box:
    def __init__(self):
        self.a = np.zeros(3)
        self.b = 0.0


BOX = Box()


def global_instance(x):
    BOX.a[...] = x
    BOX.a[1] = BOX.a[1] * x[2]
    BOX.b = np.tanh(BOX.a) * x[0]
    return np.sum(BOX.b * x)


def _make_stash():
    store, scratch = {}, np.zeros(3)

    def stash(a):
        store["a"] = a * a
        scratch[...] = np.cos(a)
        return np.sum(store["a"] * scratch)
    return stash


stash = _make_stash()


def closure_dict_and_array(x):
    return stash(x) * x[2]


def _core(a, scale, shift=0.25):
    return np.cos(a) * scale + shift * a


SHIFTED = functools.partial(_core, shift=0.3)


def partial_made_inside(x):
    w = functools.partial(_core, scale=x[0], shift=0.5)
    return np.sum(w(x) * x[1] + functools.partial(_core, x)(0.75) ** 2)


def partial_of_a_partial_and_a_global(x):
    w = functools.partial(functools.partial(_core, x * x), shift=x[2])
    return np.sum(SHIFTED(x, 2.0) * w(scale=x[0]))


PROGRAMS = [default_list, default_array, default_across_calls_and_defaults, global_array,
            global_assigned_in_place, global_dict, global_list, global_instance,
            closure_dict_and_array, partial_made_inside, partial_of_a_partial_and_a_global]
STATE = {default_list: lambda: _square_into.__defaults__[0],
         default_array: lambda: _scaled_into.__defaults__[0],
         default_across_calls_and_defaults: lambda: _put.__defaults__[1],
         global_array: lambda: G, global_assigned_in_place: lambda: H,
         global_dict: lambda: STORE, global_list: lambda: ITEMS,
         global_instance: lambda: vars(BOX),
         closure_dict_and_array: lambda: [c.cell_contents for c in stash.__closure__]}


# ---- derivatives -------------------------------------------------------------------------
def along(f):
    """x -> the derivative of f at x along T, by a jvp inside."""
    return lambda x: fwdad.jvp(f, (x,), (T,))[1]


THIRD = {
    "jvp(jvp(jvp))": lambda f: along(along(along(f)))(X),
    "jacfwd(jvp(jvp))": lambda f: fwdad.jacfwd(along(along(f)))(X) @ T,
    "hessian(jvp)": lambda f: T @ fwdad.hessian(along(f))(X) @ T,
    "jacfwd(jacfwd(jvp))": lambda f: T @ fwdad.jacfwd(fwdad.jacfwd(along(f)))(X) @ T,
}


# hessian(jvp) and jacfwd(jacfwd(jvp)) take seconds a program: the default run checks
# them on one program of each kind, the long run on all
_HEAVY = ("hessian(jvp)", "jacfwd(jacfwd(jvp))")
_HEAVY_BY_DEFAULT = (default_array, global_dict, partial_of_a_partial_and_a_global)
CASES = [pytest.param(f, api, id=f"{f.__name__}-{api}", marks=(
    pytest.mark.long if api in _HEAVY and f not in _HEAVY_BY_DEFAULT else ()))
    for f in PROGRAMS for api in THIRD]


@pytest.mark.parametrize("f, api", CASES)
def test_third_derivatives_match_differences_of_the_second(f, api):
    want = central_difference(along(along(f)), X, T, h=1e-5)
    np.testing.assert_allclose(THIRD[api](f), want, rtol=1e-6, atol=1e-8)
    if api == "jvp(jvp(jvp))":  # again, from what the first call left in the state
        np.testing.assert_allclose(THIRD[api](f), want, rtol=1e-6, atol=1e-8)


def _plain(value):
    """The state as plain data, failing on a Dual anywhere in it."""
    assert not isinstance(value, Dual)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return np.array(value, dtype=float)


@pytest.mark.parametrize("f", list(STATE), ids=lambda f: f.__name__)
def test_the_state_holds_plain_values_after_a_third_derivative(f):
    """What the function left in the object is what a plain call leaves."""
    THIRD["jacfwd(jvp(jvp))"](f)
    after = _plain(STATE[f]())
    f(X)
    np.testing.assert_equal(after, _plain(STATE[f]()))


@pytest.mark.parametrize("f", [default_list, global_assigned_in_place, global_dict,
                               closure_dict_and_array], ids=lambda f: f.__name__)
def test_fourth_derivatives_match_differences_of_the_third(f):
    third = along(along(along(f)))
    want = central_difference(third, X, T, h=1e-4)
    assert along(third)(X) == pytest.approx(want, rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("f", [partial_made_inside, partial_of_a_partial_and_a_global],
                         ids=lambda f: f.__name__)
def test_fourth_derivatives_through_a_partial_are_refused_at_the_users_line(f):
    with pytest.raises(fwdad.FwdadError, match=rf"fourth derivatives through (making|calling)"
                       rf" a functools.partial in {f.__name__} at .*state.py:\d+"):
        along(along(along(along(f))))(X)


K = 0.0


def stores_a_derivative(x):
    global K
    K = x * 2.0
    return np.sum(K * x)


def test_a_derivative_assigned_to_a_global_is_refused_at_the_users_line():
    """As at first and second order: the next read of K would see a zero derivative."""
    with pytest.raises(fwdad.FwdadError, match=r"assigned to a variable declared global .*"
                       r"in stores_a_derivative at .*state.py:\d+"):
        along(along(along(stores_a_derivative)))(X)
