"""Reverse rule cases for np.fft (fwdad/reverse/rules_fft.py): every transform, with
`n` (or `s`) cropping and zero-padding, axes and every norm mode, on complex and real
input, run through the dot-product test against central finite differences in complex
directions (no row needs forward mode)."""
from __future__ import annotations

import numpy as np

from tests.reverse.case import Case

R = np.random.default_rng(2027)  # (its own: the shared one feeds the tables after this)

Z = R.standard_normal((3, 6)) + 1j * R.standard_normal((3, 6))
Z5 = R.standard_normal((4, 5)) + 1j * R.standard_normal((4, 5))
X = R.standard_normal((3, 6))
STACK = R.standard_normal((2, 3, 4)) + 1j * R.standard_normal((2, 3, 4))
NORMS = [None, "ortho", "forward"]


def _row(fn, x, **kwargs):
    return Case(fn, (x,), kwargs, varmat=False, forward=False)


def _one_dimensional():
    rows = []
    for norm in NORMS:
        for f in (np.fft.fft, np.fft.ifft):
            rows += [_row(f, Z, norm=norm), _row(f, X, axis=0, norm=norm),
                     _row(f, Z, n=4, norm=norm), _row(f, Z, n=9, norm=norm)]
        rows += [_row(np.fft.rfft, X, norm=norm), _row(np.fft.rfft, X, n=5, norm=norm),
                 _row(np.fft.rfft, X, n=8, axis=0, norm=norm)]
        rows += [_row(np.fft.irfft, x, norm=norm, **kw) for x, kw in [
            (Z, {}), (Z, {"n": 7}), (Z5, {"n": 5}), (Z5, {"axis": 0}), (Z5, {"n": 12}),
            (X, {})]]
        rows += [_row(np.fft.hfft, Z, norm=norm), _row(np.fft.hfft, Z5, n=7, norm=norm),
                 _row(np.fft.ihfft, X, norm=norm), _row(np.fft.ihfft, X, n=4, norm=norm)]
    return rows


def _several_axes():
    rows = []
    for norm in NORMS:
        for f in (np.fft.fftn, np.fft.ifftn, np.fft.fft2, np.fft.ifft2):
            rows += [_row(f, Z, norm=norm), _row(f, Z, s=(2, 8), axes=(0, 1), norm=norm)]
        for f in (np.fft.rfftn, np.fft.rfft2):
            rows += [_row(f, X, norm=norm), _row(f, X, s=(4, 5), axes=(0, 1), norm=norm)]
        for f in (np.fft.irfftn, np.fft.irfft2):
            rows += [_row(f, Z, norm=norm), _row(f, Z, s=(4, 7), axes=(0, 1), norm=norm)]
    rows += [_row(np.fft.fftn, STACK, axes=(0, 2)), _row(np.fft.rfftn, STACK.real, axes=(2, 0)),
             _row(np.fft.irfftn, STACK, axes=(1,)), _row(np.fft.ifftn, STACK, s=(3, 3),
                                                         axes=(-1, 0))]
    return rows


def _shifts_and_frequencies():
    """The shifts move entries (the cotangent moves back); the sample frequencies
    k / (n d) are differentiable in the spacing d."""
    return [_row(np.fft.fftshift, Z), _row(np.fft.fftshift, X, axes=1),
            _row(np.fft.ifftshift, Z5), _row(np.fft.ifftshift, STACK, axes=(0, 2)),
            Case(np.fft.fftfreq, (6, 0.3), varmat=False, forward=False),
            Case(np.fft.rfftfreq, (7, 1.7), varmat=False, forward=False)]


FFT_CASES = _one_dimensional() + _several_axes() + _shifts_and_frequencies()
