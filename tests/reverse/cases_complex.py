"""Reverse rule cases with complex arguments: one row per rule declared complex_ready
(fwdad/reverse/rules_complex.py), run through the dot-product test Re(sum(vjp(ct) * t))
== Re(sum(ct * jvp(t))) against forward mode (docs/complex.md). Complex arrays live in
the varmat layout only, so no row runs through test_varmat_matvar."""
from __future__ import annotations

import builtins
import cmath
import operator

import numpy as np

from fwdad.reverse.rules_complex import SCALAR_METHODS
from fwdad.rules.adjugates import adjugate
from fwdad.rules.cmathfns import TWINS
from tests.reverse.case import Case

R = np.random.default_rng(2027)  # (its own: the shared one feeds the tables after this)


def _complex(*shape):
    return R.standard_normal(shape) + 1j * R.standard_normal(shape)


Z = _complex(2, 3)            # away from 0 and the branch cuts where it matters
ZP = np.abs(Z) + 0.5 + 0.3j   # the right half plane: log, sqrt, power
M = _complex(3, 3) + 3.0 * np.eye(3)  # invertible
V = _complex(3)
W = _complex(3)
ZS = 0.7 - 1.3j               # a complex scalar


def _row(fn, *args, **kwargs):
    return Case(fn, args, kwargs, varmat=False)


def _arithmetic():
    binary = [operator.add, np.add, operator.sub, np.subtract, operator.mul, np.multiply,
              operator.truediv, np.true_divide]
    rows = [_row(f, Z, ZP) for f in binary] + [_row(f, ZS, 2.0 - 0.5j) for f in binary]
    rows += [_row(f, Z, np.abs(Z[0])) for f in (np.add, np.multiply, np.true_divide)]
    rows += [_row(operator.pow, ZP, 1.7 + 0.4j), _row(np.power, ZP, ZP),
             _row(builtins.pow, ZS, 3.0), _row(operator.pow, ZS, 2.5 - 1.0j)]
    rows += [_row(f, Z) for f in (operator.neg, np.negative, operator.pos, np.positive)]
    return rows


def _ufuncs():
    anywhere = [np.sin, np.cos, np.tan, np.sinh, np.cosh, np.tanh, np.exp, np.exp2,
                np.expm1, np.square, np.reciprocal]
    half_plane = [np.log, np.log2, np.log10, np.log1p, np.sqrt]
    return [_row(f, Z) for f in anywhere] + [_row(f, ZP) for f in half_plane]


def _off_the_cuts():
    """The inverse functions off their branch cuts (fwdad/rules/branch_cuts.py), sign,
    the selections (ordered by (re, im)), float_power and cumprod."""
    inverse = [np.arcsin, np.arccos, np.arctan, np.arcsinh, np.arccosh, np.arctanh]
    rows = [_row(f, Z) for f in inverse] + [_row(f, ZS) for f in inverse]
    rows += [_row(np.arccosh, -Z), _row(np.arccosh, np.array([-0.5 + 1e-3j, 3.0 - 1e-3j]))]
    rows += [_row(np.sign, Z), _row(np.sign, ZS), _row(np.sign, Z.real)]
    rows += [_row(f, Z, Z[::-1]) for f in (np.maximum, np.minimum, np.fmax, np.fmin)]
    rows += [_row(f, ZS, 1.7) for f in (np.maximum, np.minimum, np.fmax, np.fmin)]  # (a
    # Python complex has no >=: a bare TypeError before)
    rows += [_row(np.float_power, ZP, Z), _row(np.float_power, np.array([-2.0, -0.5]),
                                                np.array([0.5 + 1j, 2.5 + 0.2j]))]
    rows += [_row(np.cumprod, Z), _row(np.cumprod, Z, axis=1), _row(np.ndarray.cumprod, Z, 0),
             _row(np.cumprod, Z * [1, 0, 1]), _row(np.multiply.accumulate, V)]
    return rows


def _parts():
    rows = [_row(f, Z) for f in (np.real, np.imag, np.conjugate, np.absolute,
                                 np.ndarray.conj, np.ndarray.conjugate, np.angle)]
    rows += [_row(np.angle, Z, deg=True), _row(operator.abs, ZS), _row(builtins.abs, ZS),
             _row(np.abs, Z), _row(np.imag, Z.real)]
    rows += [_row(getattr, Z, "real"), _row(getattr, Z, "imag"), _row(getattr, ZS, "imag")]
    rows += [_row(builtins.complex, 0.3, -0.7), _row(builtins.complex, ZS, 0.4 + 0.2j),
             _row(builtins.complex, 0.3), _row(builtins.complex, ZS)]
    return rows


def _cmath():
    rows = [_row(f, 0.3 + 0.2j) for f in TWINS]
    rows += [_row(f, 1.4 if f is cmath.acosh else 0.4) for f in TWINS]  # (off the cut)
    return rows + [_row(cmath.sqrt, -2.0), _row(cmath.log, 0.3 - 0.8j),
                   _row(cmath.log, 0.3 - 0.8j, 3.0), _row(cmath.log, 2.5, 1.5 + 0.5j),
                   _row(cmath.phase, ZS), _row(cmath.polar, ZS), _row(cmath.polar, -1.5),
                   _row(cmath.rect, 0.7, 0.4), _row(complex.conjugate, 0.3 - 0.8j)]


def _reductions():
    rows = [_row(np.prod, Z), _row(np.prod, Z, axis=1), _row(np.ndarray.prod, Z, axis=0),
            _row(np.cumsum, Z), _row(np.cumsum, Z, axis=1), _row(np.ndarray.cumsum, Z, axis=0)]
    rows += [_row(np.sum, Z), _row(np.sum, Z, axis=0), _row(np.ndarray.sum, Z, axis=1),
            _row(np.mean, Z), _row(np.ndarray.mean, Z, axis=0), _row(np.dot, V, W),
            _row(np.dot, M, V), _row(np.ndarray.dot, M, M), _row(np.matmul, M, M),
            _row(operator.matmul, V, M), _row(np.einsum, "ij,j->i", M, V),
            _row(np.outer, V, W), _row(np.inner, V, W), _row(np.tensordot, M, M, axes=1),
            _row(np.trace, M), _row(np.ndarray.trace, M), _row(np.linalg.matmul, M, M),
            _row(np.vdot, V, W), _row(np.vdot, M, M.T), _row(np.vdot, V, W.real),
            _row(np.where, Z.real > 0, Z, 2.0 * Z)]
    rows += [_row(np.var, Z), _row(np.var, Z, axis=1, ddof=1), _row(np.ndarray.var, Z),
             _row(np.std, Z), _row(np.std, Z, axis=0), _row(np.ndarray.std, Z, axis=1)]
    rows += [_row(np.linalg.norm, V)] + [_row(np.linalg.norm, V, ord=p)
                                         for p in (1, 3, np.inf, -np.inf)]
    rows += [_row(np.linalg.norm, M, ord=p) for p in ("fro", "nuc", 2, 1, np.inf)]
    rows += [_row(np.linalg.norm, Z, axis=1)]
    return rows


def _values_only(a):
    return np.linalg.svd(a, compute_uv=False)


def _thin(a):
    return np.linalg.svd(a, full_matrices=False)


def _upper(a):
    return np.linalg.eigvalsh(a, UPLO="U")


def _linalg():
    hermitian = M + M.conj().T  # (its eigenvalues are distinct)
    return [_row(np.linalg.solve, M, V), _row(np.linalg.solve, M, Z.T),
            _row(np.linalg.inv, M), _row(np.linalg.det, M), _row(np.linalg.slogdet, M),
            _row(adjugate, M), _row(adjugate, np.outer(V, V[::-1]) + np.outer(M[0], V)),
            _row(np.linalg.eigvalsh, hermitian), _row(_upper, hermitian),
            _row(np.linalg.eigvalsh, M), _row(np.linalg.eigh, hermitian), _row(np.linalg.eigh, M),
            _row(np.linalg.eigh, M, "U"), _row(np.linalg.svd, M), _row(_thin, Z),
            _row(_thin, Z.T), _row(_values_only, Z), _row(_values_only, Z.T),
            _row(_values_only, M)]


def _take(x):
    return x[1, ::2]


def _write(x):
    y = np.zeros(3, dtype=complex)
    y[1:] = x[0, :2] * 2.0
    return y


def _from_list(z, x):
    return np.array([z, x[0] * 1j, z * x[1]])


def _append(x):
    out = []
    out.append(x[0] * 2.0)
    return out


def _joined(join):
    def joined(a, b):
        return join((a, b))
    joined.__qualname__ = f"joined_{join.__name__}"
    return joined


def _in_place(z):
    acc = z * 1.0
    acc += z * z
    acc *= 2.0 - 1.0j
    acc /= z + 3.0
    acc -= np.conj(z)
    acc **= 2
    return acc


def _in_place_scalar(z):
    acc = z
    acc += 1.0j
    acc *= z
    return acc


def _builtin_sum(z):
    return sum([z[0], z[1] * 1j, z[2]])


def _delegating():
    return [_row(_in_place, Z), _row(_in_place_scalar, ZS), _row(_builtin_sum, V),
            _row(np.add.reduce, Z), _row(np.multiply.reduce, V),
            _row(np.add.accumulate, V), _row(np.maximum.accumulate, V),
            _row(np.multiply.outer, V, W),
            _row(np.linalg.multi_dot, [M, M, M])]


def _moving():
    rows = [_row(operator.getitem, Z, (1, slice(None, None, 2))), _row(_take, Z),
            _row(_write, Z), _row(_from_list, ZS, np.array([0.4, -1.1])),
            _row(_append, Z)]
    rows += [_row(f, Z, (3, 2)) for f in (np.reshape, np.ndarray.reshape)]
    rows += [_row(f, Z) for f in (np.transpose, np.ndarray.transpose, np.ravel,
                                  np.ndarray.ravel, np.ndarray.flatten, np.squeeze,
                                  np.ndarray.squeeze)]
    rows += [_row(np.swapaxes, Z, 0, 1), _row(np.ndarray.swapaxes, Z, 0, 1),
             _row(np.moveaxis, Z, 0, 1), _row(np.expand_dims, Z, 0),
             _row(np.broadcast_to, V, (2, 3)), _row(np.diagonal, M),
             _row(np.ndarray.diagonal, M)]
    rows += [_row(_joined(f), Z, Z.conj()) for f in (np.concatenate, np.stack, np.hstack,
                                                      np.vstack)]
    rows += [Case(np.ndarray.astype, (Z, np.complex64), varmat=False, rtol=1e-5),
             _row(np.ndarray.astype, Z.real, complex), _row(np.astype, Z.real, complex),
             _row(np.copy, Z), _row(np.ndarray.copy, Z), _row(np.asarray, Z),
             _row(np.array, Z)]
    return rows


def _scalar_methods():
    """A NumPy complex scalar's methods (a 0-d varmat for the ndarray method's rule:
    fwdad/reverse/rules_scalar_methods.py), and a real one cast to complex."""
    z = np.complex128(ZS)
    extra = {"astype": (complex,), "reshape": ((1, 1),), "take": ([0, 0],), "repeat": (3,)}
    rows = [_row(getattr(np.generic, name), z, *extra.get(name, ()))
            for name in SCALAR_METHODS]
    return rows + [Case(np.generic.astype, (z, np.complex64), varmat=False, rtol=1e-5),
                   _row(np.generic.astype, np.float64(0.7), complex),
                   _row(np.ndarray.item, Z, 4),
                   _row(np.take, Z, [4, 0, 4]), _row(np.ndarray.take, Z, [1, 2], axis=1),
                   _row(np.repeat, Z, 2, axis=0), _row(np.ndarray.repeat, V, [1, 0, 2])]


COMPLEX_CASES = (_arithmetic() + _ufuncs() + _off_the_cuts() + _parts() + _reductions()
                 + _linalg() + _moving() + _delegating() + _cmath() + _scalar_methods())
