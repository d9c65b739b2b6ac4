"""An array written into by name, which other objects hold too: loaded anew by each test
of tests/forward/test_written_globals.py and tests/reverse/test_written_state.py that
uses it (a module of its own each time)."""
import numpy as np

HELD = np.zeros(3)
IN_A_LIST = [HELD]
A_VIEW = HELD[1:]


class Box:
    def __init__(self, a):
        self.a = a


IN_A_BOX = Box(HELD)


def write_held(w):
    HELD[...] = w * w


def read_list(w):
    return np.sum(IN_A_LIST[0] * w)


def read_view(w):
    return np.sum(A_VIEW * w[1:])


def read_box(w):
    return np.sum(IN_A_BOX.a * w)


def read_default(w, kept=[HELD]):  # noqa: B006
    return np.sum(kept[0] * w)


def written_then(read, write):
    def f(w):
        write(w)
        return read(w)
    return f


WHOLE = np.zeros((2, 3))
ROW = WHOLE[0]  # (the array written into is a view of another global)


def write_row(w):
    ROW[...] = w * w


def read_whole(w):
    return np.sum(WHOLE[0] * w)


def read_held(w):
    return np.sum(HELD * w)


def read_named_then_written(w):
    a = read_alias()  # (HELD read by name before fwdad knows that it is written)
    write_held(w)
    return np.sum(a * w)


def read_alias():
    return HELD
