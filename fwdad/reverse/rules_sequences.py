"""Reverse rules for functions of sequences: differences (ediff1d, gradient,
trapezoid), bilinear products (cross, convolve, correlate), polyval, interp, vander,
and the elementwise functions that are not ufuncs (sinc, nan_to_num, angle)."""
from __future__ import annotations

import operator

import numpy as np

from fwdad.errors import FwdadError, in_user_code
from fwdad.reverse.complexes import depends_on_arguments
from fwdad.reverse.registry import (
    complex_ready,
    composed_rrule,
    get_rrule,
    next_order_rrule,
    raw_rrule,
    rrule,
)
from fwdad.reverse.rule_calls import Pure
from fwdad.reverse.tracked import holds_variable, is_tracked
from fwdad.reverse.var import value_of
from fwdad.rules.ieee import selected
from fwdad.rules.polynomials import roots_and_jacobian
from fwdad.rules.sinc import sinc_derivative

_CONSTANT = ("here they depend on the arguments: compute them from constants (an array "
             "of constants built inside the function is taken as one)")


def _constant_variable(v) -> bool:
    """A variable of floats that depends on no argument: an array of constants that
    reverse mode made a variable (because the function writes into arrays), taken as
    its values, as forward mode takes a zero tangent."""
    return np.asarray(value_of(v)).dtype.kind == "f" and not depends_on_arguments([v])


# ---- differences ----------------------------------------------------------------------------
@composed_rrule(np.ediff1d)
def _ediff1d(ary, to_end=None, to_begin=None):
    """The differences of the flattened array; to_begin and to_end are constants."""
    pieces = [np.diff(np.ravel(ary))]
    if to_begin is not None:
        pieces = [np.ravel(to_begin)] + pieces
    if to_end is not None:
        pieces = pieces + [np.ravel(to_end)]
    return np.concatenate(pieces)


@raw_rrule(np.gradient)
def _gradient(f, *varargs, **kwargs):
    """Linear in f; the spacings must be constants."""
    varargs = tuple(value_of(v) if is_tracked(v) and _constant_variable(v) else v
                    for v in varargs)
    if any(is_tracked(v) for v in varargs):
        raise FwdadError(f"np.gradient{in_user_code()}: fwdad differentiates it in f, not "
                         f"in the spacing: {_CONSTANT}.")
    return Pure(np.gradient, _gradient_rule)(f, *varargs, **kwargs)


def _gradient_rule(f, *varargs, axis=None, edge_order=1):
    """Along each axis, gradient is a matrix G (the gradient of the identity's
    columns): the pullback is G^T along that axis."""
    out = np.gradient(f, *varargs, axis=axis, edge_order=edge_order)
    f = np.asarray(f, dtype=float)
    axes = list(range(f.ndim)) if axis is None else list(np.atleast_1d(axis) % f.ndim)
    spacing = list(varargs) * len(axes) if len(varargs) == 1 else list(varargs)
    spacing = spacing or [1.0] * len(axes)
    mats = [np.gradient(np.eye(f.shape[k]), h, axis=0, edge_order=edge_order)
            for k, h in zip(axes, spacing)]

    def pullback(ct):
        cts = ct if isinstance(ct, tuple) else (ct,)
        return (sum(np.moveaxis(np.tensordot(g, np.moveaxis(c, k, 0), (0, 0)), 0, k)
                    for g, c, k in zip(mats, cts, axes)),) + (None,) * len(varargs)
    return out, pullback


@composed_rrule(np.trapezoid)
def _trapezoid(y, x=None, dx=1.0, axis=-1):
    """sum(diff(x) (y[1:] + y[:-1]) / 2) along `axis`: bilinear in y and x."""
    ys = np.moveaxis(y, axis, -1)
    if x is None:
        d = dx
    elif np.ndim(x) == 1:
        d = np.diff(x)
    else:
        d = np.diff(np.moveaxis(x, axis, -1), axis=-1)
    return np.sum(d * (ys[..., 1:] + ys[..., :-1]) / 2.0, axis=-1)


# ---- bilinear products ------------------------------------------------------------------------
@composed_rrule(np.cross)
def _cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """a x b from components (a 2-vector has third component 0)."""
    if axis is not None:
        axisa, axisb, axisc = axis, axis, axis
    a, b = np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1)
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    z = a0 * b1 - a1 * b0
    if np.shape(a)[-1] == 2 and np.shape(b)[-1] == 2:
        return z
    a2 = a[..., 2] if np.shape(a)[-1] == 3 else 0.0
    b2 = b[..., 2] if np.shape(b)[-1] == 3 else 0.0
    c = np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z], axis=-1)
    return np.moveaxis(c, -1, axisc)


def _sliding(fn):
    """convolve / correlate: each output of a mode is a run of the full output, and the
    full output's pullback is a 'valid' correlation with the other argument."""
    def rule(a, v, mode="full" if fn is np.convolve else "valid"):
        out = fn(a, v, mode)
        a, v = np.ravel(a).astype(float), np.ravel(v).astype(float)
        n, m = len(a), len(v)
        start = {"full": 0, "same": (min(n, m) - 1) // 2, "valid": min(n, m) - 1}[mode]
        if fn is np.correlate and mode == "same" and m > n:
            start = (n + m - 1) - len(out) - start  # a run from the other end
        flip = (lambda x: x) if fn is np.convolve else np.flip  # correlate(a, v) is
        # convolve(a, flip(v)) over the full length

        def full(ct):
            z = np.zeros(n + m - 1)
            z[start:start + len(out)] = ct
            return z
        return out, lambda ct: (lambda: np.correlate(full(ct), flip(v), "valid"),
                                lambda: flip(np.correlate(full(ct), a, "valid")))
    rule.__name__ = f"_{fn.__name__}"
    return rule


rrule(np.convolve)(_sliding(np.convolve))
rrule(np.correlate)(_sliding(np.correlate))


@composed_rrule(np.polyval)
def _polyval(p, x):
    """Horner's scheme, as NumPy computes it."""
    y = np.zeros_like(np.asarray(x, dtype=float))
    for coefficient in p:
        y = y * x + coefficient
    return y


# ---- interpolation ------------------------------------------------------------------------------
@raw_rrule(np.interp)
def _interp(x, xp, fp, left=None, right=None, period=None):
    if is_tracked(xp) and _constant_variable(xp):
        xp = value_of(xp)
    if is_tracked(xp):
        raise FwdadError(f"np.interp{in_user_code()}: fwdad differentiates it in x, fp, left "
                         f"and right, not in the knots xp: {_CONSTANT}.")
    if period is not None:
        if is_tracked(period):
            raise FwdadError(f"np.interp{in_user_code()}: fwdad differentiates it in x "
                             f"and fp, not in period=: pass the period as a constant.")
        return _periodic(x, xp, _as_values(fp), abs(period))
    return Pure(np.interp, _interp_rule)(x, xp, fp, left, right)


def _as_values(fp):
    """fp as an array: a variable, or a list holding variables made one (np.array's
    rule), or a constant array of floats or complex numbers, as np.interp reads it."""
    if is_tracked(fp) and not isinstance(fp, (list, tuple)):
        return fp
    if isinstance(fp, (list, tuple)) and holds_variable(fp):
        return get_rrule(np.array)(fp)
    return _floats(fp)


def _floats(values):
    """The values as np.interp computes with them: float, or complex when they are."""
    values = np.asarray(values)
    return values.astype(np.result_type(values, 1.0), copy=False)


def _periodic(x, xp, fp, period):
    """As NumPy does it: x and the knots modulo the period, the knots sorted and one
    more knot (and value) at each end, wrapped around."""
    knots = np.asarray(xp, dtype=float) % period
    order = np.argsort(knots)
    knots = np.concatenate([knots[order][-1:] - period, knots[order], knots[order][:1]
                            + period])
    index = (np.concatenate([order[-1:], order, order[:1]]),)
    fp = get_rrule(operator.getitem)(fp, index) if is_tracked(fp) else fp[index]
    x = get_rrule(np.remainder)(x, period) if is_tracked(x) else np.remainder(x, period)
    return Pure(np.interp, _interp_rule)(x, knots, fp)


def _interp_rule(x, xp, fp, left=None, right=None):
    """Linear in fp (weights 1 - t and t of the segment's ends), left and right; in x,
    the segment's slope (at a knot, the segment to its right; outside, 0)."""
    out = np.interp(x, xp, fp, left, right)
    xp, fp = np.asarray(xp, dtype=float), _floats(fp)  # (complex: Pure refuses them)
    k = np.clip(np.searchsorted(xp, x, "right") - 1, 0, len(xp) - 2)
    t = (x - xp[k]) / (xp[k + 1] - xp[k])
    below, above = np.asarray(x < xp[0]), np.asarray(x > xp[-1])
    inside = ~(below | above)

    def pullback(ct):  # (each x takes its segment, or left, or right: selected)
        ct_in = selected(inside, ct)
        ct_below, ct_above = np.sum(selected(below, ct)), np.sum(selected(above, ct))
        ct_fp = np.zeros(len(fp))
        np.add.at(ct_fp, k, ct_in * (1.0 - t))
        np.add.at(ct_fp, k + 1, ct_in * t)
        ct_fp[0] += ct_below if left is None else 0.0
        ct_fp[-1] += ct_above if right is None else 0.0
        slope = (fp[k + 1] - fp[k]) / (xp[k + 1] - xp[k])
        return (ct_in * slope, None, ct_fp, ct_below, ct_above)
    return out, pullback


# ---- powers and elementwise functions ----------------------------------------------------------
@rrule(np.vander)
def _vander(x, N=None, increasing=False):
    """Columns x**k: their derivatives k x**(k-1) (0 for k = 0, also at x = 0)."""
    out = np.vander(x, N, increasing)
    n = out.shape[1]
    powers = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    lower = np.vander(x, n + 1, True)[:, np.maximum(powers - 1, 0)]
    return out, lambda ct: (np.sum(ct * powers * lower, axis=1),)


@rrule(np.sinc)
def _sinc(x):
    """sin(pi x) / (pi x): its derivative without cancellation near 0 (forward over
    reverse differentiates it again: fwdad/rules/sinc.py)."""
    out = np.sinc(x)
    slope = sinc_derivative(1, x)
    return out, lambda ct: (ct * slope,)


next_order_rrule(sinc_derivative)


@raw_rrule(np.nan_to_num)
def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """The finite entries pass their cotangent; the replaced ones are constants.
    copy=False writes the result into x."""
    kwargs = dict(nan=nan, posinf=posinf, neginf=neginf)
    if not is_tracked(x):
        return np.nan_to_num(x, copy=copy, **kwargs)
    out = Pure(np.nan_to_num, _nan_to_num_rule)(x, **kwargs)
    if copy:
        return out
    get_rrule(operator.setitem)(x, Ellipsis, out)
    return x


def _nan_to_num_rule(x, **kwargs):
    return np.nan_to_num(x, **kwargs), lambda ct: (selected(np.isfinite(x), ct),)


@rrule(np.angle)
def _angle(z, deg=False):
    """d angle = Im(conj(z) dz) / |z|^2 = Re(-i conj(z) dz) / |z|^2 (docs/complex.md),
    0 at z = 0; the angle of a real number (0 or pi) is piecewise constant."""
    out = np.angle(z, deg)
    if not np.iscomplexobj(z):
        return out, lambda ct: (np.zeros(np.shape(z)),)
    scale = 180.0 / np.pi if deg else 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = np.where(z == 0, 0.0, -1j * scale * np.conjugate(z) / (z * np.conjugate(z)))
    return out, lambda ct: (ct * slope,)


# ---- np.roots: the implicit function theorem (fwdad/rules/polynomials.py) -------------------
@rrule(np.roots)
def _roots(p):
    """ct @ dr/dc, without a conjugate: right for complex roots and coefficients alike
    (a real p keeps the real part, Re(ct dr) = Re(ct J) dp)."""
    r, jacobian = roots_and_jacobian(p)
    return r, lambda ct: (np.reshape(ct @ jacobian, np.shape(p)),)


complex_ready(np.roots)
