"""Small NumPy programs in plain style, one in-place or aliasing pattern each: the
corpus of the end-to-end tests (tests/numpy/test_in_place.py)."""
import numpy as np


def augmented_slice(x):
    y = x.copy()
    y[1:3] -= x[:2] * 2.0
    y *= x
    return y.sum()


def fill_a_preallocated_array(x):
    out = np.zeros(4)
    for i in range(4):
        out[i] = np.sin(x[i]) * x[i]
    return out


def write_through_a_view(x):
    v = x[1:3]
    v += 1.0
    v *= x[0]
    return x


def view_of_a_view(x):
    m = x.reshape(2, 2)
    col = m[:, 1]
    col *= m[:, 0]
    m.T[0] += 1.0
    return x


def ufunc_out_argument(x):
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    np.add(y, x, out=y)
    np.sin(y, y)
    return y


def out_aliasing_an_input(x):
    np.add(x, x[::-1], out=x)
    np.exp(x, out=x)
    return x


def add_at_accumulates(x):
    acc = np.zeros(3)
    np.add.at(acc, [0, 0, 2, 1], x)
    np.multiply.at(acc, [1, 1], x[:2])
    return acc


def setitem_repeated_indices_last_write_wins(x):
    y = x.copy()
    y[[0, 0, 2]] = x[1:4]
    return y


def boolean_mask_update(x):
    y = x.copy()
    y[y > 0] *= 3.0
    y[np.argmax(y)] = 0.0
    return y


def mutate_the_argument(x):
    x[0] = 5.0
    x[1:] *= 2.0
    x += x[::-1].copy()
    return x * x


def row_assignment(x):
    m = x.reshape((2, 2))
    m[0, :] = m[1, :] ** 2
    return x


def rows_columns_and_steps(x):
    y = np.zeros((2, 4))
    y[0] = x
    y[1, ::2] = x[:2]
    y[:, 1] += 1.0
    y[..., -1] -= x[0]
    return y


def ellipsis_and_new_axes(x):
    y = np.ones(4)
    y[...] = x
    y[None, 1:] = 2 * x[1:]
    return y[:, None] * x[None, :]


def in_place_methods(x):
    y = x.copy()
    y.sort()
    y.fill(y[0])
    z = x.copy()
    np.copyto(z, x * 2.0, where=x > 0)
    np.put(z, [0, 3], y[:2])
    return np.concatenate([y, z])


def matrix_update_in_a_loop(x):
    a = np.eye(2)
    for k in range(3):
        a[:, 0] += x[k] * a[:, 1]
        a @= np.array([[1.0, x[3]], [0.0, 1.0]])
    return a


def integer_and_boolean_arrays_pass_through(x):
    idx = np.arange(4) % 2
    mask = idx.astype(bool)
    counts = np.bincount(idx)
    return x[mask] * counts[0] + x[~mask].sum() + idx.sum()


def clip_in_place(x):
    y = x * 2.0
    np.clip(y, -1.0, 1.5, out=y)
    return y


def cumulative_into_a_slice(x):
    y = np.zeros(6)
    y[2:] = np.cumsum(x)
    y[:2] = np.cumprod(x[:2])
    return y


def out_arguments_beyond_ufuncs(x):
    m = np.outer(x, x[:3])
    col = np.empty(3)
    np.sum(m, axis=0, out=col)
    prod = np.empty((4, 4))
    np.matmul(m, m.T, out=prod)
    np.dot(m[0], m[1], out=np.empty(()))
    joined = np.zeros(7)
    np.concatenate([x, col], out=joined)
    run = np.zeros(4)
    np.cumsum(x, out=run)
    m.max(axis=1, out=run)
    total = np.zeros(4)
    np.sum(m, 1, None, total)  # out given positionally
    np.matmul(m[:, :2], x[:2], total)
    return np.concatenate([col, prod.ravel(), joined, run, total])


PROGRAMS = [augmented_slice, fill_a_preallocated_array, write_through_a_view,
            view_of_a_view, ufunc_out_argument, out_aliasing_an_input, add_at_accumulates,
            setitem_repeated_indices_last_write_wins, boolean_mask_update,
            mutate_the_argument, row_assignment, rows_columns_and_steps,
            ellipsis_and_new_axes, in_place_methods, matrix_update_in_a_loop,
            integer_and_boolean_arrays_pass_through, clip_in_place,
            cumulative_into_a_slice, out_arguments_beyond_ufuncs]
