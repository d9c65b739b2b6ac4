"""A user class's reflected operator met at second order in forward mode (`0 + v` in
`sum([...])` of instances: int's __add__ gives way to the class's __radd__), found by
the fuzzer (seed 100,159,019, the habits construct's operator class, under the hvp
oracle's forward over forward): the check of whether NumPy hands the method the whole
array (core/numpy_binops.refuse_reflected) had no rule at level 2, and
jacfwd(jacfwd(f)) raised a MissingRuleError naming fwdad's own function. It is decided
on plain values: the Hessian is the closed form, and the refusal of an array on the
left still comes at second order."""
import numpy as np
import pytest

import fwdad
from tests.util import assert_close

X = np.array([0.3, -0.2, 0.5])


class Vec:
    def __init__(self, a):
        self.a = a

    def __add__(self, other):
        return Vec(self.a + (other.a if isinstance(other, Vec) else other))

    __radd__ = __add__

    def __mul__(self, k):
        return Vec(self.a * k)


def summed(x):  # sum((x + 2 sin x)^2): sum starts from the int 0, so 0 + Vec(x) first
    return np.sum(sum([Vec(x), Vec(np.sin(x)) * 2.0]).a ** 2)


def array_on_the_left(x):  # NumPy would call Vec.__radd__ once per item
    return np.sum((x + Vec(x)).a ** 2)


def closed_form_hessian(x):
    u, du, ddu = x + 2.0 * np.sin(x), 1.0 + 2.0 * np.cos(x), -2.0 * np.sin(x)
    return np.diag(2.0 * (du * du + u * ddu))


@pytest.mark.parametrize("second", [
    lambda f: fwdad.jacfwd(fwdad.jacfwd(f)), fwdad.hessian,
    lambda f: fwdad.jacrev(fwdad.jacfwd(f))], ids=["fwd-fwd", "hessian", "rev-fwd"])
def test_the_hessian_through_a_reflected_operator_is_the_closed_form(second):
    assert_close(second(summed)(X), closed_form_hessian(X), rtol=1e-12)


def test_an_array_on_the_left_is_still_refused_at_second_order():
    with pytest.raises(fwdad.NonDifferentiableError, match=r"Vec.__radd__ for each item"):
        fwdad.jacfwd(fwdad.jacfwd(array_on_the_left))(X)
