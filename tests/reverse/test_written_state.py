"""Reverse mode over a mutable default array, or a global or closure array written by
name (fwdad/reverse/state.py): within one pass every read of it is one variable, made
from a copy of its value at the first read; after the pass it holds what a plain call
leaves; the next derivative starts from a constant. Each program runs three times in a
row in each reverse transformation, against central differences, and grad against jvp
by the dot-product test. All of these were refused before ("a variable was written into
a constant array"), except the refusals at the end, which are new."""
from pathlib import Path

import numpy as np
import pytest

import fwdad
from fwdad.errors import FwdadError
from tests.forward import test_written_globals as forward_programs
from tests.util import assert_close, central_gradient, fresh_module

W = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, 1.0, -0.4])


# ---- the programs (the forward tests' ones, and mutable default arrays) --------------
def _buffer_default(a, buf=np.zeros(3)):  # (the fuzzer's "buffer_default" pattern)
    buf[...] = a
    buf *= 0.5
    return buf + np.cos(a) * 0.1


def buffer_default(w):
    return np.sum(_buffer_default(np.sin(w)) * w)


def _into_default(a, out=np.zeros(3)):
    out[1:] = a[1:] * a[0]
    out[0] = np.sum(a)
    return out


def _read_default_again(out=_into_default.__defaults__[0]):
    return out * 1.0  # (the same array, a default of another function too)


def default_read_by_another_function(w):
    kept = _into_default(w)  # (the pass's variable itself: a later write reaches it)
    first = np.sum(np.tanh(_read_default_again()) * w)
    _into_default(w * w)
    return first + np.sum(kept * w)


def _default_in_a_loop(a, acc=np.zeros(3)):
    acc[...] = 0.0
    for i in range(3):
        acc += a * a[i]
    return np.sum(acc ** 2)


def default_in_a_loop(w):
    return _default_in_a_loop(w) + _default_in_a_loop(np.cos(w))


PROGRAMS = forward_programs.PROGRAMS + [buffer_default, default_read_by_another_function,
                                        default_in_a_loop]


REVERSE = {
    "grad": lambda f: fwdad.grad(f)(W),
    "vjp": lambda f: fwdad.vjp(f, W)[1](1.0)[0],
    "jacrev": lambda f: fwdad.jacrev(f)(W),
}  # (linearize and its transpose are forward mode's: tests/forward/test_written_globals.py)


@pytest.mark.parametrize("how", sorted(REVERSE))
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_gradients_stay_right_call_after_call(f, how):
    want = central_gradient(f, W)
    for _ in range(3):
        assert_close(REVERSE[how](f), want, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_grad_matches_jvp_by_the_dot_product_test(f):
    assert fwdad.grad(f)(W) @ V == pytest.approx(fwdad.jvp(f, (W,), (V,))[1], rel=1e-10)


def test_matvar_layout():
    with fwdad.reverse.layout("matvar"):
        for f in (buffer_default, forward_programs.scratch_in_a_helper):
            assert_close(fwdad.grad(f)(W), central_gradient(f, W), rtol=1e-6, atol=1e-9)


def test_hvp_and_hessian():
    """(By forward over forward still: forward over reverse hands such a function on.)"""
    f = buffer_default
    hessian = central_gradient(fwdad.grad(f), W, h=1e-5)
    assert_close(fwdad.hessian(f)(W), hessian, rtol=1e-6, atol=1e-8)
    assert_close(fwdad.hvp(f, (W,), (V,))[0], hessian @ V, rtol=1e-6, atol=1e-8)


# ---- the user's array after the pass, the next pass, a later pullback ----------------
def _state_after(run):
    """The default and global arrays after `run` (they start from zeros)."""
    forward_programs.SCRATCH[...] = 0.0
    _into_default.__defaults__[0][...] = 0.0
    run()
    return forward_programs.SCRATCH.copy(), _into_default.__defaults__[0].copy()


def _both(w):
    return forward_programs.scratch_in_a_helper(w) + default_read_by_another_function(w)


@pytest.mark.parametrize("how", sorted(REVERSE))
def test_the_array_holds_what_a_plain_call_leaves(how):
    want = _state_after(lambda: _both(W))
    assert np.any(want[0]) and np.any(want[1])
    got = _state_after(lambda: REVERSE[how](_both))
    assert_close(got, want, rtol=0, atol=0)
    assert forward_programs.SCRATCH.flags.writeable  # (still the user's, as it was)


KEPT = np.zeros(3)


def accumulated_across_calls(w):
    KEPT[...] += w
    return np.sum(KEPT * KEPT)


def test_the_next_derivative_starts_from_a_constant():
    """What one pass left in KEPT is a constant of the next: the second gradient is
    that of sum((w + w') ** 2) at w' = w, 4 w (8 w if the first pass's variable were
    still read)."""
    KEPT[...] = 0.0
    assert_close(fwdad.grad(accumulated_across_calls)(W), 2 * W)
    assert_close(fwdad.grad(accumulated_across_calls)(W), 4 * W)
    assert_close(fwdad.jacrev(accumulated_across_calls)(W), 6 * W)
    assert_close(KEPT, 3 * W)


def test_a_pullback_runs_later_and_twice_whatever_the_array_holds_then():
    f = default_read_by_another_function
    want = central_gradient(f, W) * 2.0
    value, pullback = fwdad.vjp(f, W)
    _into_default.__defaults__[0][...] = 99.0  # (the tape keeps copies)
    assert_close(pullback(2.0)[0], want, rtol=1e-6, atol=1e-9)
    forward_programs.SCRATCH[...] = -5.0
    assert_close(pullback(2.0)[0], want, rtol=1e-6, atol=1e-9)
    assert value == pytest.approx(f(W))


def test_the_default_is_a_constant_outside_derivatives():
    """A plain call after a gradient computes with plain arrays, as before."""
    fwdad.grad(buffer_default)(W)
    assert type(_buffer_default.__defaults__[0]) is np.ndarray
    assert buffer_default(W) == pytest.approx(np.sum((0.5 * np.sin(W) + 0.1 * np.cos(
        np.sin(W))) * W))


# ---- refused: holders fwdad cannot follow --------------------------------------------
def _fresh_holders(name):
    """tests/forward/written_holders.py (the arrays both modes' tests use) loaded anew."""
    return fresh_module(Path(__file__).parent.parent / "forward" / "written_holders.py",
                        f"written_state_holders_{name}")


@pytest.mark.parametrize("how", ["grad", "jacrev"])
@pytest.mark.parametrize("reader, holder", [
    ("read_list", "a list"), ("read_view", "an (ndarray that is,|array that shares)"),
    ("read_box", "a Box"), ("read_default", "a list")],
                         ids=["list", "view", "field", "default"])
def test_a_read_through_another_holder_of_the_array_is_refused(reader, holder, how):
    """The holder kept the array's old value (the pass's variable has the new one):
    a wrong derivative and value, with no error. (Reverse mode reads a default on entry,
    so it names the line that calls read_default.)"""
    module = _fresh_holders(f"{reader}_{how}")
    module.write_held(W)  # (fwdad knows the array is written once a rule of this is built)
    fwdad.grad(module.read_held)(W)
    f = module.written_then(getattr(module, reader), module.write_held)
    with pytest.raises(FwdadError, match=holder + r" .*a global or "
                                                  r"closure array that the differentiated "
                                                  r"code writes into by name is read in (" +
                                                  reader + r"|written_then.<locals>.f) at "
                                                  r".*written_holders\.py:\d+"):
        REVERSE[how](f)


ALSO_AN_ARGUMENT = np.array([0.3, -0.7, 1.1])


def writes_the_global_given_as_its_argument(a):
    ALSO_AN_ARGUMENT[...] = a * 2.0
    return np.sum(ALSO_AN_ARGUMENT * a)


def _first_of(a):
    return writes_the_global_given_as_its_argument(a[0])


@pytest.mark.parametrize("argument", [ALSO_AN_ARGUMENT, ALSO_AN_ARGUMENT[1:],
                                      [ALSO_AN_ARGUMENT]],
                         ids=["itself", "a view", "in a list"])
def test_the_array_given_as_an_argument_too_is_refused(argument):
    """The argument's variable and the one the pass keeps for the global were two."""
    saved = ALSO_AN_ARGUMENT.copy()
    f = _first_of if isinstance(argument, list) else writes_the_global_given_as_its_argument
    try:
        with pytest.raises(FwdadError, match=r"is also given as an argument .*of the "
                                             r"function differentiated in writes_the_"
                                             r"global_given_as_its_argument at .*x\.copy"):
            fwdad.vjp(f, argument)
    finally:
        ALSO_AN_ARGUMENT[...] = saved


def test_a_name_read_before_fwdad_knew_the_array_is_written_is_refused_once():
    """read_alias's read of HELD, before write_held's rule was built (the first pass),
    was of the plain array, which the write through the name does not change: refused;
    fwdad knows the array then, and the next pass is right."""
    module = _fresh_holders("late")
    f = module.read_named_then_written
    with pytest.raises(FwdadError, match=r"only in the middle of a reverse pass in "
                                         r"write_held at .*the next call is right"):
        fwdad.grad(f)(W)
    for _ in range(2):
        assert_close(fwdad.grad(f)(W), central_gradient(f, W), rtol=1e-6, atol=1e-9)


# ---- threads: each pass keeps its own variables --------------------------------------
def test_passes_in_two_threads_keep_their_own_variables():
    """Each thread's pass (its own tape region) makes its own variable of the default;
    the function writes the default before reading it, so each gradient is right."""
    import threading
    points = [W * (1.0 + 0.1 * k) for k in range(8)]
    got = {}

    def run(k):
        for _ in range(5):
            got[k] = fwdad.grad(buffer_default)(points[k])

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(points))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, x in enumerate(points):
        assert_close(got[k], central_gradient(buffer_default, x), rtol=1e-6, atol=1e-9)
