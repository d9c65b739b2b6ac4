"""Which rrules are right for complex values (docs/complex.md): every other rule refuses
a complex variable (fwdad/reverse/complexes.py) rather than give a wrong cotangent.

Under JAX's convention a cotangent pairs with a tangent as Re(sum(ct * t)), without a
conjugate, so the pullback of a holomorphic primitive is ct * f'(x), with transposes,
as on real values: the real rules below hold for complex values unchanged. Rules that
read real and imaginary parts apart (np.real, np.imag, np.conjugate, abs, np.angle,
np.vdot, var, std, np.linalg.norm) handle complex input in their own pullbacks.

    complex_ready(np.sin)    the rule of np.sin takes and makes complex variables
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from fwdad import lang
from fwdad.reverse.registry import complex_ready
from fwdad.rules.adjugates import adjugate

# (each one's ndarray method is declared below; tolist runs item's rule)
SCALAR_METHODS = ("conj", "conjugate", "copy", "astype", "item", "tolist",
                  "sum", "mean", "prod", "cumsum", "cumprod", "reshape", "transpose",
                  "squeeze", "ravel", "flatten", "take", "repeat")

# ---- holomorphic: ct * f'(x) -------------------------------------------------------------
complex_ready(operator.add, np.add, operator.sub, np.subtract, operator.mul, np.multiply,
              operator.truediv, np.true_divide, operator.neg, np.negative, operator.pos,
              np.positive, operator.pow, np.power, builtins.pow)
complex_ready(np.sin, np.cos, np.tan, np.sinh, np.cosh, np.tanh, np.exp, np.exp2, np.expm1,
              np.log, np.log2, np.log10, np.log1p, np.sqrt, np.square, np.reciprocal)

# ---- linear in x, with real coefficients, or bilinear (transposes, no conjugates) ------
complex_ready(np.prod, np.ndarray.prod, np.cumsum, np.ndarray.cumsum)
complex_ready(np.sum, np.ndarray.sum, np.mean, np.ndarray.mean, operator.matmul, np.matmul,
              np.dot, np.ndarray.dot, np.einsum, np.outer, np.inner, np.tensordot,
              np.trace, np.ndarray.trace, np.where)
complex_ready(np.linalg.solve, np.linalg.inv, np.linalg.det, adjugate)

# ---- complex parts and real functions of complex values: their own pullbacks ------------
complex_ready(np.vdot, np.real, np.imag, np.conjugate, operator.abs, builtins.abs, np.absolute,
              np.angle, np.var, np.ndarray.var, np.std, np.ndarray.std, np.linalg.norm)

# ---- moving elements: their cotangents move back unchanged -------------------------------
complex_ready(operator.getitem, operator.setitem, np.transpose, np.ndarray.transpose,
              np.reshape, np.ndarray.reshape, np.ravel, np.ndarray.ravel, np.swapaxes,
              np.ndarray.swapaxes, np.moveaxis, np.squeeze, np.ndarray.squeeze,
              np.expand_dims, np.concatenate, np.stack, np.hstack, np.vstack,
              np.broadcast_to, np.diagonal, np.ndarray.diagonal, np.ndarray.flatten,
              np.take, np.ndarray.take, np.repeat, np.ndarray.repeat, np.ndarray.item)
complex_ready(lang.build_list, lang.build_tuple, lang.build_dict, lang.unpack, list.append,
              getattr, np.array, np.asarray, np.copy, np.ndarray.copy, np.ndarray.conj,
              np.ndarray.conjugate, np.linalg.matmul)
# (a field written and read back holds the variable itself; setattr's override and hooks
# run derived rules, whose lines check their own values)
complex_ready(setattr, object.__setattr__)
complex_ready(builtins.complex)
# (a complex value cast to a real dtype keeps its real part, whose transpose is ct as it
# is; a real one cast to complex keeps the real part of its cotangent: adjoints.accumulate)
complex_ready(np.ndarray.astype, np.astype, np.complex128, np.complex64)

# ---- methods of NumPy scalars: a complex scalar's runs the ndarray method's rule above on
# it as a 0-d varmat (rules_scalar_methods.py), which checks its own arguments -----------
complex_ready(*(getattr(np.generic, name) for name in SCALAR_METHODS))

# ---- rules that only call the rules above (which check their own arguments) ------------
complex_ready(operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ipow,
              operator.imatmul, builtins.sum, np.ufunc.reduce, np.ufunc.accumulate,
              np.ufunc.outer, np.linalg.multi_dot)
