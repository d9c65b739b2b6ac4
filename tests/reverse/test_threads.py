"""jvp and grad (vjp) from 8 threads at once, on 40 different functions, each result
checked against central finite differences: the tape, the dynamic-call caches and the
rule caches are shared by threads or private to each as they must be (the tape's
regions are per thread: fwdad/reverse/tape.py)."""
import threading
import types

import numpy as np
import pytest

import fwdad
from fwdad.tangents import NoTangent, inner, random_tangent
from tests.corpus import CORPUS
from tests.numpy.programs import PROGRAMS
from tests.reverse.examples import EXAMPLES
from tests.util import fd_jvp

THREADS, ROUNDS = 8, 2
X = np.array([0.3, -1.2, 0.5, 2.0, 0.9, -0.4, 1.1, 0.2])


def _fresh(fn):
    """A new function object with fn's code: its derived rules are built anew, so the
    threads race to build them too (the caches key rules by function object)."""
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)


def _rows():
    rows = [(e.fn, e.args, True) for e in CORPUS] + list(EXAMPLES)
    rows += [(p, (X[:6].copy() if "matrix" not in p.__name__ else X.copy(),), True)
             for p in PROGRAMS]
    return [(_fresh(fn), args, forward) for fn, args, forward in rows[:40]]


def _expected(fn, args, seed):
    """The direction, the output cotangent, the finite-difference JVP, all fixed
    before the threads start."""
    rng = np.random.default_rng(seed)
    out = fn(*[_copy(a) for a in args])
    direction = [random_tangent(a, rng) for a in args]
    return direction, random_tangent(out, rng), fd_jvp(fn, [_copy(a) for a in args],
                                                       direction)


def _copy(a):
    import copy
    return copy.deepcopy(a)


def _check(row, expected, errors):
    (fn, args, forward), (direction, ct, want) = row, expected
    try:
        if forward:
            _, tangent = fwdad.jvp(fn, [_copy(a) for a in args], direction)
            assert np.allclose(inner(ct, tangent), inner(ct, want), rtol=1e-5, atol=1e-7)
        _, pullback = fwdad.vjp(fn, *[_copy(a) for a in args])
        cts = pullback(ct)
        left = inner(list(cts), [d if d is not NoTangent else NoTangent for d in direction])
        assert np.isclose(left, inner(ct, want), rtol=1e-5, atol=1e-7), fn.__name__
    except BaseException as exc:  # noqa: B902 (reported from the main thread)
        errors.append((fn.__name__, exc))


def test_jvp_and_grad_from_eight_threads():
    rows = _rows()
    assert len(rows) == 40
    expected = [_expected(fn, args, i) for i, (fn, args, _) in enumerate(rows)]
    errors, start = [], threading.Barrier(THREADS)

    def work(k):
        start.wait()
        order = np.random.default_rng(k).permutation(len(rows))
        for _ in range(ROUNDS):
            for i in order:
                _check(rows[i], expected[i], errors)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]


@pytest.mark.parametrize("k", range(4))
def test_each_thread_has_its_own_regions(k):
    from fwdad.reverse import tape
    seen = []

    def inside(x):
        seen.append(len(tape.regions()))
        return x * x
    threads = [threading.Thread(target=fwdad.grad(inside), args=(1.0 + i,))
               for i in range(k + 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [2] * (k + 2) and len(tape.regions()) == 1
