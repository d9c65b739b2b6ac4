"""Small functions with closed-form derivatives, shared by the tests of batched passes
(chunking, memory budgets, progress, executors): importable, so that a worker process
finds them by reference."""
import numpy as np


def f(x):
    return np.sin(x) * x[0]


def jacobian_of_f(x):  # closed form: d(sin(x_i) x_0)/dx_j
    jac = np.diag(np.cos(x) * x[0])
    jac[:, 0] += np.sin(x)
    return jac


def total(x):
    return np.sum(np.sin(x) * x[0])
