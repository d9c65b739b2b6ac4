"""The user's state after reverse mode (fwdad/reverse/stores.py): a function that writes
into a mutable default, a global list, dict or object, or an argument left out of
argnums leaves plain values there after grad, as a plain call does; a later plain call
and a later derivative then see constants. Gradients are checked against central
differences, the state against a plain call's."""
import numpy as np
import pytest

import fwdad
from fwdad.reverse.var import Var, VarMat
from tests.util import assert_close, central_gradient


def grow_a_default(x, acc=[]):  # noqa: B006 (the mutable default is the point)
    acc.append(x * 3.0)
    return (acc[0] * x).sum()


STATE = {}


def write_a_global_dict(x):
    first = STATE.setdefault("first", x[0] * 1.5)  # the first call's, a constant later
    STATE["last"] = np.sin(x)
    STATE["nested"] = (x[0], [x[1] * 2.0])
    return (STATE["last"] * x).sum() + first * x[1] + STATE["nested"][1][0]


class Box:
    pass


BOX = Box()


def write_a_global_field(x):
    BOX.v = x[0] * 2.0
    BOX.inner = Box()
    BOX.inner.w = x * x
    return BOX.v * x[1] + BOX.inner.w.sum()


def extend_insert_update(x, acc=[], seen={}):  # noqa: B006
    acc.clear()
    acc.extend([x[0] * 2.0, x[1]])
    acc.insert(0, x[1] ** 2)
    acc += [x[0]]
    seen.update(a=x[0] * 2.0)
    seen.setdefault("b", x[1])
    return acc[0] * acc[-1] + seen["a"] * acc[1]


def _defaults_and_globals():
    return [grow_a_default.__defaults__, STATE, vars(BOX), vars(BOX.inner) if
            hasattr(BOX, "inner") else None, extend_insert_update.__defaults__]


def _holds_variable(x, seen=None):
    seen = set() if seen is None else seen
    if id(x) in seen:
        return False
    seen.add(id(x))
    if type(x) in (Var, VarMat):
        return True
    if isinstance(x, (list, tuple)):
        return any(_holds_variable(v, seen) for v in x)
    if isinstance(x, dict):
        return any(_holds_variable(v, seen) for v in x.values())
    if hasattr(x, "__dict__") and not isinstance(x, type):
        return _holds_variable(vars(x), seen)
    return False


@pytest.mark.parametrize("f", [grow_a_default, write_a_global_dict, write_a_global_field,
                               extend_insert_update], ids=lambda f: f.__name__)
def test_the_state_holds_plain_values_after_grad(f):
    x = np.array([0.3, -1.2])
    for _ in range(2):  # the second grad reads what the first left: constants
        want = central_gradient(f, x)  # (plain calls: the state as a plain call leaves it)
        assert_close(fwdad.grad(f)(x), want, rtol=1e-6)
        assert not _holds_variable(_defaults_and_globals())
        f(x)  # a plain call runs on what grad left
        assert_close(fwdad.jacrev(f)(x), central_gradient(f, x), rtol=1e-6)
        assert not _holds_variable(_defaults_and_globals())


def test_an_argument_left_out_of_argnums_holds_plain_values():
    def f(x, log):
        log.append({"sq": x * x})
        return log[-1]["sq"].sum()

    log = []
    x = np.array([0.5, 2.0])
    assert_close(fwdad.grad(f)(x, log), 2 * x)
    assert not _holds_variable(log)
    assert_close(log[0]["sq"], x * x)


def test_an_output_that_is_the_default_itself_keeps_its_pullback():
    def f(x, acc=[]):  # noqa: B006
        acc.clear()
        acc.append(x * 3.0)
        acc.append({"k": x[0] ** 2})
        return acc

    x = np.array([0.3, -1.2])
    out, pullback = fwdad.vjp(f, x)
    assert not _holds_variable(f.__defaults__)
    assert_close(out[0], 3.0 * x)
    assert_close(pullback([np.ones(2), {"k": 1.0}])[0], np.array([3.0 + 0.6, 3.0]))
    assert_close(pullback([np.ones(2), {"k": 0.0}])[0], np.array([3.0, 3.0]))


def test_hessian_leaves_plain_values():
    def f(x, acc=[]):  # noqa: B006
        acc.append(x * 3.0)
        return (acc[-1] * x).sum() ** 2

    x = np.array([0.3, -1.2])
    s = x @ x  # f = 9 s**2: H = 9 (8 x x^T + 4 s I)
    assert_close(fwdad.hessian(f)(x), 9 * (8 * np.outer(x, x) + 4 * s * np.eye(2)))
    assert not _holds_variable(f.__defaults__)


def test_a_failed_pass_leaves_plain_values():
    def f(x, acc=[]):  # noqa: B006
        acc.append(x * 3.0)
        raise ValueError("stop")

    with pytest.raises(ValueError, match="stop"):
        fwdad.grad(f)(np.array([1.0, 2.0]))
    assert not _holds_variable(f.__defaults__)


# ---- ndarray subclasses: a variable of one was left a constant (a zero gradient) -------
class Tagged(np.ndarray):
    pass


def test_an_array_subclass_is_refused_not_left_constant():
    from fwdad.errors import FwdadError

    def f(x):
        return (x * x).sum()

    tagged = np.array([0.3, -0.7]).view(Tagged)
    with pytest.raises(FwdadError, match="Tagged \\(a subclass of numpy.ndarray\\)"):
        fwdad.grad(f)(tagged)
    masked = np.ma.masked_array([1.0, 2.0], mask=[0, 1])

    def g(x):
        return (x * masked).sum()

    with pytest.raises(FwdadError, match="MaskedArray .*test_user_state.py:\\d+"):
        fwdad.grad(g)(np.ones(2))
    assert_close(fwdad.jacfwd(f)(tagged), 2 * np.asarray(tagged))  # forward mode works


LOG = []


def written_into_a_global_list(x):
    LOG.clear()
    LOG.append(x[0] ** 2)
    return LOG[0] * x[1]


UNNAMED = []  # (written through another name only: read as a constant)


def written_into_a_global_list_through_a_local(x):
    log = UNNAMED
    log.clear()
    log.append(x[0] ** 2)
    return UNNAMED[0] * x[1]


def test_a_global_list_written_by_name_is_followed_by_forward_over_reverse():
    """f = x0^2 x1: its Hessian in closed form (refused before: forward mode follows a
    global list written into by name now, forward/written_globals.py)."""
    x = np.array([0.3, -0.7])
    assert_close(fwdad.grad(written_into_a_global_list)(x), [2 * x[0] * x[1], x[0] ** 2])
    assert_close(fwdad.jacfwd(fwdad.grad(written_into_a_global_list))(x),
                 [[2 * x[1], 2 * x[0]], [2 * x[0], 0.0]], rtol=1e-12)


def test_a_refused_global_write_names_the_users_line():
    """Forward over reverse runs fwdad's own reverse rules as generated code: the error
    named the line of fwdad's rule that did the write (errors._fwdads_own)."""
    from fwdad.errors import FwdadError
    x = np.array([0.3, -0.7])
    f = written_into_a_global_list_through_a_local
    assert_close(fwdad.grad(f)(x), [2 * x[0] * x[1], x[0] ** 2])
    with pytest.raises(FwdadError, match=r"read from a global .* at .*test_user_state.py:\d+"):
        fwdad.jacfwd(fwdad.grad(f))(x)
