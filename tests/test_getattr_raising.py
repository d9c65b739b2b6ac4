"""A user class whose `__getattr__` raises KeyError (not AttributeError) for a name it
does not have: fwdad's own look-ups on the object (`__func__`, `__self__`, `__name__`,
copy's `__setstate__`) read that as "no such attribute" (fwdad/probe.py), in every
mode, and the derivatives match central differences."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.util import central_difference


class DictBacked:
    """Fields served from a dict: a missing name raises the dict's KeyError."""

    def __init__(self):
        self._fields = {"w": 2.0}

    def __getattr__(self, name):
        return self.__dict__["_fields"][name]

    def __call__(self, x):
        return x * self.w

    def scale(self, x):
        return np.sin(x) * self.w


CONFIG = DictBacked()


class Params:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def __getattr__(self, name):
        raise KeyError(name)

    def __call__(self, x):
        return np.tanh(self.w * x) + self.b


class Slotted:
    """No __dict__: fwdad's look-up of `__dict__` reaches __getattr__, which raises."""
    __slots__ = ("w",)

    def __init__(self, w):
        self.w = w

    def __getattr__(self, name):
        raise KeyError(name)

    def __call__(self, x):
        return np.sin(x) * self.w


SLOTTED = Slotted(3.0)


def uses_a_global(x):
    return CONFIG(x) + CONFIG.scale(x) * x


def makes_one(x):
    p = Params(x, 0.5)
    return p(x) * p.w


def slotted_global(x):
    return SLOTTED(x) * x


def slotted_made(x):
    return Slotted(2.0)(x) + np.cos(x) * Slotted(x[0]).w


def loss(p, x):
    return np.sum(p(x) ** 2)


X, T = np.array([0.3, -0.7]), np.array([1.0, 0.5])
MODES = {
    "jvp": lambda f: fwdad.jvp(f, (X,), (T,))[1],
    "jacfwd": lambda f: fwdad.jacfwd(f)(X) @ T,
    "jacrev": lambda f: fwdad.jacrev(f)(X) @ T,
    "linearize": lambda f: fwdad.linearize(f, X)[1](T),
    "transposed": lambda f: np.array([fwdad.linearize(f, X)[1].T(e)[0]  # (rows of J)
                                      for e in np.eye(2)]) @ T,
    "sparse": lambda f: fwdad.sparse_jacfwd(f)(X).toarray() @ T,
    "grad": lambda f: np.array([fwdad.grad(lambda x: f(x)[i])(X) for i in range(2)]) @ T,
    "vjp": lambda f: np.array([fwdad.vjp(f, X)[1](e)[0] for e in np.eye(2)]) @ T,
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", [uses_a_global, makes_one, slotted_global, slotted_made],
                         ids=lambda f: f.__name__)
def test_each_mode_reads_a_raising_getattr_as_a_missing_name(f, mode):
    np.testing.assert_allclose(MODES[mode](f), central_difference(f, X, T), rtol=1e-7, atol=1e-9)


def test_an_instance_with_a_raising_getattr_as_an_argument():
    """Reverse mode copies the instance to hold its variables (copy.copy asks it for
    __setstate__); forward mode builds its tangent."""
    p, x, dw = Params(np.array([0.5, -0.2]), 0.3), np.array([0.3, 0.7]), np.array([1.0, -2.0])
    want = central_difference(lambda w: loss(Params(w, 0.3), x), p.w, dw)
    ct_p, _ = fwdad.vjp(loss, p, x)[1](1.0)
    assert np.dot(ct_p.w, dw) == pytest.approx(want, rel=1e-7)
    _, tangent = fwdad.jvp(loss, (p, x), (Params(dw, 0.0), np.zeros(2)))
    assert tangent == pytest.approx(want, rel=1e-7)


def test_the_users_own_read_of_a_missing_name_still_raises_its_error():
    with pytest.raises(KeyError, match="nope"):
        fwdad.jvp(lambda x: x * CONFIG.nope, (1.0,), (1.0,))


@pytest.mark.parametrize("f", [uses_a_global, slotted_global, slotted_made],
                         ids=lambda f: f.__name__)
def test_hessian_through_a_raising_getattr(f):
    def scalar(x):
        return np.sum(f(x) ** 2)
    np.testing.assert_allclose(fwdad.hessian(scalar)(X) @ T,
                               central_difference(fwdad.grad(scalar), X, T), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("transform", [fwdad.jacfwd, fwdad.jacrev, fwdad.sparse_jacfwd],
                         ids=lambda t: t.__name__)
def test_a_callable_instance_with_a_raising_getattr_is_transformed(transform):
    """fwdad names the transformed function (`__name__`) and reads its signature
    (`__code__`, `__wrapped__`): a callable instance has neither."""
    for callable_ in (CONFIG, SLOTTED):
        jac = transform(callable_)(X)
        jac = jac.toarray() if hasattr(jac, "toarray") else jac
        np.testing.assert_allclose(jac @ T, central_difference(callable_, X, T), rtol=1e-7,
                                   atol=1e-9)
    with pytest.raises(FwdadError, match="hold no floats|is an int"):  # (not a KeyError)
        transform(SLOTTED)(3)
