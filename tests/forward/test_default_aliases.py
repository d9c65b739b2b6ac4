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
from tests.util import assert_close, central_gradient


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


def _written_by_numpy(w, out=np.zeros(3)):  # noqa: B008
    np.multiply(w, w[0], out=out)
    np.copyto(out, out + w)


OUT = _written_by_numpy.__defaults__[0]


def array_written_by_numpy_read_through_the_global(w):
    _written_by_numpy(w)
    return np.sum(OUT * OUT) * w[1]


PROGRAMS = [cleared_through_the_global, accumulated_over_two_calls,
            read_through_the_global, array_reset_through_the_global,
            dict_read_through_the_global, array_written_by_numpy_read_through_the_global]
W = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, 1.0, -0.4])


def _hessian_reference(f):
    """Central differences of fwdad.grad's gradient (reverse mode follows the array
    defaults too: reverse/state.py)."""
    return central_gradient(fwdad.grad(f), W, h=1e-5)


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
    want = central_gradient(f, W)
    for _ in range(3):
        assert_close(FIRST_ORDER[how](f), want, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("how", sorted(SECOND_ORDER))
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_second_derivatives_stay_right_call_after_call(f, how):
    hessian = _hessian_reference(f)
    for _ in range(3):
        got, want = SECOND_ORDER[how](f, hessian)
        assert_close(got, want, rtol=1e-6, atol=1e-8)


def _append_again(w, store=[]):  # noqa: B006
    store.append(w[0] * w[1])
    return store[0]


APPENDED = _append_again.__defaults__[0]


def the_reported_case(w):
    """The silent wrong derivative as it was reported, on a function of its own (the
    rules of rules are kept per function, so what ran before matters)."""
    APPENDED.clear()
    return _append_again(w) * np.sum(w ** 2)


def test_the_reported_case_hvp_then_hessian_then_jvp_of_grad():
    """Each right on the first call and wrong after: the forward rule of the helper's
    reverse rule kept the tangents of the default's items from one hvp to the next."""
    hessian = _hessian_reference(the_reported_case)
    for how in ("hvp", "hessian", "jvp_of_grad", "jacfwd_of_jacfwd"):
        for _ in range(3):
            got, want = SECOND_ORDER[how](the_reported_case, hessian)
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


# ---- siblings: other ways to the same default ----------------------------------------
def _keep(w, store=[]):  # noqa: B006
    store.clear()
    store.append(w[0] * w[1])


def read_through_the_function(w):
    """`f.__defaults__[0]`: the default read through its function (core/duals.py)."""
    _keep(w)
    return _keep.__defaults__[0][0] * np.sum(w ** 2)


def _cache(w=None, store=[]):  # noqa: B006
    if w is not None:
        store.clear()
        store.append(w[0] * w[1])
        return 0.0
    return store[0]


def written_then_read_by_another_call(w):
    _cache(w)
    return _cache() * np.sum(w ** 2)


def _keep_scaled(w, k=2.0, store=[]):  # noqa: B006
    store.clear()
    store.append(w[0] * w[1] * k)


def read_through_the_function_past_a_number(w):
    """`f.__defaults__` holds a number before the list: at second order its level-2
    item was the constant of a constant, whose outer tangent (NoTangent) was read as
    a structure (an AttributeError in jacfwd of jacfwd, and jvp of jvp)."""
    _keep_scaled(w)
    return _keep_scaled.__defaults__[1][0] * np.sum(w ** 2) * _keep_scaled.__defaults__[0]


@pytest.mark.parametrize("how", sorted(FIRST_ORDER))
def test_a_default_read_through_its_function(how):
    want = central_gradient(read_through_the_function, W)
    for _ in range(3):
        assert_close(FIRST_ORDER[how](read_through_the_function), want, rtol=1e-6,
                     atol=1e-9)


@pytest.mark.parametrize("how", sorted(SECOND_ORDER))
@pytest.mark.parametrize("f", [read_through_the_function,
                               read_through_the_function_past_a_number],
                         ids=lambda f: f.__name__)
def test_a_default_read_through_its_function_at_second_order(f, how):
    hessian = _hessian_reference(f)
    for _ in range(3):
        got, want = SECOND_ORDER[how](f, hessian)
        assert_close(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [written_then_read_by_another_call, read_through_the_global],
                         ids=lambda f: f.__name__)
def test_a_derived_rule_called_directly_is_one_derivative(f):
    """`f.frule(Dual(...))` outside any transformation (forward/defaults.EntryRule): the
    helper's calls share the default's Dual (each got a new zero tangent)."""
    rule = fwdad.derive_frule(f).frule
    want = central_gradient(f, W) @ V
    for _ in range(3):
        assert rule(fwdad.Dual(W.copy(), V.copy())).tangent == pytest.approx(want, rel=1e-6)


@pytest.mark.usefixtures("restore_rules")  # (static_graph registers a rule)
def test_a_static_graph_runs_the_full_rule_for_an_aliased_default():
    """A schedule would replay the global read as a constant: the recording is given
    up and every call runs the rule (the recording run itself read a default's Dual
    made once, and gave a wrong first value)."""
    graph = fwdad.static_graph(read_through_the_global)
    want = central_gradient(read_through_the_global, W) @ V
    for _ in range(3):
        assert fwdad.jvp(graph, (W,), (V,))[1] == pytest.approx(want, rel=1e-6)
    assert graph.static_graph.counts["replays"] == 0


def _accumulate_all(w, acc=[]):  # noqa: B006
    acc.append(w[0] * w[1])
    return sum(acc)


def _grads_twice(w):
    """Two gradients in one derivative, the default keeping the first one's item."""
    return np.sum(fwdad.grad(_accumulating)(w) * fwdad.grad(_accumulating)(w))


def _accumulating(w):
    return _accumulate_all(w) * np.sum(w ** 2)


def test_two_gradients_in_one_jvp_share_the_default():
    """The first gradient leaves a Var's tangent (value and adjoint) in the default's
    Dual: a plain value's tangent after the pass (reverse/stores.settle_tangents)."""
    store = _accumulate_all.__defaults__[0]

    def from_the_same_state(x):
        store[:] = [0.25]
        return _grads_twice(x)
    want = central_gradient(from_the_same_state, W)
    for _ in range(3):
        for i, e in enumerate(np.eye(3)):
            store[:] = [0.25]
            assert fwdad.jvp(_grads_twice, (W,), (e,))[1] == pytest.approx(want[i],
                                                                            rel=1e-6)


class _Shared:
    items = []  # a class attribute used as shared state


def written_into_a_class_attribute(w):
    _Shared.items.clear()
    _Shared.items.append(w[0] * w[1])
    return _Shared.items[0] * np.sum(w ** 2)


@pytest.mark.parametrize("how", ["jvp", "jacfwd"])
def test_a_derivative_written_into_a_class_attribute_is_refused(how):
    """It was a fresh writable tangent at each read: the derivative was lost."""
    with pytest.raises(FwdadError, match=r"written into a list.*test_default_aliases"):
        FIRST_ORDER[how](written_into_a_class_attribute)


def _jvp_along_v(w):
    return fwdad.jvp(read_through_the_global, (w,), (V,))[1]


def _second_along_v(w):
    return fwdad.jvp(_jvp_along_v, (w,), (V,))[1]


def test_a_third_derivative_through_an_aliased_default():
    """Refused before (the default's Duals were kept to second order): against central
    differences of the second derivative."""
    h = 1e-5
    want = (_second_along_v(W + h * V) - _second_along_v(W - h * V)) / (2 * h)
    for _ in range(2):
        assert fwdad.jvp(_second_along_v, (W,), (V,))[1] == pytest.approx(want, rel=1e-6)


def _writer(w, store=[]):  # noqa: B006
    store.clear()
    store.append(w[0] * w[1])


LATE = _writer.__defaults__[0]


def _reader(w):
    return LATE[0] * np.sum(w ** 2)


def written_by_a_helper_passed_in(w, write):
    write(w)
    return _reader(w)


def test_a_default_met_in_the_middle_of_a_derivative_is_refused_once():
    """_reader's rule is built (optimized: LATE is a plain list then) before fwdad
    meets _writer, passed as an argument: the rule that took LATE for a constant may
    be running, so that derivative is refused; the rules are dropped, and every call
    after is right (forward/defaults.FreshDefault)."""
    LATE[:] = [2.0]
    assert fwdad.jvp(_reader, (W,), (V,))[1] == pytest.approx(2.0 * np.sum(2 * W * V))
    assert build_rule(_reader).source.startswith("# optimized")  # (the case to test)
    f = written_by_a_helper_passed_in
    with pytest.raises(FwdadError, match=r"only in the middle of a derivative .*the next "
                                         r"call is right"):
        fwdad.jvp(f, (W, _writer), (V, None))
    want = np.array([(f(W + 1e-6 * e, _writer) - f(W - 1e-6 * e, _writer)) / 2e-6
                     for e in np.eye(3)]) @ V
    for _ in range(3):
        assert fwdad.jvp(f, (W, _writer), (V, None))[1] == pytest.approx(want, rel=1e-6)


def _writer_in_a_table(w, store=[]):  # noqa: B006
    store.clear()
    store.append(w[0] * w[1])


IN_A_TABLE = _writer_in_a_table.__defaults__[0]
WRITERS = {"write": _writer_in_a_table}  # a table of functions: walked one level down


def written_by_a_helper_in_a_table(w):
    WRITERS["write"](w)
    return IN_A_TABLE[0] * np.sum(w ** 2)


def test_a_default_of_a_function_in_a_global_table_is_found_when_the_rule_is_built():
    want = central_gradient(written_by_a_helper_in_a_table, W) @ V
    for _ in range(3):
        got = fwdad.jvp(written_by_a_helper_in_a_table, (W,), (V,))[1]
        assert got == pytest.approx(want, rel=1e-6)
