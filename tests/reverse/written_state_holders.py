"""Arrays written into by name that other objects hold too, for test_written_state.py:
loaded anew by each test that uses it (a module of its own, whose arrays fwdad has not
met yet)."""
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


def read_held(w):
    return np.sum(HELD * w)


def read_named_then_written(w):
    a = read_alias()  # (HELD read by name before fwdad knows that it is written)
    write_held(w)
    return np.sum(a * w)


def read_alias():
    return HELD
