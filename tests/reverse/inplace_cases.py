"""Functions that update arrays, lists and objects in place: the rows for setitem,
delitem, list.append, setattr, delattr, build_set and the in-place operators."""
from __future__ import annotations

import operator

import numpy as np

from fwdad import lang
from tests.reverse.cases import V4, A, B


def set_slice(a, x):
    b = a * 1.0
    b[1:3] = x
    return b


def set_input(a, x):
    a[0] = x
    return np.sum(a * a)


def set_row(m, r):
    m[1] = r
    return m


def set_fancy(a, x):
    b = a * 1.0
    b[[0, 2]] = x * 2.0
    return b


def shift(a):
    a[1:] = a[:-1]
    return a


def add_to_slice(a, x):
    a[1:3] += x
    return a * a


def scale_all(a, y):
    a *= y
    a /= 2.0
    a -= y
    return a


def square_in_place(a):
    a **= 2.0
    a %= 5.0
    return a


def matmul_in_place(m, n):
    m @= n
    return m


def write_through_view(a, x):
    v = a[1:3]
    v[0] = x
    return a


def write_through_transpose(m, x):
    t = m.T
    t[0, 1] = x * 3.0
    return m


def read_then_write(a, x):
    y = np.sin(a)
    a[0] = x
    a[2] += a[1] * x
    return y.sum() + (a * a).sum()


def loop_update(a, x):
    for i in range(3):
        a[i] = a[i] * x + a[i + 1]
    return a


def floor_in_place(a):
    b = a * 1.0
    b //= 0.5
    return b * a


def list_ops(x):
    xs = [x]
    xs.append(x * 2.0)
    xs += [x * 3.0]
    xs[0] = x * x
    del xs[1]
    return sum(xs)


class Box:
    def __init__(self, v):
        self.v = v


def object_ops(x):
    box = Box(x)
    box.w = box.v * 2.0
    box.tmp = 1.0
    del box.tmp
    object.__setattr__(box, "u", x * 3.0)
    return box.w * box.v + object.__getattribute__(box, "u")


def fill_zeros(x):
    y = np.zeros(3)
    y[0] = x
    y[2] = x * x
    y += x
    return y


def set_display(x):
    s = {1, 2, 2}
    t = {k * 2 for k in range(3)}  # set.add
    return x * len(s) + x * len(t)


def ufunc_out(a, b):
    np.add(a, b, out=a)
    y = np.empty_like(a)
    np.sin(a, y)
    np.maximum(y, 0.1, out=(y,))
    return y * a


def divmod_out(a, b):
    q, r = np.zeros_like(a), np.zeros_like(a)
    np.divmod(a, b, out=(q, r))
    np.floor(r, out=q)
    return q + r * r


def write_through_views(a, x):
    np.swapaxes(a, 0, 1)[1, 0] = x
    np.expand_dims(a, 0)[0, 2, 3] = x * 2.0
    np.flip(a, 1)[0, 0] = x * x
    top, _ = np.split(a, [1])
    top[0, 1] += x
    return a * 1.0


def set_repeated(a, v):
    b = a * 1.0
    b[[0, 2, 0]] = v  # NumPy keeps the last write to position 0
    b[[1, 1]] += v[1]
    return b


INPLACE = [(set_slice, (V4, 0.7)), (set_input, (V4, 0.3)), (set_row, (A, V4)),
           (set_fancy, (V4, 0.4)), (shift, (V4,)), (add_to_slice, (V4, 0.5)),
           (scale_all, (A, 1.7)), (square_in_place, (A,)),
           (matmul_in_place, (A, np.eye(4) + 0.1 * B @ B.T)),
           (write_through_view, (V4, 0.9)), (write_through_transpose, (A, 0.2)),
           (read_then_write, (V4, 0.6)), (loop_update, (V4, 1.1)),
           (floor_in_place, (V4,)), (list_ops, (0.8,)), (object_ops, (0.6,)),
           (fill_zeros, (0.3,)), (set_display, (0.5,)), (ufunc_out, (A, V4)),
           (divmod_out, (np.abs(V4) * 3.0, 0.7)), (write_through_views, (A, 0.4)),
           (set_repeated, (V4, V4[:3] * 2.0))]

# The primitives these rows exercise (the meta-test counts them as covered).
COVERS = [operator.setitem, operator.delitem, list.append, setattr, delattr, lang.build_set,
          set.add, object.__setattr__, object.__getattribute__,
          operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ipow,
          operator.imod, operator.imatmul, operator.ifloordiv, np.zeros]
