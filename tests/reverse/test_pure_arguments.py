"""A reverse rule's Pure calls its function with the rule's own arguments where none
of them is a variable (fwdad/reverse/rule_calls.Pure): the function must take them as
the rule does. math.fsum's rule takes the items one by one, math.fsum one iterable:
its Pure called math.fsum(a, b, c), a TypeError, wherever the items reached it as
constants (forward over reverse: fuzz seed 100,177,307, hvp of a program summing
values with math.fsum). Against the plain call and a closed form."""
import math

import numpy as np

import fwdad
from fwdad.reverse.registry import get_rrule


def test_fsum_of_constants_in_the_reverse_rule():
    assert get_rrule(math.fsum)([1.0, 2.0, 0.5]) == math.fsum([1.0, 2.0, 0.5])


def test_fsum_of_variables_and_constants():
    def f(x):
        return math.fsum([x[0] * x[1], 2.0, math.fsum([x[1], 0.25])])
    x = np.array([0.3, 0.7])
    np.testing.assert_allclose(fwdad.grad(f)(x), [0.7, 1.3])
    np.testing.assert_allclose(fwdad.hessian(f)(x), [[0.0, 1.0], [1.0, 0.0]])
