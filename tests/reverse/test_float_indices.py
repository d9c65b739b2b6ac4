"""A float used as an index: both modes raise NumPy's (or Python's) own error, with a
note naming the user's line. Reverse mode raised the variable's refusal of np.asarray
(`a VarMat was turned into a plain number or array`), or `not Var` for a list."""
import numpy as np
import pytest

import fwdad

_MASK = np.array([True, False, True])


def _ix_of_argument(A, s):
    return A[np.ix_(_MASK, np.array([s, s]))].sum()


def _ix_of_constant(A, s):
    cols = np.array([0.0, 1.0])  # a float array made inside: a variable in reverse mode
    return A[np.ix_(_MASK, cols)].sum() * s


def _array_of_floats(A, s):
    return A[np.array([s, s])].sum()


def _list_index(A, s):
    return [1.0, 2.0][s] * A[0, 0]


def _written_at_ix(A, s):
    B = A.copy()
    B[np.ix_(_MASK, np.array([s]))] = 1.0
    return B.sum()


_MODES = {
    "jvp": lambda f, A, s: fwdad.jvp(f, (A, s), (np.ones_like(A), 1.0)),
    "vjp": lambda f, A, s: fwdad.vjp(f, A, s),
    "jacrev of A": lambda f, A, s: fwdad.jacrev(f, argnums=0)(A, s),
}


@pytest.mark.parametrize("mode", list(_MODES))
@pytest.mark.parametrize("f", [_ix_of_argument, _ix_of_constant, _array_of_floats,
                               _list_index, _written_at_ix], ids=lambda f: f.__name__)
def test_a_float_index_raises_what_numpy_raises_at_the_users_line(f, mode):
    A, s = np.arange(9.0).reshape(3, 3), 1.0
    with pytest.raises((IndexError, TypeError)) as plain:
        f(A, s)
    with pytest.raises(type(plain.value)) as caught:
        _MODES[mode](f, A, s)
    assert str(caught.value) == str(plain.value)
    assert plain.traceback[-1].lineno + 1 == _raising_line(caught.value)


def _raising_line(exc):
    """The user's line that the note of `exc` names."""
    notes = [n for n in getattr(exc, "__notes__", ()) if "test_float_indices.py:" in n]
    assert notes, getattr(exc, "__notes__", None)
    return int(notes[0].rsplit(":", 1)[1])
