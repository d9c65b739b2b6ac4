"""A global or closure float array that the code writes into by name holds a
derivative within one derivative, as a mutable default does (forward/written_globals.py):
every read of it in that derivative is one Dual, whose tangent starts at zero. Each
program runs three times in a row in each forward transformation, checked against
central differences (of f, or of jacfwd(f) for second derivatives). Every one of them
was refused before ("an array that fwdad reads as a constant")."""
from pathlib import Path

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from fwdad.forward.derive import build_rule
from tests.forward import written_globals_config as config
from tests.util import assert_close, central_gradient, fresh_module

W = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, 1.0, -0.4])


# ---- the programs --------------------------------------------------------------------
SCRATCH = np.zeros(3)


def _scratch_helper(a):  # (the fuzzer's "global_scratch" pattern)
    SCRATCH[...] = a
    return SCRATCH * 2.0


def scratch_in_a_helper(w):
    return np.sum(_scratch_helper(np.sin(w)) * w)


BUF = np.zeros(3)


def _put(a):
    BUF[...] = a * a


def _get():
    return np.sum(BUF * BUF)


def written_in_one_helper_read_in_another(w):
    _put(w)
    return _get() * w[0]


ROWS = np.zeros((3, 3))


def rows_written_in_a_loop(w):
    for i in range(3):
        ROWS[i] = w * w[i]
    return np.sum(np.tanh(ROWS))


VIEWED = np.zeros(3)


def read_through_a_view_taken_after_the_write(w):
    VIEWED[...] = w ** 2
    v = VIEWED[1:]
    return np.sum(v * w[1:]) + VIEWED[0] * w[2]


HELD = np.zeros(3)


def named_before_the_write(w):
    a = HELD  # (another name for the one array: it sees the write)
    HELD[0] = w[0] * w[1]
    HELD[1:] = np.cos(w[1:])
    return a[0] * np.sum(a)


ACC = np.zeros(3)


def updated_in_place(w):
    ACC[...] = 1.0
    ACC[...] += w * w
    ACC[1:] *= w[:2]
    return np.sum(ACC * w)


AUGMENTED = np.zeros(3)


def augmented_as_a_global(w):
    global AUGMENTED  # (`AUGMENTED += v` stores the array, updated in place, back)
    AUGMENTED[...] = 1.0
    AUGMENTED += w * w
    AUGMENTED *= w
    return np.sum(AUGMENTED * w)


OUT = np.zeros(3)
FILLED = np.zeros(3)


def written_by_numpy_and_a_method(w):
    np.multiply(w, w, out=OUT)
    FILLED.fill(w[2])
    return np.sum(OUT * FILLED) + np.sum(np.sin(OUT))


def _make_step():
    buf = np.zeros(3)

    def step(a):
        buf[...] = a
        return np.sum(buf ** 2)
    return step


STEP = _make_step()


def written_in_a_closure(w):
    return STEP(np.sin(w)) * w[2]


PROGRAMS = [scratch_in_a_helper, written_in_one_helper_read_in_another,
            rows_written_in_a_loop, read_through_a_view_taken_after_the_write,
            named_before_the_write, updated_in_place, augmented_as_a_global,
            written_by_numpy_and_a_method,
            written_in_a_closure]


FIRST_ORDER = {
    "jvp": lambda f: np.array([fwdad.jvp(f, (W,), (e,))[1] for e in np.eye(3)]),
    "jacfwd": lambda f: fwdad.jacfwd(f)(W),
    "linearize": lambda f: np.array([fwdad.linearize(f, W)[1](e) for e in np.eye(3)]),
    "linearize_transposed": lambda f: fwdad.linearize(f, W)[1].T(1.0)[0],
}
SECOND_ORDER = {
    "hessian": lambda f, hessian: (fwdad.hessian(f)(W), hessian),
    "hvp": lambda f, hessian: (fwdad.hvp(f, (W,), (V,))[0], hessian @ V),
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
    hessian = central_gradient(fwdad.jacfwd(f), W, h=1e-5)
    for _ in range(3):
        got, want = SECOND_ORDER[how](f, hessian)
        assert_close(got, want, rtol=1e-6, atol=1e-8)


KEPT = np.zeros(3)


def accumulated_across_calls(w):
    KEPT[...] += w
    return np.sum(KEPT * KEPT)


def test_the_next_derivative_starts_from_a_zero_tangent():
    """What one derivative left in the array is a constant of the next: after the first
    call KEPT holds w, so the second's derivative is that of sum((w + w') ** 2) at w' =
    w, 4 w . v (a tangent left from the first call would have given 8 w . v)."""
    KEPT[...] = 0.0
    assert fwdad.jvp(accumulated_across_calls, (W,), (V,))[1] == pytest.approx(2 * W @ V)
    assert fwdad.jvp(accumulated_across_calls, (W,), (V,))[1] == pytest.approx(4 * W @ V)
    # one batched pass (jacfwd runs f once a pass): KEPT holds 2 w before it
    assert_close(fwdad.jacfwd(accumulated_across_calls, chunk_size=3)(W), 6 * W)
    assert_close(KEPT, 3 * W)


# ---- refused: writes the scan does not see -------------------------------------------
PASSED = np.zeros(3)


def _fill(a, x):
    a[...] = x


def written_through_a_parameter(w):
    _fill(PASSED, w * w)  # (PASSED is not written by name: read as a constant)
    return np.sum(PASSED * w)


@pytest.mark.parametrize("how", ["jvp", "jacfwd", "hessian"])
def test_a_write_through_a_parameter_is_refused_at_the_users_line(how):
    calls = {"jvp": lambda: fwdad.jvp(written_through_a_parameter, (W,), (V,)),
             "jacfwd": lambda: fwdad.jacfwd(written_through_a_parameter)(W),
             "hessian": lambda: fwdad.hessian(written_through_a_parameter)(W)}
    with pytest.raises(FwdadError, match=r"x\[i\] = v in _fill at .*test_written_globals"
                                         r"\.py:\d+: a value with a derivative was written "
                                         r"into an array that fwdad reads as a constant "
                                         r"\(the global or closure variable `PASSED`\)"):
        calls[how]()


def _make_passing():
    kept = np.zeros(3)

    def h(w):
        _fill(kept[1:], w[1:])  # (a view of the closure's array, through a parameter)
        return np.sum(kept * w)
    return h


def test_the_refusal_names_the_closure_variable_whose_array_is_written():
    with pytest.raises(FwdadError, match=r"in _fill at .*reads as a constant \(the global "
                                         r"or closure variable `kept`\)"):
        fwdad.jvp(_make_passing(), (W,), (V,))


def test_sparsity_detection_follows_the_array_in_local_mode():
    """Detection is one derivative (forward/defaults.begin_derivative) now: the sets
    written into the array are read back (refused before, at the write). The pattern
    is that of the Jacobian, a diagonal."""
    f = lambda w: _scratch_helper(np.sin(w))  # noqa: E731
    pattern = fwdad.jacobian_sparsity(f, W).toarray()
    assert (pattern == (fwdad.jacfwd(f)(W) != 0)).all() and pattern.sum() == 3


def test_sparsity_detection_refuses_it_in_global_mode_at_the_users_line():
    with pytest.raises(FwdadError, match=r"mode='global'.*in _scratch_helper at "
                                         r".*test_written_globals\.py:\d+"):
        fwdad.jacobian_sparsity(lambda w: _scratch_helper(np.sin(w)), W, mode="global")


# ---- rules built before fwdad knew the array was written: dropped, or refused once ---
FIRST = np.zeros(3)


def _read_first(w):
    return np.sum(FIRST * w)


def _write_first(w):
    FIRST[...] = w * w


def written_then_read(w):
    _write_first(w)
    return _read_first(w)


def _make_pair():
    buf = np.zeros(3)

    def read(w):
        return np.sum(buf * w)

    def write(w):
        buf[...] = w * w
    return read, write


READ_CELL, WRITE_CELL = _make_pair()


def written_then_read_in_a_closure(w):
    WRITE_CELL(w)
    return READ_CELL(w)


def _read_config(w):
    return np.sum(config.BUF * w)


def written_then_read_through_a_module(w):
    config.write(w)
    return _read_config(w)


@pytest.mark.parametrize("reader, f", [
    (_read_first, written_then_read), (READ_CELL, written_then_read_in_a_closure),
    (_read_config, written_then_read_through_a_module)], ids=["global", "closure", "module"])
def test_a_reader_optimized_before_the_writer_was_met_is_built_again(reader, f):
    """The reader's rule, built first, takes the array for a constant (optimized: no
    tangent for it); f's rule, built next, meets the writer before any rule runs, and
    the reader's rule is dropped and built again. The closure and the module attribute
    gave half the derivative with no error (their reads were not noted as constants)."""
    fwdad.jvp(reader, (W,), (V,))
    assert build_rule(reader).source.startswith("# optimized")  # (the case to test)
    for _ in range(3):
        assert fwdad.jvp(f, (W,), (V,))[1] == pytest.approx(central_gradient(f, W) @ V, rel=1e-6)
        assert_close(fwdad.jacfwd(f)(W), central_gradient(f, W), rtol=1e-6)
    assert not build_rule(reader).source.startswith("# optimized")


LATE = np.zeros(3)


def _read_late(w):
    return np.sum(LATE * w)


def _write_late(w):
    LATE[...] = w * w


def written_by_a_helper_passed_in(w, write):
    r = _read_late(w)
    write(w)
    return _read_late(w) + r


def test_a_writer_met_while_a_reader_that_took_the_array_for_a_constant_runs():
    """_read_late's rule (optimized: LATE is a constant then) has run in this derivative
    when fwdad meets _write_late, passed as an argument: that derivative is refused, the
    rules are dropped, and every call after is right."""
    f = written_by_a_helper_passed_in
    with pytest.raises(FwdadError, match=r"a global or closure array that the "
                                         r"differentiated code writes into \(an ndarray\) "
                                         r"only in the middle of a derivative .*the next "
                                         r"call is right"):
        fwdad.jvp(f, (W, _write_late), (V, None))
    for _ in range(3):
        LATE[...] = W ** 2  # (read before the write: a constant, w^2, of the derivative)
        want = 4 * W ** 2 @ V
        assert fwdad.jvp(f, (W, _write_late), (V, None))[1] == pytest.approx(want, rel=1e-9)


ALSO_AN_ARGUMENT = np.array([0.3, -0.7, 1.1])


def writes_the_global_given_as_its_argument(a):
    ALSO_AN_ARGUMENT[...] = a * 2.0
    return np.sum(a * a)


@pytest.mark.parametrize("argument", [ALSO_AN_ARGUMENT, ALSO_AN_ARGUMENT[1:], [ALSO_AN_ARGUMENT]],
                         ids=["itself", "a view", "in a list"])
def test_the_array_given_as_an_argument_too_is_refused(argument):
    """The argument's Dual and the one the derivative keeps for the global were two: the
    write through the global's name did not reach the argument's tangent (1.2, not
    f(G) = 4 sum(G^2)'s 2.4 along e0), with no error."""
    saved = ALSO_AN_ARGUMENT.copy()
    tangent = [np.ones(3)] if isinstance(argument, list) else np.ones_like(argument)
    f = writes_the_global_given_as_its_argument
    try:
        with pytest.raises(FwdadError, match=r"a global or closure array that the "
                                             r"differentiated code writes into \(an ndarray\) "
                                             r"is also given as an argument .*in writes_the_"
                                             r"global_given_as_its_argument at .*x\.copy\(\)"):
            fwdad.jvp(f if not isinstance(argument, list) else lambda a: f(a[0]),
                      (argument,), (tangent,))
    finally:
        ALSO_AN_ARGUMENT[...] = saved


# ---- other objects that hold such an array: their reads are refused ------------------
def _fresh_holders(name):
    """tests/forward/written_holders.py loaded anew: its array is one fwdad has not met."""
    return fresh_module(Path(__file__).with_name("written_holders.py"),
                        f"written_holders_{name}")


@pytest.mark.parametrize("before", [False, True], ids=["", "reader built first"])
@pytest.mark.parametrize("reader, holder", [("read_list", "a list"),
                                            ("read_view", "an array that shares"),
                                            ("read_box", "a Box"), ("read_default", "a list"),
                                            ("read_whole", "an array that shares")],
                         ids=["list", "view", "field", "default", "base"])
def test_a_read_through_another_holder_of_the_array_is_refused(reader, holder, before):
    """The holder's zero tangent missed what the write through the array's name put in
    the array's Dual: half the derivative, with no error. Read first (optimized, taking
    the holder for a constant), the reader's rule is dropped when fwdad meets the
    writer."""
    module = _fresh_holders(f"{reader}_{before}")
    read = getattr(module, reader)
    if before:
        fwdad.jvp(read, (W,), (V,))
    with pytest.raises(FwdadError, match=holder + r".* a global or closure array that the "
                                                  r"differentiated code writes into by name "
                                                  r"is read in " + reader):
        fwdad.jvp(module.written_then(read, module.write_row if reader == "read_whole"
                                      else module.write_held), (W,), (V,))
