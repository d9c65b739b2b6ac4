"""A global or closure list, dict or instance that the code writes into by name holds a
derivative within one derivative, as a mutable default does (forward/written_globals.py):
every read of it in that derivative is one Dual, whose tangent starts at zero. Each
program runs three times in a row in each transformation, checked against central
differences (of f, or of jacfwd(f) for second derivatives), and leaves the user's
objects as a plain call does. Every one of them was refused before ("written into a
list, dict or object read from a global or closure variable")."""
from pathlib import Path

import numpy as np
import pytest

import fwdad
from fwdad.dual import Dual
from fwdad.errors import FwdadError
from fwdad.forward.derive import build_rule
from tests.util import assert_close, central_gradient, fresh_module

W = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, 1.0, -0.4])


# ---- the programs --------------------------------------------------------------------
def _make_stash():  # (the fuzzer's "closure_store" pattern)
    store = {}

    def stash(a):
        store["a"] = a
        return store["a"] * 0.5 + np.sin(a)
    return stash


STASH = _make_stash()


def closure_store(w):
    return np.sum(STASH(w * w) * STASH(np.cos(w)))


TABLE = {}


def _put(w):
    TABLE["x"] = w * w
    TABLE.update(y=np.sin(w))


def _get():
    return np.sum(TABLE["x"] * TABLE["y"])


def written_in_one_helper_read_in_another(w):
    _put(w)
    return _get() * w[0]


STORE = []


def appended_and_cleared(w):
    STORE.clear()
    STORE.append(w[0] * 2.0)
    STORE.extend([np.tanh(w), w[2]])
    STORE.insert(0, w[1] ** 2)
    return STORE[0] * STORE[1] + np.sum(STORE[2]) * STORE[-1]


class Box:
    def __init__(self):
        self.v = 0.0
        self.a = np.zeros(3)
        self.items = []


BOX = Box()


def _read_box():
    return BOX.v * np.sum(BOX.a) + BOX.items[-1]


def fields_written(w):
    BOX.v = w[0] * 2.0
    BOX.items.append(np.exp(w[2]))
    out = _read_box() * w[1]
    BOX.items.clear()
    return out


def field_array_written(w):  # (reverse mode refuses it: a constant array written into)
    BOX.a[1:] = w[1:] ** 2
    return fields_written(w) * w[0]


NESTED = [[0.0], {"k": 0.0}]


def nested_items_written(w):
    NESTED[0][0] = w[0]
    NESTED[1]["k"] = w[1] * w[2]
    return NESTED[0][0] * NESTED[1]["k"] + w[0]


MEMO = {}
ALIAS = MEMO  # (a second name of the same dict: its reads are the one Dual too)


def set_by_default_then_popped(w):
    MEMO.pop("c", None)
    first = MEMO.setdefault("c", w[0] * 3.0)
    return first * ALIAS["c"] * w[1] + np.sum(w)


LOG = []
PUT = LOG.append  # (bound methods of objects written into by name: called with the
SEEN = {}  # Dual the derivative keeps for the object; PUT crashed before, SET gave a
LOOK = SEEN.get  # zero derivative with no error)


class Setter:
    def __init__(self):
        self.v = 0.0

    def set(self, v):
        self.v = v


SETTER = Setter()
SET = SETTER.set


def written_through_bound_methods(w):
    LOG.clear()
    SETTER.v = 0.0
    PUT(w[0] * w[1])
    SEEN["k"] = np.cos(w)
    SET(w[2] ** 2)
    return LOG[0] * np.sum(LOOK("k")) + SETTER.v * w[0]


PROGRAMS = [closure_store, written_in_one_helper_read_in_another, appended_and_cleared,
            fields_written, nested_items_written, set_by_default_then_popped,
            field_array_written, written_through_bound_methods]


FIRST_ORDER = {
    "jvp": lambda f: np.array([fwdad.jvp(f, (W,), (e,))[1] for e in np.eye(3)]),
    "jacfwd": lambda f: fwdad.jacfwd(f)(W),
    "linearize": lambda f: np.array([fwdad.linearize(f, W)[1](e) for e in np.eye(3)]),
    "jacrev": lambda f: fwdad.jacrev(f)(W),
}
SECOND_ORDER = {
    "hessian": lambda f, hessian: (fwdad.hessian(f)(W), hessian),
    "hvp": lambda f, hessian: (fwdad.hvp(f, (W,), (V,))[0], hessian @ V),
    "jacfwd_of_jacfwd": lambda f, hessian: (fwdad.jacfwd(fwdad.jacfwd(f))(W), hessian),
}


def _state():
    """The leaves of every object the programs write into (each must be plain)."""
    leaves = []
    todo = [STASH.__closure__[0].cell_contents, TABLE, STORE, vars(BOX), NESTED, MEMO, LOG,
            SEEN, vars(SETTER)]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo.extend(item[k] for k in sorted(item))
        elif isinstance(item, list):
            todo.extend(item)
        else:
            assert type(item) in (float, np.float64, np.ndarray), type(item)
            assert not isinstance(item, Dual)
            leaves.append(np.array(item, dtype=float))
    return leaves


def _leaves_plain_call_would(f):
    """The objects hold after a derivative exactly what a plain call leaves."""
    after = _state()
    f(W)
    plain = _state()
    assert len(after) == len(plain)
    for got, want in zip(after, plain):
        assert_close(got, want, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("how", sorted(FIRST_ORDER))
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_first_derivatives_stay_right_call_after_call(f, how):
    if f is field_array_written and how == "jacrev":
        with pytest.raises(FwdadError, match=r"x\[i\] = v in field_array_written at .*"
                                             r"a variable was written into a constant array"):
            FIRST_ORDER[how](f)
        return
    want = central_gradient(f, W)
    for _ in range(3):
        assert_close(FIRST_ORDER[how](f), want, rtol=1e-6, atol=1e-9)
        _leaves_plain_call_would(f)


@pytest.mark.parametrize("how", sorted(SECOND_ORDER))
@pytest.mark.parametrize("f", PROGRAMS[:-1], ids=lambda f: f.__name__)
def test_second_derivatives_stay_right_call_after_call(f, how):
    hessian = central_gradient(fwdad.jacfwd(f), W, h=1e-5)
    for _ in range(3):
        got, want = SECOND_ORDER[how](f, hessian)
        assert_close(got, want, rtol=1e-6, atol=1e-8)
        _leaves_plain_call_would(f)


@pytest.mark.parametrize("how", sorted(SECOND_ORDER))
def test_second_derivatives_through_bound_methods_are_refused(how):
    """A rule differentiated again reads the bound method itself, as a global: not
    followed (a limit), and refused at the user's line."""
    with pytest.raises(FwdadError, match=r"builtin_function_or_method that holds a "
                                         r"global or closure (dict|list) .* is read in "
                                         r"written_through_bound_methods at"):
        SECOND_ORDER[how](written_through_bound_methods, None)


ACC = {}


def accumulated_across_calls(w):
    ACC["s"] = ACC.get("s", 0.0) + w[0]
    return ACC["s"] ** 2


def test_the_next_derivative_starts_from_constants():
    """What one derivative left in the dict is a constant of the next: after the first
    call ACC holds w0, so the second's derivative is that of (w0 + w0') ** 2 at w0' =
    w0, 4 w0 v0 (a tangent left from the first call would have given 8 w0 v0)."""
    ACC.clear()
    assert fwdad.jvp(accumulated_across_calls, (W,), (V,))[1] == pytest.approx(2 * W[0] * V[0])
    assert fwdad.jvp(accumulated_across_calls, (W,), (V,))[1] == pytest.approx(4 * W[0] * V[0])
    assert type(ACC["s"]) is np.float64 and ACC["s"] == pytest.approx(2 * W[0])


# ---- refused: objects fwdad cannot follow through the name alone ---------------------
ALSO_AN_ARGUMENT = {"x": W.copy()}


def writes_the_dict_given_as_its_argument(d):
    ALSO_AN_ARGUMENT["x"] = d["x"] * 2.0
    return np.sum(d["x"] * ALSO_AN_ARGUMENT["x"])


@pytest.mark.parametrize("inside", [False, True], ids=["itself", "in a list"])
def test_the_dict_given_as_an_argument_too_is_refused(inside):
    """The argument's Dual and the one the derivative keeps for the global were two: the
    write through the global's name did not reach the argument's tangent."""
    f = writes_the_dict_given_as_its_argument
    args, tangents = (ALSO_AN_ARGUMENT,), ({"x": V},)
    if inside:
        f, args, tangents = (lambda a: writes_the_dict_given_as_its_argument(a[0])), \
            ([ALSO_AN_ARGUMENT],), ([{"x": V}],)
    try:
        with pytest.raises(FwdadError, match=r"a global or closure container that the "
                                             r"differentiated code writes into \(a dict\) "
                                             r"is also given as an argument .*in writes_the_"
                                             r"dict_given_as_its_argument at .*x\.copy\(\)"):
            fwdad.jvp(f, args, tangents)
    finally:
        ALSO_AN_ARGUMENT["x"] = W.copy()


def _fresh_holders(name):
    """tests/forward/written_container_holders.py loaded anew: its dicts are ones fwdad
    has not met yet."""
    return fresh_module(Path(__file__).with_name("written_container_holders.py"),
                        f"written_container_holders_{name}")


@pytest.mark.parametrize("before", [False, True], ids=["", "reader built first"])
@pytest.mark.parametrize("reader, holder", [
    ("read_list", "a list that holds"), ("read_box", "a Box that holds"),
    ("read_values", "a dict_values that holds"), ("read_default", "a list that holds"),
    ("read_bound", "a builtin_function_or_method that holds")],
    ids=["list", "field", "values view", "default", "bound method"])
def test_a_read_through_another_holder_of_the_dict_is_refused(reader, holder, before):
    """The holder's zero tangent missed what the write through the dict's name put in
    the dict's Dual: a zero derivative, with no error. Read first (optimized, taking
    the holder for a constant), the reader's rule is dropped when fwdad meets the
    writer."""
    module = _fresh_holders(f"{reader}_{before}")
    read = getattr(module, reader)
    if before:
        fwdad.jvp(read, (W,), (V,))
    with pytest.raises(FwdadError, match=holder + r" a global or closure dict that the "
                                                  r"differentiated code writes into by name "
                                                  r"is read in " + reader):
        fwdad.jvp(module.written_then(read, module.write_held), (W,), (V,))


def test_a_reader_optimized_before_the_writer_was_met_is_built_again():
    """The reader's rule, built first, takes the dict for a constant (optimized); f's
    rule, built next, meets the writer before any rule runs, and the reader's rule is
    dropped and built again."""
    module = _fresh_holders("optimized_reader")
    fwdad.jvp(module.read_first, (W,), (V,))
    assert build_rule(module.read_first).source.startswith("# optimized")  # (the case)
    f = module.written_then_read
    for _ in range(3):
        assert fwdad.jvp(f, (W,), (V,))[1] == pytest.approx(central_gradient(f, W) @ V, rel=1e-6)
        assert_close(fwdad.jacfwd(f)(W), central_gradient(f, W), rtol=1e-6)
    assert not build_rule(module.read_first).source.startswith("# optimized")


def test_a_writer_met_while_a_reader_that_took_the_dict_for_a_constant_runs():
    """read_first's rule (optimized: FIRST a constant then) has run in this derivative
    when fwdad meets write_first, passed as an argument: that derivative is refused, the
    rules are dropped, and every call after is right."""
    module = _fresh_holders("met_late")
    f, write = module.read_twice_around, module.write_first
    with pytest.raises(FwdadError, match=r"a global or closure container that the "
                                         r"differentiated code writes into \(a dict\) only "
                                         r"in the middle of a derivative .*the next call is "
                                         r"right"):
        fwdad.jvp(f, (W, write), (V, None))
    for _ in range(3):
        module.FIRST["a"] = W ** 2  # (read before the write: a constant of the derivative)
        assert fwdad.jvp(f, (W, write), (V, None))[1] == pytest.approx(4 * W ** 2 @ V)


def test_sparsity_detection_follows_the_dict():
    """Detection is one derivative too: the sets written into the dict are read back
    (refused before)."""
    for mode in ("local", "global"):
        pattern = fwdad.jacobian_sparsity(closure_store, W, mode=mode).toarray()
        assert (pattern == (fwdad.jacfwd(closure_store)(W) != 0)).all()


def stored_once(w):
    return np.sum(STASH(w * w) * np.cos(w))


def test_threads_keep_their_own_derivatives():
    """The Dual a derivative keeps for the dict is its thread's (forward/defaults.py's
    thread-local): two threads differentiating the same program at once along different
    tangents each get their own derivative. (The dict's keys are in place before: a key
    one thread adds while another's derivative holds the dict is refused, as a change
    made outside it. The dict itself is the user's, shared by the threads: the program
    writes it once, with the same value in every thread, so that no thread reads a
    value another wrote in between, which would be a race in the program itself;
    closure_store, which writes two values, gave such reads on Python 3.13.)"""
    import threading
    stored_once(W)
    want = central_gradient(stored_once, W)
    results, errors = {}, []

    def work(k):
        try:
            results[k] = [fwdad.jvp(stored_once, (W,), (np.eye(3)[k],))[1]
                          for _ in range(30)]
        except Exception as exc:  # (reported below, with the thread's index)
            errors.append((k, exc))
    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(3):
        assert_close(np.array(results[k]), np.full(30, want[k]), rtol=1e-6)
