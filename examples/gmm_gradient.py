"""The gradient of a Gaussian mixture model's log-likelihood, by reverse mode.

The objective is ADBench's GMM objective (written here in our own words, as in
tests/reverse/gmm.py): the log-likelihood of n points under a mixture of k Gaussians
in d dimensions, each with a precision factor Q = diag(exp(q)) + L, plus a Wishart
prior. fwdad.grad gives the gradient with respect to all the parameters in one
backward pass; the dot-product test against forward mode (fwdad.jvp) and central
finite differences along the same direction check it.

Run: python examples/gmm_gradient.py [--quick]
"""
import math
import sys
import time

import numpy as np

import fwdad


def logsumexp(v, axis=None):
    top = np.max(v, axis=axis, keepdims=True)
    return np.log(np.sum(np.exp(v - top), axis=axis)) + np.squeeze(top, axis=axis)


def lower_triangles(d, icf):
    """(k, d, d): the strictly lower part of each Q, filled column by column."""
    rows, cols = np.tril_indices(d, -1)
    order = np.lexsort((rows, cols))                 # column-major order
    ls = np.zeros((icf.shape[0], d, d))
    ls[:, rows[order], cols[order]] = icf[:, d:]     # an in-place write into a new array
    return ls


def wishart_constant(p, gamma, m, k):
    """The prior's normalizing constant (no parameters in it)."""
    dof = p + m + 1
    multigammaln = 0.25 * p * (p - 1) * math.log(math.pi) + sum(
        math.lgamma(0.5 * dof + 0.5 * (1 - j)) for j in range(1, p + 1))
    return k * (dof * p * math.log(gamma / math.sqrt(2)) - multigammaln)


def gmm_objective(params, x, gamma=1.0, m=0):
    alphas, means, icf = params
    n, d = x.shape
    qdiags = np.exp(icf[:, :d])                                   # (k, d)
    sum_qs = np.sum(icf[:, :d], axis=1)                           # (k,)
    centered = x[:, None, :] - means[None, :, :]                  # (n, k, d)
    lower = np.einsum("kij,nkj->nki", lower_triangles(d, icf), centered)
    scaled = qdiags * centered + lower                            # Q (x - mean)
    inner = alphas + sum_qs - 0.5 * np.sum(scaled ** 2, axis=2)   # (n, k)
    likelihood = np.sum(logsumexp(inner, axis=1)) - n * logsumexp(alphas)
    frobenius = np.sum(qdiags ** 2, axis=1) + np.sum(icf[:, d:] ** 2, axis=1)
    prior = np.sum(0.5 * gamma * gamma * frobenius - m * sum_qs) - wishart_constant(
        d, gamma, m, icf.shape[0])
    return -n * d * 0.5 * math.log(2 * math.pi) + likelihood + prior


def inputs(d, k, n, seed=0):
    rng = np.random.default_rng(seed)
    params = (rng.standard_normal(k), rng.uniform(0.0, 1.0, (k, d)),
              rng.standard_normal((k, d * (d + 1) // 2)) * 0.3)
    return params, rng.standard_normal((n, d))


def main(quick=False):
    d, k, n = (3, 4, 20) if quick else (10, 25, 1000)
    params, x = inputs(d, k, n)
    start = time.perf_counter()
    value, gradient = fwdad.value_and_grad(gmm_objective)(params, x)
    elapsed = time.perf_counter() - start
    print(f"GMM d={d} k={k} n={n}: objective {value:.6f}; gradient of "
          f"{sum(g.size for g in gradient)} parameters in {elapsed * 1e3:.1f} ms")
    # the gradient, read along a random direction, against forward mode and finite
    # differences along the same direction
    rng = np.random.default_rng(1)
    direction = tuple(rng.standard_normal(p.shape) for p in params)
    from_grad = sum(np.sum(g * t) for g, t in zip(gradient, direction))
    _, from_jvp = fwdad.jvp(gmm_objective, (params, x), (direction, np.zeros_like(x)))
    eps = 1e-6
    up = gmm_objective(tuple(p + eps * t for p, t in zip(params, direction)), x)
    down = gmm_objective(tuple(p - eps * t for p, t in zip(params, direction)), x)
    from_fd = (up - down) / (2 * eps)
    print(f"<grad, t> = {from_grad:.10f}; jvp {from_jvp:.10f}; "
          f"finite differences {from_fd:.10f}")
    assert np.isclose(from_grad, from_jvp, rtol=1e-9)
    assert np.isclose(from_grad, from_fd, rtol=1e-6)
    print("gradient agrees with forward mode and finite differences")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
