"""Mutable defaults: a call that writes into one must not leave its tangent to the next
call (forward/defaults.py). Each function is differentiated several times over, in
single and batched passes, against central differences."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from fwdad.forward.defaults import FreshDefault
from fwdad.forward.derive import build_rule
from tests.util import assert_close, central_gradient, central_hessian


def write_into_array(x, buf=np.zeros(3)):
    buf[:] = x * 2.0
    return buf.sum() + x[0]


def grow_a_list(x, acc=[]):
    acc.append(x * 3.0)
    return (acc[-1] * x[0]).sum()


def fill_a_dict(x, *, seen={}):
    seen["last"] = np.sin(x)
    return seen["last"].sum()


def immutable_defaults(x, scale=2.0, shift=(1.0, 2.0), name="k"):
    return (x * scale).sum() + shift[1]


@pytest.mark.parametrize("f", [write_into_array, grow_a_list, fill_a_dict,
                               immutable_defaults], ids=lambda f: f.__name__)
def test_repeated_calls_start_from_a_zero_tangent(f):
    x = np.array([0.3, -1.2, 2.0])
    want = central_gradient(f, x)
    for _ in range(2):  # batched passes, in one chunk and in two, then single tangents
        assert_close(fwdad.jacfwd(f)(x), want, rtol=1e-6)
        assert_close(fwdad.jacfwd(f, chunk_size=2)(x), want, rtol=1e-6)
        for i, e in enumerate(np.eye(3)):
            assert_close(fwdad.jvp(f, (x,), (e,))[1], want[i], rtol=1e-6)


@pytest.mark.parametrize("optimized", [True, False])
def test_only_mutable_defaults_are_made_again(optimized):
    rule = build_rule(immutable_defaults, optimized=optimized)
    assert "FreshDefault" not in rule.source
    assert [d.primal for d in rule.__defaults__] == [2.0, (1.0, 2.0), "k"]
    rule = build_rule(write_into_array, optimized=optimized)
    assert "buf = buf.dual()" in rule.source
    assert isinstance(rule.__defaults__[0], FreshDefault)
    assert rule.__defaults__[0].value is write_into_array.__defaults__[0]


def _remember(v, store=[]):  # noqa: B006 (the mutable default is the point)
    store.append(v)
    return store[0]


def remembered_across_two_calls(x):
    _remember.__defaults__[0].clear()
    first = _remember(x[0] * 2.0)
    return _remember(x[1]) * first + first


def test_a_default_written_by_one_call_and_read_by_the_next():
    """Every call of one derivative gets the same Dual of the default (it gave a zero
    derivative for what the first call wrote: forward/defaults.py, one_derivative)."""
    x = np.array([0.3, -0.7])
    want = central_gradient(remembered_across_two_calls, x)
    for _ in range(2):
        for i, e in enumerate(np.eye(2)):
            assert_close(fwdad.jvp(remembered_across_two_calls, (x,), (e,))[1], want[i],
                         rtol=1e-6)
        assert_close(fwdad.jacfwd(remembered_across_two_calls)(x), want, rtol=1e-6)
        assert_close(fwdad.jacfwd(remembered_across_two_calls, chunk_size=1)(x), want,
                     rtol=1e-6)
        out, lin = fwdad.linearize(remembered_across_two_calls, x)
        assert_close(lin(np.array([1.0, 0.0])), want[0], rtol=1e-6)
        assert_close(fwdad.grad(remembered_across_two_calls)(x), want, rtol=1e-6)


def _remember_into(v, store=[]):  # noqa: B006
    store.append(v)
    return store[0]


HOLDER = {"store": _remember_into.__defaults__[0]}  # the default, inside another global


def changed_between_calls(x):
    _remember_into.__defaults__[0].clear()
    first = _remember_into(x[0] * 2.0)
    HOLDER["store"].insert(0, 5.0)             # outside the function, through a global
    return _remember_into(x[1]) * first        # dict: the tangent kept misses the item


def inserted_through_the_defaults(x):
    _remember_into.__defaults__[0].clear()
    first = _remember_into(x[0] * 2.0)
    _remember_into.__defaults__[0].insert(0, 5.0)  # the derivative's own Dual of it
    return _remember_into(x[1]) * first


def emptied_between_calls(x):
    _remember_into.__defaults__[0].clear()
    first = _remember_into(x[0] * 2.0)
    _remember_into.__defaults__[0].clear()  # emptied: the next call starts from zero
    return _remember_into(x[1]) * first


def test_a_default_changed_outside_between_two_calls_is_refused():
    with pytest.raises(FwdadError, match=r"mutable default \(a list\) was changed outside "
                                         r"its function .*test_defaults.py:\d+"):
        fwdad.jvp(changed_between_calls, (np.array([0.3, -0.7]),), (np.ones(2),))


def test_a_default_changed_through_its_function_between_two_calls_is_followed():
    """`f.__defaults__[0]` is the Dual the calls share (core/duals.read_lasting): the
    item inserted there gets a zero tangent, and the next call reads the first's."""
    x = np.array([0.3, -0.7])
    want = central_gradient(inserted_through_the_defaults, x)
    for _ in range(3):
        assert_close(fwdad.jacfwd(inserted_through_the_defaults)(x), want, rtol=1e-6)
        for i, e in enumerate(np.eye(2)):
            assert_close(fwdad.jvp(inserted_through_the_defaults, (x,), (e,))[1], want[i],
                         rtol=1e-6)


def test_a_default_emptied_outside_between_two_calls_starts_again():
    x = np.array([0.3, -0.7])
    assert_close(fwdad.jacfwd(emptied_between_calls)(x),
                 central_gradient(emptied_between_calls, x))


def written_and_read_in_one_call(x, store=[]):  # noqa: B006
    store.clear()
    store.append(x[0] ** 2)
    return store[0] * x[1] + x[0] * x[1] ** 2


@pytest.mark.parametrize("f", [written_and_read_in_one_call, remembered_across_two_calls],
                         ids=lambda f: f.__name__)
def test_second_derivatives_through_a_written_default(f):
    """Forward over forward: the default's Dual at level 2 has zero tangents at both
    levels that writes land in (the outer tangent was NoTangent, and what was written
    into the default lost its second-order part)."""
    x = np.array([0.3, -0.7])
    want = central_hessian(f, x)
    for _ in range(2):
        assert_close(fwdad.jacfwd(fwdad.jacfwd(f))(x), want, rtol=1e-5, atol=1e-6)
