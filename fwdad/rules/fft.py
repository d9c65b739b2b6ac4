"""Forward rules for np.fft: the transforms, fftshift and ifftshift, fftfreq and rfftfreq.

    y = np.fft.fft(x, n, axis, norm)   ->   dy = np.fft.fft(dx, n, axis, norm)

Every transform is linear over the reals (hfft and ihfft conjugate, irfft drops the
imaginary parts of its zero and Nyquist terms: still real-linear), so its tangent is the
same transform of the tangent, with the same `n`, `s` and `norm`. A real input's tangent
is real and a complex output's tangent is complex, as the transform makes them. A batch
of tangents leads with its batch axis, which must not be transformed: the rules pass
the axes as negative numbers, which name the same axes with or without it, and make
fftn's default `axes=None` (every axis, or the last len(s)) explicit. `out=` is
handled by fwdad/rules/outputs.py.
"""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import fit, lift, ndim
from fwdad.rules.registry import frule, takes_out


def from_the_end(axes, count: int):
    """`axes` (an int, or a sequence) of an array of `count` axes, as negative numbers:
    they name the same axes of its tangent, with or without a leading batch axis."""
    if isinstance(axes, (int, np.integer)):
        return int(axes) - count if axes >= 0 else int(axes)
    return tuple(from_the_end(a, count) for a in axes)


def transformed_axes(axes, s, count: int):
    """The axes an n-dimensional transform runs over, explicitly (NumPy's default for
    axes=None: every axis, or the last len(s) when `s` is given), from the end."""
    if axes is None:
        return tuple(range(-(count if s is None else len(s)), 0))
    return from_the_end(axes, count)


# ---- the one-dimensional transforms --------------------------------------------------------
def _along_axis(fn):
    def rule(a: Dual, n=None, axis=-1, norm=None) -> Dual:
        out = fn(a.primal, n, axis, norm)
        along = from_the_end(axis, ndim(a.primal))
        return Dual(out, fit(fn(a.tangent, n, along, norm), out))
    rule.__name__ = f"_{fn.__name__}"
    rule.__doc__ = f"d {fn.__name__}(a) = {fn.__name__}(da), along the same axis."
    return rule


# ---- the n-dimensional transforms ----------------------------------------------------------
def _over_axes(fn, default_axes):
    def rule(a: Dual, s=None, axes=default_axes, norm=None) -> Dual:
        out = fn(a.primal, s, axes, norm)
        over = transformed_axes(axes, s, ndim(a.primal))
        return Dual(out, fit(fn(a.tangent, s, over, norm), out))
    rule.__name__ = f"_{fn.__name__}"
    rule.__doc__ = f"d {fn.__name__}(a) = {fn.__name__}(da), over the same axes."
    return rule


ONE_DIMENSIONAL = (np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft, np.fft.hfft,
                   np.fft.ihfft)
TWO_DIMENSIONAL = (np.fft.fft2, np.fft.ifft2, np.fft.rfft2, np.fft.irfft2)
N_DIMENSIONAL = (np.fft.fftn, np.fft.ifftn, np.fft.rfftn, np.fft.irfftn)

for _fn in ONE_DIMENSIONAL:
    frule(_fn)(_along_axis(_fn))
for _fn in TWO_DIMENSIONAL:
    frule(_fn)(_over_axes(_fn, (-2, -1)))
for _fn in N_DIMENSIONAL:
    frule(_fn)(_over_axes(_fn, None))


# ---- shifts: entries moved ---------------------------------------------------------------
def _shifting(fn):
    def rule(x: Dual, axes=None) -> Dual:
        out = fn(x.primal, axes)
        return Dual(out, fit(fn(x.tangent, transformed_axes(axes, None, ndim(x.primal))),
                             out))
    rule.__name__ = f"_{fn.__name__}"
    rule.__doc__ = f"d {fn.__name__}(x) = {fn.__name__}(dx): the entries move alike."
    return rule


frule(np.fft.fftshift)(_shifting(np.fft.fftshift))
frule(np.fft.ifftshift)(_shifting(np.fft.ifftshift))


# ---- sample frequencies: k / (n d) -------------------------------------------------------
# Note: constant in n, but not in the spacing d (a grid whose length is a parameter):
# declaring them nondiff would drop d's tangent without a word.
def _frequencies(fn):
    def rule(n, d: Dual = 1.0, device=None) -> Dual:
        spacing, dd = (d.primal, d.tangent) if isinstance(d, Dual) else (d, 0.0)
        out = fn(n, spacing, device=device)
        return Dual(out, fit(-out / spacing * lift(spacing, dd, 1), out))
    rule.__name__ = f"_{fn.__name__}"
    rule.__doc__ = f"{fn.__name__}(n, d) = k / (n d): d(out) = -out / d * dd."
    return rule


frule(np.fft.fftfreq)(_frequencies(np.fft.fftfreq))
frule(np.fft.rfftfreq)(_frequencies(np.fft.rfftfreq))


takes_out(4, *ONE_DIMENSIONAL, *TWO_DIMENSIONAL, *N_DIMENSIONAL)  # (out=: rules/outputs.py)
