"""An inner jacfwd or grad differentiated again (forward over forward: one level-2 jvp
per direction, fwdad/nesting.py) of a function that writes into an instance it is
given: each run must start from the instance as given (fwdad/run_arguments.py). The
runs shared it: the second saw the first one's write, and the outer derivative, and
even the inner Jacobian's value, came out wrong without an error. References: the plain
call, and central differences."""
import numpy as np

import fwdad
from tests.util import assert_close, central_difference


class Box:
    def __init__(self, field):
        self.field = field


def shift_the_field(x, box):
    box.field += x[1]
    return np.sum(np.sin(box.field * x[0]))


def jacobian_on_a_new_box(x):
    return fwdad.jacfwd(shift_the_field)(x, Box(np.array([1.0, 2.0, 3.0])))


def gradient_on_a_list_of_boxes(x):
    boxes = [Box(np.array([0.5, -1.0])), Box(np.array([2.0, 0.25]))]
    return fwdad.jacfwd(lambda y, bs: shift_the_field(y, bs[0]) * shift_the_field(y, bs[1])
                        )(x, boxes)


X, V = np.array([0.3, -0.7]), np.array([0.5, 1.0])


def test_each_run_starts_from_the_instance_as_given():
    for fn in (jacobian_on_a_new_box, gradient_on_a_list_of_boxes):
        primal, tangent = fwdad.jvp(fn, (X.copy(),), (V,))
        assert_close(primal, fn(X.copy()), rtol=1e-12)
        assert_close(tangent, central_difference(fn, X.copy(), V), rtol=1e-6, atol=1e-8)


def test_linearize_and_a_batch_through_an_instance_written_into():
    """The same runs when the outer tangent is recorded or batched: the write into the
    box's field widens its tangent in the field (fwdad/rules/tangent_holders.py)."""
    for fn in (jacobian_on_a_new_box, gradient_on_a_list_of_boxes):
        want = np.stack([central_difference(fn, X.copy(), e) for e in np.eye(2)])
        _, lin = fwdad.linearize(fn, X.copy())
        assert_close(np.stack([lin(e) for e in np.eye(2)]), want, rtol=1e-6, atol=1e-8)
        _, batched = fwdad.batched_jvp(fn, (X.copy(),), (np.eye(2),))
        assert_close(batched, want, rtol=1e-6, atol=1e-8)
