"""The adjugate adj(a), for which a adj(a) = det(a) I, and its derivative, exact at
singular matrices too; det's second derivative goes through them.

    d det(a) = tr(adj(a) da)                      (rules/decompositions.det_tangent)
    d adj(a) = c V dadj(S)[U^H da V] U^H          (a = U S V^H, c = det(U) det(V^H))

det is a polynomial, so its derivatives exist everywhere. Its first derivative at a
singular a is adj(a), which det(a) a^-1 does not give; the derivative of adj(a) is the
second derivative of det, which the derivative of det(a) a^-1 (or of an SVD, whose
singular values have no derivative at zero) does not give either. Both formulas below
hold for every a, from its SVD: adj(X Y) = adj(Y) adj(X), adj(Q) = det(Q) Q^H for a
unitary Q, and the adjugate of a diagonal matrix S is a product of its entries.
"""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import dense, fit
from fwdad.rules.registry import def_nondiff, frule


def _T(a):
    return np.swapaxes(a, -1, -2)


def _H(a):
    """The conjugate transpose (the transpose, for real a)."""
    return np.swapaxes(a, -1, -2).conj() if np.iscomplexobj(a) else np.swapaxes(a, -1, -2)


def adjugate(a):
    """adj(a) (over the last two axes): det(a) a^-1 where a is invertible; where it is
    not, by the SVD a = U S Vh, exactly: adj(a) = det(Vh) Vh^H adj(S) det(U) U^H,
    adj(S)_ii the product of the other singular values."""
    try:
        return np.linalg.det(a)[..., None, None] * np.linalg.inv(a)
    except np.linalg.LinAlgError:
        u, s, vh = np.linalg.svd(a)
        ones = np.ones_like(s[..., :1])
        before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
        after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)
        others = before * after[..., ::-1]  # (the product of the s_j, j != i)
        scale = np.linalg.det(u) * np.linalg.det(vh)
        return scale[..., None, None] * ((_H(vh) * others[..., None, :]) @ _H(u))


def adjugate_tangent(a, da):
    """d adj(a) along da (which may have a leading batch axis), at any a: where a is
    invertible, d(det(a) a^-1) = det(a) (tr(a^-1 da) a^-1 - a^-1 da a^-1); near a
    singular a, whose two terms would cancel, by its SVD (adjugate_tangent_by_svd)."""
    if near_singular(a):
        return adjugate_tangent_by_svd(a, da)
    inverse = np.linalg.inv(a)
    step = inverse @ da
    trace = np.trace(step, axis1=-2, axis2=-1)[..., None, None]
    return np.linalg.det(a)[..., None, None] * (trace * inverse - step @ inverse)


def near_singular(a) -> bool:
    """Whether a (any matrix of a stack) has a condition number past 1e4, where
    adjugate_tangent's inverse loses more than four digits to cancellation. (Its
    derivative is zero: a check on values, at every order.)"""
    s = np.linalg.svd(a, compute_uv=False)
    return not np.all(s[..., -1] > 1e-4 * s[..., 0])


def adjugate_tangent_by_svd(a, da):
    """d adj(a) along da at any a. With the SVD a = U S V^H and F = U^H da V:
    adj(a + da) = c V adj(S + F) U^H, and the derivative of the adjugate at a diagonal
    S is, with P_ij the product of the s_l, l not i or j, dadj_ii = sum_j P_ij F_jj and
    dadj_ij = -P_ij F_ij (i != j). It is linear in da: products with matrices of a,
    and a product with P."""
    u, s, vh = np.linalg.svd(a)
    f = _H(u) @ da @ _H(vh)
    pairs = _products_of_the_others(s)
    eye = np.eye(s.shape[-1])
    on_diagonal = pairs @ np.sum(f * eye, axis=-1)[..., None]  # (sum_j P_ij F_jj)_i
    inner = eye * on_diagonal - pairs * f
    scale = (np.linalg.det(u) * np.linalg.det(vh))[..., None, None]
    return scale * (_H(vh) @ inner @ _H(u))


def adjugate_cotangent(a, ct):
    """The transpose of adjugate_tangent's linear map (reverse mode's pullback of
    adj(a)): sum(ct * adjugate_tangent(a, da)) = sum(adjugate_cotangent(a, ct) * da)."""
    if near_singular(a):
        u, s, vh = np.linalg.svd(a)
        pairs = _products_of_the_others(s)
        eye = np.eye(s.shape[-1])
        g = vh.conj() @ ct @ u.conj()
        inner = eye * (pairs @ np.sum(g * eye, axis=-1)[..., None]) - pairs * g
        scale = (np.linalg.det(u) * np.linalg.det(vh))[..., None, None]
        return scale * (u.conj() @ inner @ vh.conj())
    inverse = _T(np.linalg.inv(a))
    trace = np.sum(ct * _T(inverse), axis=(-2, -1))[..., None, None]
    return np.linalg.det(a)[..., None, None] * (trace * inverse - inverse @ ct @ inverse)


def _products_of_the_others(s):
    """P_ij = the product of s_l over l other than i and j (i != j); P_ii = 0."""
    n = s.shape[-1]
    index = np.arange(n)
    kept = (index[:, None, None] != index) & (index[None, :, None] != index)  # [i, j, l]
    products = np.prod(np.where(kept, s[..., None, None, :], 1.0), axis=-1)
    return np.where(np.eye(n, dtype=bool), 0.0, products)


def_nondiff(near_singular)


@frule(adjugate)
def _adjugate(a: Dual) -> Dual:
    """d adj(a) by adjugate_tangent: exact at singular matrices too."""
    out = adjugate(a.primal)
    return Dual(out, fit(adjugate_tangent(a.primal, dense(a.primal, a.tangent)), out))
