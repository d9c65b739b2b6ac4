"""The Gaussian mixture model objective as ADBench defines it, written in plain NumPy.

Definition: ADBench's GMM objective (microsoft/ADBench,
src/python/modules/PyTorch/gmm_objective.py, `gmm_objective`): the log-likelihood of
n points under a mixture of k Gaussians in d dimensions, each with a precision factor
Q = diag(exp(q)) + L (q: the first d entries of a row of icf; L: strictly lower
triangular, filled column by column from the rest), minus n * logsumexp(alphas), plus
a Wishart prior on the precision factors (gamma, m). Written here in our own words.
"""
from __future__ import annotations

import math

import numpy as np


def logsumexp(v):
    top = np.max(v)
    return np.log(np.sum(np.exp(v - top))) + top


def logsumexp_rows(v):
    top = np.max(v, axis=1)
    return np.log(np.sum(np.exp(v - top[:, None]), axis=1)) + top


def multigammaln(a, p):
    """log of the multivariate gamma function (constants only)."""
    out = 0.25 * p * (p - 1) * math.log(math.pi)
    for j in range(1, p + 1):
        out = out + math.lgamma(a + 0.5 * (1 - j))
    return out


def lower_triangles(d, icf):
    """(k, d, d): the strictly lower part of each precision factor, column by column."""
    rows, cols = [], []
    for col in range(d):
        for row in range(col + 1, d):
            rows.append(row)
            cols.append(col)
    ls = np.zeros((icf.shape[0], d, d))
    ls[:, rows, cols] = icf[:, d:]
    return ls


def log_wishart_prior(p, gamma, m, sum_qs, qdiags, icf):
    n = p + m + 1
    k = icf.shape[0]
    frobenius = np.sum(qdiags ** 2, axis=1) + np.sum(icf[:, p:] ** 2, axis=1)
    out = np.sum(0.5 * gamma * gamma * frobenius - m * sum_qs)
    c = n * p * math.log(gamma / math.sqrt(2))
    return out - k * (c - multigammaln(0.5 * n, p))


def gmm_objective(alphas, means, icf, x, gamma, m):
    n, d = x.shape
    qdiags = np.exp(icf[:, :d])                       # (k, d)
    sum_qs = np.sum(icf[:, :d], axis=1)               # (k,)
    ls = lower_triangles(d, icf)                      # (k, d, d)
    centered = x[:, None, :] - means[None, :, :]      # (n, k, d)
    lower = np.matmul(ls, centered[:, :, :, None])[:, :, :, 0]
    scaled = qdiags * centered + lower                # Q (x - mean), per point and component
    inner = alphas + sum_qs - 0.5 * np.sum(scaled ** 2, axis=2)
    constant = -n * d * 0.5 * math.log(2 * math.pi)
    return (constant + np.sum(logsumexp_rows(inner)) - n * logsumexp(alphas)
            + log_wishart_prior(d, gamma, m, sum_qs, qdiags, icf))


def gmm_inputs(d=10, k=25, n=1000, seed=0):
    """Random parameters and points of the ADBench sizes (gamma = 1, m = 0)."""
    rng = np.random.default_rng(seed)
    alphas = rng.standard_normal(k)
    means = rng.uniform(0.0, 1.0, (k, d))
    icf = rng.standard_normal((k, d * (d + 1) // 2)) * 0.3
    x = rng.standard_normal((n, d))
    return alphas, means, icf, x, 1.0, 0
