"""A class attribute is one object for every instance, as a global is: a derivative
written into one (`self.log.append(w[0])`, `Acc.items.append(...)`) would be lost at the
next read, which made a new zero tangent, so forward mode refuses it, naming the line
(rules/objects.get_attribute reads it as core/duals.read_lasting). Reading one as a
constant stays right; reverse mode, which keeps the Var in the list, is right too."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.util import assert_close, central_gradient


class Log:
    items = []  # shared by every instance
    scale = np.array([1.0, 2.0, 3.0])  # a constant of the class

    def push(self, v):
        self.items.append(v)
        return self.items[-1]


LOG = Log()


def through_an_instance_made_inside(w):
    log = Log()
    log.items.clear()
    log.items.append(w[0] * w[1])
    return log.items[0] * np.sum(w ** 2)


def through_a_global_instance(w):
    LOG.items.clear()
    LOG.items.append(w[0] * w[1])
    return LOG.items[0] * np.sum(w ** 2)


def through_a_method(w):
    Log.items.clear()
    log = Log()
    log.push(w[0] * w[1])
    return log.items[0] * np.sum(w ** 2)


def through_the_class(w):
    Log.items.clear()
    Log.items.append(w[0] * w[1])
    return Log.items[0] * np.sum(w ** 2)


def reads_a_class_constant(w):
    log = Log()
    return np.sum(log.scale * w ** 2) + Log.scale[0] * w[1]


W = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, 1.0, -0.4])
WRITERS = [through_an_instance_made_inside, through_a_global_instance, through_a_method,
           through_the_class]


@pytest.mark.parametrize("f", WRITERS, ids=lambda f: f.__name__)
def test_a_derivative_written_into_a_class_attribute_is_refused(f):
    for _ in range(3):  # (it gave a wrong derivative, silently, each time)
        with pytest.raises(FwdadError, match=r"written into a list.*test_class_attributes"):
            fwdad.jvp(f, (W,), (V,))
        with pytest.raises(FwdadError, match=r"written into a list.*test_class_attributes"):
            fwdad.hvp(f, (W,), (V,))


@pytest.mark.parametrize("f", WRITERS, ids=lambda f: f.__name__)
def test_reverse_mode_keeps_the_derivative_in_a_class_attribute(f):
    want = central_gradient(f, W)
    for _ in range(3):
        assert_close(fwdad.grad(f)(W), want, rtol=1e-6, atol=1e-9)
    assert type(Log.items[0]) is np.float64  # (plain values left behind)


def test_a_class_constant_is_read_as_a_constant():
    want = central_gradient(reads_a_class_constant, W)
    for _ in range(3):
        assert_close(fwdad.jacfwd(reads_a_class_constant)(W), want, rtol=1e-6)
        assert fwdad.jvp(reads_a_class_constant, (W,), (V,))[1] == pytest.approx(want @ V)
        assert_close(fwdad.hvp(reads_a_class_constant, (W,), (V,))[0],
                     central_gradient(fwdad.grad(reads_a_class_constant), W, h=1e-5) @ V,
                     rtol=1e-6)


class Buffer:
    data = np.zeros(3)  # an array shared by every instance


def written_into_a_class_array(w):
    b = Buffer()
    b.data[:] = w * w[0]
    return np.sum(b.data) * w[1]


def test_a_derivative_written_into_a_class_array_is_refused():
    """At second order too, with the refusal's own message (the level-2 rule of the
    refusal met no rule for current_user_location before)."""
    for how in (lambda: fwdad.jvp(written_into_a_class_array, (W,), (V,)),
                lambda: fwdad.hvp(written_into_a_class_array, (W,), (V,))):
        with pytest.raises(FwdadError, match=r"test_class_attributes.py:\d+: a value with "
                                             r"a derivative was written into an array"):
            how()
