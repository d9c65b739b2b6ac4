"""A list, dict or object read from a global or closure: a derivative written into one
by its name is followed within the derivative (forward/written_globals.py: every read is
one Dual, tests/forward/test_written_containers.py); one written any other way (through
a parameter, another name, its `__dict__` reached through a local) is refused, since
fwdad reads such a value afresh, with a zero tangent, each time, and the derivative
would be lost when it is read again (core/read_only.py).
"""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.util import assert_close, central_difference

STORE = []
TABLE = {}
NESTED = [[0.0]]


class Box:
    def __init__(self):
        self.v = 0.0
        self.a = np.array([3.0, 1.0, 2.0])
        self.items = []


BOX = Box()
LOG = []


def appended_then_read(w):
    STORE.clear()
    STORE.append(w[0] * 2.0)
    return _read_store() * w[1]


def _read_store():
    return STORE[0] * 3.0


def inserted(w):
    STORE.clear()
    STORE.insert(0, w[0])
    return STORE[0] * w[1]


def extended(w):
    STORE.clear()
    STORE.extend([w[0], w[1]])
    return STORE[0] + STORE[1]


def item_written(w):
    TABLE["a"] = w[0] * 2.0
    return TABLE["a"] * w[1]


def nested_item_written(w):
    NESTED[0][0] = w[0]
    return NESTED[0][0] * w[1]


def field_written(w):
    BOX.v = w[0] * 2.0
    return _read_box() * w[1]


def _read_box():
    return BOX.v * 3.0


def _closure_list():
    kept = []

    def f(w):
        kept.append(w[0])
        return kept[-1] * w[1]
    return f


@pytest.mark.parametrize("fn", [appended_then_read, inserted, extended, item_written,
                                nested_item_written, _closure_list()],
                         ids=lambda f: f.__name__)
def test_a_derivative_written_into_a_global_container_by_name_is_followed(fn):
    """Each was refused before ("read from a global or closure")."""
    w, t = np.array([0.3, -0.7]), np.array([1.0, 0.5])
    for _ in range(2):
        want = central_difference(fn, w, t)
        assert fwdad.jvp(fn, (w,), (t,))[1] == pytest.approx(want, rel=1e-6)


def field_written_and_read_here(w):
    BOX.v = w[0] * 2.0
    return BOX.v * w[1]


def field_list_appended(w):
    BOX.items.append(w[0])
    return BOX.items[-1] * w[1]


def field_array_item_written(w):
    BOX.a[0] = w[0]
    return BOX.a[0] * w[1]


def field_array_updated(w):
    BOX.a[:2] += w
    return BOX.a[0] * w[1]


def field_array_as_out(w):
    np.add(w, 1.0, out=BOX.a[:2])
    return BOX.a[0] * w[1]


def field_array_copied_into(w):
    np.copyto(BOX.a[:2], w)
    return BOX.a[0] * w[1]


def field_array_written_through_a_view(w):
    view = BOX.a[1:]
    view[0] = w[0]
    return BOX.a[1] * w[1]


def field_written_into_its_dict(w):
    BOX.__dict__["v"] = w[0]
    return BOX.v * w[1]


def list_array_item_written(w):
    NESTED_ARRAY[0][1] = w[0]
    return NESTED_ARRAY[0][1] * w[1]


NESTED_ARRAY = [np.zeros(3)]


@pytest.mark.parametrize("fn", [field_written, field_written_and_read_here,
                                field_list_appended, field_array_item_written,
                                field_array_updated, field_array_as_out,
                                field_array_copied_into, field_array_written_through_a_view,
                                field_written_into_its_dict, list_array_item_written],
                         ids=lambda f: f.__name__)
def test_a_derivative_written_into_a_global_object_by_name_is_followed(fn):
    """Each of these gave a zero or partial derivative, with no error, once (the field,
    list item or array entry was read back with a new zero tangent), then was refused:
    BOX and NESTED_ARRAY are written into by name, and followed now."""
    w, t = np.array([0.3, -0.7]), np.array([1.0, 0.5])

    def from_the_start(w):  # (some update BOX.a in place: each call from one state)
        BOX.a[:] = [3.0, 1.0, 2.0]
        return fn(w)
    for _ in range(2):
        want = central_difference(from_the_start, w, t)
        assert fwdad.jvp(from_the_start, (w,), (t,))[1] == pytest.approx(want, rel=1e-6)


class Unseen:
    def __init__(self):
        self.v = 0.0


UNSEEN_BOX = Unseen()  # (no code writes into these by name: their reads are constants)
UNSEEN_TABLE = {}
UNSEEN_LIST = []


def field_written_through_a_local(w):
    box = UNSEEN_BOX
    box.v = w[0] * 2.0
    return box.v * w[1]


def _put(table, v):
    table["a"] = v


def item_written_through_a_parameter(w):
    _put(UNSEEN_TABLE, w[0] * 2.0)
    return UNSEEN_TABLE["a"] * w[1]


def appended_through_another_name(w):
    items = UNSEEN_LIST
    items.append(w[0])
    return UNSEEN_LIST[-1] * w[1]


UNSEEN_WRITES = [field_written_through_a_local, item_written_through_a_parameter,
                 appended_through_another_name]


@pytest.mark.parametrize("fn", UNSEEN_WRITES, ids=lambda f: f.__name__)
def test_a_derivative_written_not_by_name_is_refused(fn):
    w = np.array([0.3, -0.7])
    with pytest.raises(FwdadError, match="read from a global or closure") as info:
        fwdad.jvp(fn, (w,), (np.array([1.0, 0.5]),))
    assert "test_global_containers.py" in str(info.value)  # (it names the user's line)


def test_a_refused_field_write_leaves_the_global_as_it_was():
    UNSEEN_BOX.v = 0.0
    with pytest.raises(FwdadError, match="read from a global or closure"):
        fwdad.jvp(field_written_through_a_local, (np.array([0.3, -0.7]),),
                  (np.array([1.0, 0.5]),))
    assert UNSEEN_BOX.v == 0.0


ARRAY = np.zeros(2)


def _write_first(a, v):
    a[0] = v


def array_item_written(w):
    _write_first(ARRAY, w[0] * 2.0)  # (not by name: forward/written_globals.py)
    return ARRAY.sum() * w[1]


def dict_updated(w):
    TABLE.update(b=w[0])
    return TABLE["b"] * w[1]


def dict_default_set(w):
    return TABLE.setdefault("c", w[0] * 3.0) * w[1]


def test_a_derivative_written_by_an_update_is_followed():
    w, t = np.array([0.3, -0.7]), np.array([1.0, 0.5])
    TABLE.pop("c", None)
    assert fwdad.jvp(dict_updated, (w,), (t,))[1] == pytest.approx(0.5 * w[0] + w[1])
    assert fwdad.jvp(dict_default_set, (w,), (t,))[1] == pytest.approx(
        3.0 * (0.5 * w[0] + w[1]))


@pytest.mark.parametrize("fn", [array_item_written, item_written_through_a_parameter,
                                appended_through_another_name], ids=lambda f: f.__name__)
def test_a_refused_write_leaves_the_global(fn):
    """The tangent is written (and refused) before the value: the global list, dict or
    array was changed by the write the error reports."""
    UNSEEN_LIST[:] = [5.0]
    UNSEEN_TABLE.clear()
    ARRAY[:] = 0.0
    before = (list(UNSEEN_LIST), dict(UNSEEN_TABLE), ARRAY.copy())
    with pytest.raises(FwdadError, match="reads as a constant|read from a global or closure"):
        fwdad.jvp(fn, (np.array([0.3, -0.7]),), (np.array([1.0, 0.5]),))
    assert repr((list(UNSEEN_LIST), dict(UNSEEN_TABLE), ARRAY.copy())) == repr(before)


def sorted_in_place(w):
    BOX.a.sort()
    return BOX.a[0] * w[1]


def scaled_in_place(w):
    BOX.a *= 2.0
    BOX.a[2] = 1.0
    return BOX.a[0] * w[1]


def set_to_a_constant(w):
    BOX.v = 3.0
    return BOX.v * w[1]


@pytest.mark.parametrize("fn, slope", [(sorted_in_place, 1.0), (scaled_in_place, 6.0),
                                       (set_to_a_constant, 3.0)],
                         ids=lambda f: getattr(f, "__name__", ""))
def test_constants_written_into_global_objects_are_fine(fn, slope):
    """In-place updates of a global's arrays and fields with constants change no
    derivative: fn(w) = slope * w[1], whose derivative along t is slope * t[1]."""
    BOX.a[:] = [3.0, 1.0, 2.0]
    w = np.array([0.3, -0.7])
    out, tangent = fwdad.jvp(fn, (w,), (np.array([1.0, 0.5]),))
    assert out == pytest.approx(slope * w[1])
    assert_close(tangent, slope * 0.5, rtol=1e-12)


def logged(w):
    LOG.append(1.5)  # a constant: nothing to lose
    TABLE["n"] = len(LOG)
    BOX.v = 2.0
    return np.sum(w * w) * BOX.v


def test_constants_written_into_globals_are_fine():
    w = np.array([0.3, -0.7])
    t = np.array([1.0, 0.5])
    out, tangent = fwdad.jvp(logged, (w,), (t,))
    assert out == pytest.approx(2.0 * np.sum(w * w))
    assert_close(tangent, 4.0 * np.sum(w * t), rtol=1e-12)


def test_reverse_mode_keeps_the_derivative_of_a_global_list():
    """Reverse mode's values carry their own adjoints: the list holds them."""
    w = np.array([0.3, -0.7])
    step = 1e-6
    want = [(appended_then_read(w + step * e) - appended_then_read(w - step * e)) / (2 * step)
            for e in np.eye(2)]
    assert_close(fwdad.grad(appended_then_read)(w), np.array(want), rtol=1e-6)


def constants_kept_in_globals(x):
    LOG.append(1.0)
    LOG.insert(0, 0.5)
    LOG.extend([1.0, 2.0])
    TABLE.setdefault("k", 2.0)
    TABLE.update({"z": 3.0})
    return x[0] ** 3 * x[1]


def test_second_order_with_constants_written_into_globals():
    """The rules of the read-only tangents' methods, differentiated again (forward over
    forward), against the closed form of the Hessian of x0^3 x1."""
    x = np.array([0.3, 0.8])
    hess = fwdad.jacfwd(fwdad.jacfwd(constants_kept_in_globals))(x)
    want = np.array([[6 * x[0] * x[1], 3 * x[0] ** 2], [3 * x[0] ** 2, 0.0]])
    assert_close(hess, want, rtol=1e-12)


@pytest.mark.parametrize("fn", [appended_then_read, item_written], ids=lambda f: f.__name__)
def test_second_order_follows_a_derivative_written_into_a_global_by_name(fn):
    """fn(w) = 6 w0 w1 and 2 w0 w1: refused before."""
    hess = fwdad.jacfwd(fwdad.jacfwd(fn))(np.array([0.3, -0.7]))
    slope = 6.0 if fn is appended_then_read else 2.0
    assert_close(hess, slope * np.array([[0.0, 1.0], [1.0, 0.0]]), rtol=1e-12)


@pytest.mark.parametrize("fn", UNSEEN_WRITES, ids=lambda f: f.__name__)
def test_second_order_refuses_a_derivative_written_not_by_name(fn):
    with pytest.raises(FwdadError, match="read from a global or closure"):
        fwdad.jacfwd(fwdad.jacfwd(fn))(np.array([0.3, -0.7]))


def with_a_set_of_constants(x):
    kinds = {1.0, 2.0}
    return x[0] ** 3 * x[1] + len(kinds)


def test_second_order_through_the_zero_test_of_a_set():
    """is_zero (core/read_only.py), which the set rules ask, is a test: no derivative."""
    x = np.array([0.3, 0.8])
    hess = fwdad.jacfwd(fwdad.jacfwd(with_a_set_of_constants))(x)
    want = np.array([[6 * x[0] * x[1], 3 * x[0] ** 2], [3 * x[0] ** 2, 0.0]])
    assert_close(hess, want, rtol=1e-12)
