"""Programs a new user would write in plain NumPy style (assembly with np.add.at, nested
loops with `+=`, ODE steps in place, Kalman and Gauss-Seidel updates, decompositions with
tuple results), each checked end to end by test_rule: central differences of the same
code, argument state, and a batch of tangents."""
import numpy as np
import pytest

from fwdad import testing

X = np.array([0.3, -1.2, 0.5, 2.0])


def fem(x):
    K = np.zeros((5, 5))
    elems = np.array([[0, 1], [1, 2], [2, 3], [3, 4]])
    for e, (i, j) in enumerate(elems):
        k = x[e] ** 2 + 1.0
        ke = k * np.array([[1.0, -1.0], [-1.0, 1.0]])
        np.add.at(K, (np.array([[i], [j]]), np.array([[i, j]])), ke)
    K[0, :] = 0.0
    K[0, 0] = 1.0
    f = np.ones(5)
    f[0] = 0.0
    return np.linalg.solve(K, f)

def nested(x):
    A = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            A[i, j] += x[i] * x[j + 1] - (i == j)
    return A

def grid(x):
    gx, gy = np.meshgrid(x[:2], x[2:])
    return np.exp(-(gx ** 2 + gy ** 2)).sum()

def triu(x):
    A = np.outer(x, x)
    np.fill_diagonal(A, x)
    iu = np.triu_indices(4, 1)
    return A[iu] * 2

def ode_state(x):
    s = np.zeros(2)
    s[:] = x[:2]
    for _ in range(10):
        ds = np.empty_like(s)
        ds[0] = s[1]
        ds[1] = -x[2] * s[0] - x[3] * s[1]
        s += 0.05 * ds
    return s

def reductions_mix(x):
    M = np.vstack([x, x[::-1] ** 2, np.abs(x)])
    return np.concatenate([M.max(0), M.argmax(0) * 1.0, np.take_along_axis(M, M.argsort(0), 0)[0]])

def broadcasting(x):
    a = x[:, None] * x[None, :] + x
    a[1:, :2] /= 3.0
    return a.sum(axis=0) ** 2

def tuple_returns(x):
    q, r = np.linalg.qr(np.outer(x, x[:2]) + np.eye(4, 2))
    u, s, vt = np.linalg.svd(r)
    w, v = np.linalg.eigh(r.T @ r)
    return s.sum() + w.sum() + abs(q[0, 0])

def softmax(x):
    z = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

def logsumexp(x):
    m = x.max()
    return m + np.log(np.sum(np.exp(x - m)))

def mlp(x):
    rng = np.random.default_rng(0)
    W1 = rng.normal(size=(5, 4))
    b1 = np.zeros(5)
    W2 = rng.normal(size=(2, 5))
    h = np.tanh(W1 @ x + b1)
    h = np.maximum(h, 0.01 * h)
    return W2 @ h

def gauss_seidel(x):
    A = 4.0 * np.eye(4) + np.eye(4, k=1) + np.eye(4, k=-1)
    u = np.zeros_like(x)
    for sweep in range(5):
        for i in range(len(x)):
            s = A[i, :i] @ u[:i] + A[i, i + 1:] @ u[i + 1:]
            u[i] = (x[i] - s) / A[i, i]
    return u

def stencil(x):
    u = np.pad(x, 1, mode="edge")
    for _ in range(3):
        u[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u[1:-1]

def rk4(x):
    def f(y):
        return np.array([y[1], -np.sin(y[0])]) * x[2]
    y = x[:2].copy()
    h = 0.1
    for _ in range(5):
        k1 = f(y)
        k2 = f(y + h / 2 * k1)
        k3 = f(y + h / 2 * k2)
        k4 = f(y + h * k3)
        y += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y

def kalman(x):
    P = np.diag(x[:2] ** 2 + 1.0)
    H = np.array([[1.0, 0.5]])
    R = np.array([[0.3]])
    S = H @ P @ H.T + R
    K = P @ H.T @ np.linalg.inv(S)
    m = np.array([x[2], x[3]])
    m = m + (K @ (np.array([1.0]) - H @ m)).ravel()
    P = (np.eye(2) - K @ H) @ P
    return np.concatenate([m, P.ravel()]) + np.log(np.linalg.det(S))

def rows_normalized(x):
    M = np.outer(x, x[::-1]) + np.eye(4)
    M /= np.linalg.norm(M, axis=1, keepdims=True)
    return M

def pairwise(x):
    pts = x.reshape(2, 2)
    d = pts[:, None, :] - pts[None, :, :]
    return np.sqrt((d ** 2).sum(-1) + 1e-3)

def poly_features(x):
    return np.vander(x, 3)

def chol_solve(x):
    A = np.outer(x, x) + 4 * np.eye(4)
    L = np.linalg.cholesky(A)
    z = np.linalg.solve(L, x)
    return np.linalg.solve(L.T, z)

def eig_general(x):
    A = np.array([[x[0], 1.0], [0.5, x[1]]])
    return np.linalg.eigvals(A).real

def masked_mean(x):
    mask = x > 0
    return np.where(mask, x, 0).sum() / max(mask.sum(), 1) + np.mean(x[mask])

def integer_pow(x):
    return x ** 3 + np.power(x, 2) + 2 ** x + np.sqrt(np.abs(x) + 1)

def stats(x):
    return np.array([x.mean(), x.std(), np.median(x), np.percentile(x, 30), np.ptp(x)])

def argsort_use(x):
    order = np.argsort(x)
    return x[order] * np.arange(4)

def matrix_ops(x):
    A = x.reshape(2, 2)
    return np.trace(A @ A.T) + np.linalg.det(A) + np.sum(np.linalg.inv(A)) \
        + np.linalg.slogdet(A)[1]

def scalar_loop(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += float(x[i]) ** 2 if x[i] > 0 else np.float64(x[i]) * 3
    return total

def complex_ops(x):
    z = x[0] + 1j * x[1]
    return np.abs(z * z) + np.real(np.exp(z))

def where_inplace(x):
    y = x.copy()
    y[y < 0] = 0.0
    y[np.isclose(y, 0.5)] += 1.0
    np.maximum(y, 0.1, out=y)
    return y

def sums_with_methods(x):
    A = np.stack([x, x ** 2, np.cos(x)])
    return A.sum(axis=1) @ A.mean(axis=0)[:3] + A.max(axis=0).prod() + A.T.flatten()[::3].sum()


def padded_differences(x):
    steps = np.diff(x, prepend=2.0 * x[0], append=x[1:3])
    corners = np.atleast_2d(x[:2], x[2] * x[3])
    return steps @ np.arange(6.0) + corners[0].sum() * corners[1][0, 0]


def least_squares_of_a_list(x):
    design = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    coef, residual, _, _ = np.linalg.lstsq(design, [x[0], x[1] * x[2], 1.0], rcond=None)
    return coef @ coef + residual.sum()



def _scaled_square(v, k, shift=0.0):
    return k * v * v + shift


def pieces_and_choices(x):
    """np.piecewise calls the user's functions on pieces (with extra arguments and an
    "otherwise" function); np.choose picks item by item."""
    y = np.piecewise(x, [x < 0], [_scaled_square, lambda v, k, shift: np.sin(v) * k],
                     1.5, shift=0.25)
    return np.choose([0, 1, 2, 1, 0][:len(x)], [y, x * x, 0.5]) * np.cos(x)


PROGRAMS = [fem, nested, grid, triu, ode_state, reductions_mix, broadcasting, tuple_returns,
            softmax, logsumexp, mlp, gauss_seidel, stencil, rk4, kalman, rows_normalized,
            pairwise, poly_features, chol_solve, eig_general, masked_mean, integer_pow,
            stats, argsort_use, matrix_ops, scalar_loop, complex_ops, where_inplace,
            sums_with_methods, padded_differences,
            least_squares_of_a_list, pieces_and_choices]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
def test_user_program(program):
    testing.test_rule(program, X)
