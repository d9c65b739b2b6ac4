"""NumPy's polynomial functions on coefficient arrays (polyadd, polysub, polymul,
polydiv, polyder, polyint, poly, polyfit), written in plain NumPy for both modes to
differentiate, as fwdad/rules/piecewise.py does piecewise; and the rule of np.roots.

    np.polymul(a, b)       ->  np.convolve(a, b)
    np.polyfit(x, y, 2)    ->  np.linalg.lstsq of the scaled Vandermonde matrix

NumPy's own are library code (foreign calls); each function below computes the same
from primitives with rules. np.poly1d objects, np.poly of a matrix or of complex roots,
and polyfit's full= and cov= outputs are refused (`refuse_polynomial`), saying what to
pass instead. Forward mode runs the derived rules; reverse mode's are composed from
them (reverse/rules_plain_numpy.py).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import FwdadError, in_user_code
from fwdad.rules.batching import dense, fit
from fwdad.rules.numpy_loops import derived_from
from fwdad.rules.registry import def_nondiff, frule
from fwdad.tangents import NoTangent


def refuse_polynomial(call: str, what: str, instead: str) -> None:
    at = in_user_code()
    raise FwdadError(f"np.{call}{at}: fwdad does not differentiate "
                     f"{what}. {instead}")


def _coefficients(call: str, p: Any) -> Any:
    if isinstance(p, np.poly1d):
        refuse_polynomial(call, "np.poly1d objects", "Pass the coefficient array p.coeffs.")
    return np.atleast_1d(p)


def polyadd(a1: Any, a2: Any) -> Any:
    """a1 + a2, the shorter padded with leading zeros."""
    a1, a2 = _coefficients("polyadd", a1), _coefficients("polyadd", a2)
    gap = len(a2) - len(a1)
    if gap > 0:
        return np.concatenate((np.zeros(gap, a1.dtype), a1)) + a2
    if gap < 0:
        return a1 + np.concatenate((np.zeros(-gap, a2.dtype), a2))
    return a1 + a2


def polysub(a1: Any, a2: Any) -> Any:
    """a1 - a2, the shorter padded with leading zeros."""
    a1, a2 = _coefficients("polysub", a1), _coefficients("polysub", a2)
    gap = len(a2) - len(a1)
    if gap > 0:
        return np.concatenate((np.zeros(gap, a1.dtype), a1)) - a2
    if gap < 0:
        return a1 - np.concatenate((np.zeros(-gap, a2.dtype), a2))
    return a1 - a2


def polymul(a1: Any, a2: Any) -> Any:
    return np.convolve(_as_poly1d("polymul", a1), _as_poly1d("polymul", a2))


def _as_poly1d(call: str, p: Any) -> Any:
    """The coefficients np.poly1d keeps, as NumPy's polymul takes them: without leading
    zeros, [0] for none. Where the zeros it drops carry a derivative, the result would be
    longer at any nearby point: refused (`fixed_zeros`); where they are constants (the
    other argument alone differentiated), the product is exact."""
    p = _coefficients(call, p)
    if len(p) == 0:
        return np.zeros(1, p.dtype)
    k = leading_zeros(p)
    if k:
        fixed_zeros(call, p[:k])
    return p[k:]


def leading_zeros(p: Any) -> int:
    """How many leading zeros np.poly1d drops from p (it keeps the last coefficient)."""
    nonzero = np.flatnonzero(p)
    return int(nonzero[0]) if len(nonzero) else len(p) - 1


def fixed_zeros(call: str, zeros: Any) -> None:
    """Nothing, on constants; forward mode refuses zeros whose tangent is not 0 (the
    rule below), reverse mode zeros that are variables (reverse/rules_plain_numpy.py)."""


@frule(fixed_zeros)
def _fixed_zeros(call, zeros: Dual) -> Dual:
    if zeros.tangent is not NoTangent and np.any(dense(zeros.primal, zeros.tangent)):
        refuse_moving_zeros(call)
    return Dual(None, NoTangent)


def refuse_moving_zeros(call: str) -> None:
    refuse_polynomial(call, "coefficients with a leading zero that carries a derivative",
                      "NumPy drops leading zeros (as np.poly1d does), so the result is "
                      "longer at any point near this one: it has no derivative there. "
                      "Drop the zeros before the call, or use np.convolve, which keeps "
                      "them.")


def polydiv(u: Any, v: Any) -> Any:
    """Long division, as NumPy does it: (q, r) with u = q v + r, the remainder's leading
    entries dropped while np.allclose(r[0], 0) says they are 0 (NumPy's own test)."""
    u, v = _coefficients("polydiv", u) + 0.0, _coefficients("polydiv", v) + 0.0
    m, n = len(u) - 1, len(v) - 1
    scale = 1.0 / v[0]
    q = np.zeros(max(m - n + 1, 1), np.result_type(u, v))
    r = u.astype(q.dtype)
    for k in range(m - n + 1):
        d = scale * r[k]
        q[k] = d
        r[k:k + n + 1] -= d * v
    while np.allclose(r[0], 0, rtol=1e-14) and r.shape[-1] > 1:
        r = r[1:]
    return q, r


def polyder(p: Any, m: int = 1) -> Any:
    """The m-th derivative: each step multiplies by the powers and drops the constant."""
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = _coefficients("polyder", p)
    for _ in range(int(m)):
        p = p[:-1] * np.arange(len(p) - 1, 0, -1)
    return p


def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """The m-th antiderivative, with integration constants k (last to first)."""
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    constants = np.zeros(m) if k is None else np.atleast_1d(k)
    if len(constants) == 1 and m > 1:
        constants = constants[0] * np.ones(m)
    if len(constants) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    if isinstance(p, np.poly1d):
        refuse_polynomial("polyint", "np.poly1d objects", "Pass the coefficient array "
                          "p.coeffs.")
    p = np.asarray(p)
    for i in range(int(m)):
        p = np.concatenate((p / np.arange(len(p), 0, -1), [constants[i]]))
    return p


def poly(seq_of_zeros: Any) -> Any:
    """The monic polynomial with these real roots: (x - r1)(x - r2)...."""
    roots = np.atleast_1d(seq_of_zeros)
    if roots.ndim != 1 or np.iscomplexobj(roots):
        refuse_polynomial("poly", "np.poly of a matrix or of complex roots",
                          "Pass real roots (np.linalg.eigvals(a) of a matrix with real "
                          "eigenvalues, taken .real), or multiply the factors with "
                          "np.convolve.")
    if len(roots) == 0:
        return 1.0  # (NumPy's: a float, not an array)
    coefficients = np.ones(1)
    for root in roots:
        coefficients = np.convolve(coefficients, np.array([1.0, -root]))
    return coefficients


def polyfit(x: Any, y: Any, deg: int, rcond: Any = None, full: bool = False, w: Any = None,
            cov: Any = False) -> Any:
    """Least squares on the Vandermonde matrix, its columns scaled to unit norm, as
    NumPy solves it (full=False, cov=False)."""
    if full or cov is not False:
        refuse_polynomial("polyfit", "full=True or cov=", "Differentiate the coefficients "
                          "(full=False, cov=False); compute residuals from them "
                          "with np.polyval.")
    order = int(deg) + 1
    x, y = np.asarray(x) + 0.0, np.asarray(y) + 0.0
    rcond = len(x) * np.finfo(x.dtype).eps if rcond is None else rcond
    lhs = np.vander(x, order)
    if w is not None:
        w = np.asarray(w) + 0.0
        lhs = lhs * w[:, np.newaxis]
        y = y * (w[:, np.newaxis] if y.ndim == 2 else w)
    scale = np.sqrt(np.sum(lhs * lhs, axis=0))
    solved = np.linalg.lstsq(lhs / scale, y, rcond=rcond)[0]
    return (solved.T / scale).T


# ---- np.roots: a hand-written rule (NumPy's are the eigenvalues of a companion matrix) ---
def roots_and_jacobian(c: Any) -> tuple:
    """The roots r of p(x) = sum_k c_k x^(n-k), as np.roots gives them, and their
    Jacobian in c: a simple root stays a root as c moves, p(r) = 0, so dp(r) + p'(r) dr
    = 0 and dr_i / dc_k = -r_i^(n-k) / p'(r_i) (the implicit function theorem; at a
    multiple root p'(r) is 0 and the roots have no derivative)."""
    c = np.atleast_1d(c)
    if c.size and c[0] == 0:
        refuse_polynomial("roots(p)", "p with a leading zero coefficient (np.roots drops "
                          "it: the number of roots jumps there)",
                          "Drop the leading zeros yourself: np.roots(p[k:]).")
    r = np.roots(c)
    powers = r[:, None] ** np.arange(len(c) - 1, -1, -1)  # r_i^(n-k)
    slope = np.polyval(np.polyder(c), r) if len(c) > 1 else np.ones(0)  # p'(r_i)
    if np.any(slope == 0):
        refuse_polynomial("roots(p)", "a polynomial with a multiple root (p'(r) = 0 "
                          "there: the root has no derivative)",
                          "Differentiate a function of the roots that is smooth there "
                          "(their sum or product, from the coefficients), or move p off "
                          "the multiple root.")
    return r, -powers / slope[:, None]


@frule(np.roots, pure=True)
def _roots(p: Dual) -> Dual:
    r, jacobian = roots_and_jacobian(p.primal)
    dr = dense(p.primal, p.tangent) @ jacobian.T
    return Dual(r, fit(dr.real if r.dtype.kind == "f" else dr, r))


def_nondiff(refuse_polynomial, leading_zeros)
PLAIN = {np.polyadd: polyadd, np.polysub: polysub, np.polymul: polymul,
         np.polydiv: polydiv, np.polyder: polyder, np.polyint: polyint, np.poly: poly,
         np.polyfit: polyfit}

for _numpy_fn, _plain in PLAIN.items():
    frule(_numpy_fn)(derived_from(_plain))
