"""A dict written into by name, which other objects hold too, and one that a reader
takes for a constant before fwdad meets its writer: loaded anew by each test of
test_written_containers.py that uses it (a module of its own each time)."""
import numpy as np

HELD = {"a": np.zeros(3)}
IN_A_LIST = [HELD]
VALUES = HELD.values()
GET = HELD.__getitem__  # (a C method with no rule: called as a constant)


class Box:
    def __init__(self, d):
        self.d = d


IN_A_BOX = Box(HELD)


def write_held(w):
    HELD["a"] = w * w


def read_list(w):
    return np.sum(IN_A_LIST[0]["a"] * w)


def read_box(w):
    return np.sum(IN_A_BOX.d["a"] * w)


def read_values(w):
    return sum(np.sum(v * w) for v in VALUES)


def read_bound(w):
    return np.sum(GET("a") * w)


def read_default(w, kept=[HELD]):  # noqa: B006
    return np.sum(kept[0]["a"] * w)


def written_then(read, write):
    def f(w):
        write(w)
        return read(w)
    return f


FIRST = {"a": np.zeros(3)}


def read_first(w):
    return np.sum(FIRST["a"] * w)


def write_first(w):
    FIRST["a"] = w * w


def written_then_read(w):
    write_first(w)
    return read_first(w)


def read_twice_around(w, write):
    r = read_first(w)
    write(w)
    return read_first(w) + r
