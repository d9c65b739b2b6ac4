"""A mutable default that a module also names (`STORE = helper.__defaults__[0]`): the
rule of the helper and every read of the global share one Dual of it in a derivative
(forward/defaults.py, forward/default_aliases.py, core/duals.read_global), and a rule of
a rule (forward over reverse, forward over forward) makes a new one per derivative
(forward/nested/levels.py). Each transformation runs three times in a row, each call
checked against central differences (of f, or of fwdad.grad for second derivatives) and
second derivatives against jacfwd of jacfwd too."""
import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from fwdad.forward.derive import build_rule
from tests.util import assert_close


# ---- the programs: each f starts by resetting the default through its global name ----
def _append_one(w, store=[]):  # noqa: B006 (the mutable default is the point)
    store.append(w[0] * w[1])
    return store[0]


STORE = _append_one.__defaults__[0]


def cleared_through_the_global(w):
    """The helper appends and reads item 0: a tangent list left from the previous call
    (cleared on the primal only) gave item 0 the first call's derivative."""
    STORE.clear()
    return _append_one(w) * np.sum(w ** 2)


def _accumulate(w, acc=[]):  # noqa: B006
    acc.append(w[0] * w[1])
    return sum(acc)


ACC = _accumulate.__defaults__[0]


def accumulated_over_two_calls(w):
    ACC.clear()
    return _accumulate(w) * _accumulate(w * 2.0) * np.sum(w ** 2)


def _remember(w, store=[]):  # noqa: B006
    store.clear()
    store.append(w[0] * w[1])


REMEMBERED = _remember.__defaults__[0]


def read_through_the_global(w):
    """The helper writes the default; f reads it through the global."""
    REMEMBERED.clear()
    _remember(w)
    return REMEMBERED[0] * np.sum(w ** 2)


def _add_into(w, buf=np.zeros(3)):  # noqa: B008
    buf += w * w[0]
    return np.sum(buf)


BUF = _add_into.__defaults__[0]


def array_reset_through_the_global(w):
    BUF[:] = 0.0
    return _add_into(w) * np.sum(w ** 2)


def _keep_in_dict(w, table={}):  # noqa: B006
    table["a"] = w[0] * w[1]
    return table


TABLE = _keep_in_dict.__defaults__[0]


def dict_read_through_the_global(w):
    TABLE.clear()
    _keep_in_dict(w)
    return TABLE["a"] * np.sum(w ** 2) + len(TABLE)


PROGRAMS = [cleared_through_the_global, accumulated_over_two_calls,
            read_through_the_global, array_reset_through_the_global,
            dict_read_through_the_global]
REVERSE_REFUSES = {array_reset_through_the_global}  # (rules_arrays: a constant array)
W = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, 1.0, -0.4])


def _central(f, x, h=1e-6):
    """Central differences of f (a scalar or array result) along each unit vector."""
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


def _hessian_reference(f):
    """Central differences of the gradient: fwdad.grad's, or jacfwd's where reverse
    mode refuses f (it writes a variable into an array default)."""
    gradient = fwdad.jacfwd(f) if f in REVERSE_REFUSES else fwdad.grad(f)
    return _central(gradient, W, h=1e-5)


FIRST_ORDER = {
    "grad": lambda f: fwdad.grad(f)(W),
    "jacrev": lambda f: fwdad.jacrev(f)(W),
    "jacfwd": lambda f: fwdad.jacfwd(f)(W),
    "jvp": lambda f: np.array([fwdad.jvp(f, (W,), (e,))[1] for e in np.eye(3)]),
}
SECOND_ORDER = {
    "hvp": lambda f, hessian: (fwdad.hvp(f, (W,), (V,))[0], hessian @ V),
    "hessian": lambda f, hessian: (fwdad.hessian(f)(W), hessian),
    "jvp_of_grad": lambda f, hessian: (fwdad.jvp(fwdad.grad(f), (W,), (V,))[1],
                                       hessian @ V),
    "jacfwd_of_jacfwd": lambda f, hessian: (fwdad.jacfwd(fwdad.jacfwd(f))(W), hessian),
}


@pytest.mark.parametrize("how", sorted(FIRST_ORDER))
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_first_derivatives_stay_right_call_after_call(f, how):
    want = _central(f, W)
    for _ in range(3):
        if f in REVERSE_REFUSES and how in ("grad", "jacrev"):
            with pytest.raises(FwdadError, match="written into a constant array"):
                FIRST_ORDER[how](f)
        else:
            assert_close(FIRST_ORDER[how](f), want, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("how", sorted(SECOND_ORDER))
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_second_derivatives_stay_right_call_after_call(f, how):
    hessian = _hessian_reference(f)
    for _ in range(3):
        got, want = SECOND_ORDER[how](f, hessian)
        assert_close(got, want, rtol=1e-6, atol=1e-8)


def test_the_aliased_default_leaves_plain_values_behind():
    """After the derivatives, the default holds plain numbers, as a plain call leaves."""
    fwdad.hvp(cleared_through_the_global, (W,), (V,))
    assert STORE == [pytest.approx(W[0] * W[1])] and type(STORE[0]) is np.float64


def test_a_rule_reading_an_aliased_default_is_left_unoptimized():
    """The optimizer takes a global's value for a constant: `REMEMBERED[0]` inlined
    would drop the derivative the helper wrote into the default."""
    optimized = build_rule(read_through_the_global, optimized=True)
    assert "optimized" not in optimized.source.splitlines()[0]
    plain_data = build_rule(_reads_plain_data, optimized=True)
    assert plain_data.source.splitlines()[0].startswith("# optimized")


DATA = np.array([1.0, 2.0, 3.0])  # a global array that is no default


def _reads_plain_data(w):
    return np.sum(DATA * w) * w[0]
