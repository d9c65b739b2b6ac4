"""Rules for the `operator` module: arithmetic (on numbers and arrays), in-place
updates, comparisons and the other operators with no derivative.

Binary rules lift batched tangents so that they broadcast as their primals do.
"""
from __future__ import annotations

import operator

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.array_like import numpy_operands
from fwdad.rules.batching import fit, is_batched, lift, ndim
from fwdad.rules.classes import overloadable
from fwdad.rules.ieee import power
from fwdad.rules.registry import def_nondiff, frule
from fwdad.rules.unshared import own
from fwdad.rules.widening import refused_as_constant, widen_for
from fwdad.tangents import NoTangent


def _shaped(tangent, out):
    """The tangent broadcast to the result's shape: an operand with no tangent (an int
    array) may be the one that gave the result its shape."""
    if type(out) is not np.ndarray or tangent is NoTangent:
        return tangent
    shape = tangent.shape if type(tangent) is np.ndarray else np.shape(tangent)
    return tangent if shape[-out.ndim:] == out.shape else fit(tangent, out)


def summed(tangent, out, *terms):
    """`tangent` (dx + dy, dx - dy) as the tangent of `out`: a new object, never one of
    the `terms` (dx + NoTangent is dx), broadcast to out's shape (an operand with no
    tangent, an int array, may be the one that gave `out` its shape)."""
    return _shaped(own(tangent, *terms), out)


def broadcast_tangents(x: Dual, y: Dual, out) -> tuple:
    """The tangents of x and y, lifted to broadcast against `out`."""
    if type(out) in _SCALAR_RESULTS:  # scalars broadcast as they are, batched or not
        return x.tangent, y.tangent  # (as lift gives them for a result of no axes)
    if isinstance(out, (list, tuple)):  # concatenated (or repeated), never broadcast:
        return x.tangent, y.tangent  # (np.ndim of [gen, array] raises)
    out_ndim = ndim(out)
    return lift(x.primal, x.tangent, out_ndim), lift(y.primal, y.tangent, out_ndim)


_SCALAR_RESULTS = frozenset({float, np.float64, complex, np.complex128})


# ---- arithmetic -------------------------------------------------------------------
@frule(operator.add, pure=True)
@overloadable("__add__", "__radd__")
def add_rule(x: Dual, y: Dual) -> Dual:
    x, y = numpy_operands(x, y)
    out = x.primal + y.primal
    dx, dy = broadcast_tangents(x, y, out)
    return Dual(out, summed(dx + dy, out, dx, dy))


@frule(operator.sub, pure=True)
@overloadable("__sub__", "__rsub__")
def sub_rule(x: Dual, y: Dual) -> Dual:
    x, y = numpy_operands(x, y)
    out = x.primal - y.primal
    dx, dy = broadcast_tangents(x, y, out)
    return Dual(out, summed(dx - dy, out, dx, dy))


@frule(operator.mul, pure=True)
@overloadable("__mul__", "__rmul__")
def mul_rule(x: Dual, y: Dual) -> Dual:
    x, y = numpy_operands(x, y)
    out = x.primal * y.primal
    dx, dy = broadcast_tangents(x, y, out)
    if _is_float_zero(dx):  # a constant factor (2.0 * x): one product, not two, and
        return Dual(out, _shaped(x.primal * dy, out))  # no inf * 0.0 = nan term
    if _is_float_zero(dy):
        return Dual(out, _shaped(dx * y.primal, out))
    return Dual(out, _shaped(dx * y.primal + x.primal * dy, out))


def _is_float_zero(tangent) -> bool:
    """The zero tangent of a float constant (Dual makes NoTangent 0.0 for floats)."""
    return type(tangent) is float and tangent == 0.0


@frule(operator.truediv, pure=True)
@overloadable("__truediv__", "__rtruediv__")
def _truediv(x: Dual, y: Dual) -> Dual:
    x, y = numpy_operands(x, y)
    out = x.primal / y.primal
    dx, dy = broadcast_tangents(x, y, out)
    if _is_float_zero(dy):  # a constant divisor: no out * dy term (inf * 0.0 is nan)
        return Dual(out, _shaped(dx / y.primal, out))
    return Dual(out, _shaped((dx - out * dy) / y.primal, out))


@frule(operator.pow, pure=True)
@overloadable("__pow__", "__rpow__")
def pow_rule(x: Dual, y: Dual) -> Dual:
    x, y = numpy_operands(x, y)
    out = x.primal ** y.primal
    dx, dy = broadcast_tangents(x, y, out)
    if _is_float_zero(dy):  # a constant exponent: no log(x) term (inf * 0.0 is nan)
        return Dual(out, pow_base_term(x.primal, y.primal, dx))
    return Dual(out, pow_base_term(x.primal, y.primal, dx) + pow_exponent_term(
        x.primal, out, dy))


def pow_base_term(x, y, dx):
    """y * x**(y-1) * dx, without computing x**(y-1) when the exponent is 0, nor a power
    when it is 2 (x ** 1 is x: a copy and a slow pass saved, as the optimizer's
    `pow_two` and the reverse rule do)."""
    if dx is NoTangent:
        return NoTangent
    if (type(y) is int or type(y) is float) and y == 2:
        return y * x * dx
    if ndim(y) == 0 and y == 0:
        return 0 * dx
    return y * power(x, y - 1) * dx  # (0.0 ** -0.5: inf, as NumPy)


def pow_exponent_term(x, out, dy):
    """log(x) * x**y * dy, taken as 0 where x**y is 0 (so that 0.0**y has a finite
    derivative). For x != 0, log|x| is finite, so a zero dy gives 0 (x**2.0 at a negative
    x); the coefficient alone decides, which keeps the term linear in dy."""
    if dy is NoTangent:
        return NoTangent
    with np.errstate(divide="ignore", invalid="ignore"):
        coefficient = _log_of_base(x, out) * out
    coefficient = np.where(np.asarray(out) == 0, 0.0, coefficient)
    if coefficient.ndim == 0 and not isinstance(out, np.ndarray):
        coefficient = coefficient.item()  # scalars stay Python floats (or complex)
    return coefficient * dy


def _log_of_base(x, out):
    """log x as the power used it: a complex power is exp(y log x) with the principal
    log, log|x| + i arg x (arg -2.0 = pi: (-2.0) ** 0.5j). A real one has x > 0, x < 0
    with an integer y (log|x|, as before: tests/rules/cases.py, `-1.3 ** 2`), or is NaN."""
    if np.iscomplexobj(out):
        return np.log(np.asarray(x) + 0j)
    # (in the result's float type: a float32 power keeps a float32 tangent)
    return np.log(np.abs(np.asarray(x, dtype=np.result_type(out, 1.0))))


@frule(operator.neg, pure=True)
@overloadable("__neg__")
def _neg(x: Dual) -> Dual:
    return Dual(-x.primal, -x.tangent)


@frule(operator.pos, pure=True)
@overloadable("__pos__")
def _pos(x: Dual) -> Dual:
    return Dual(+x.primal, +x.tangent)  # a new array, with a tangent of its own


def magnitude_tangent(x, y, dx):
    """d|x| = sign(x) dx for real x (0 at 0); Re(conj(x) dx) / |x| for complex x."""
    if not np.iscomplexobj(x):
        return np.sign(x) * dx
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(y == 0, 0.0, np.real(np.conj(x) * dx) / y)


@frule(operator.abs, pure=True)
@overloadable("__abs__")
def abs_rule(x: Dual) -> Dual:
    """|x|' = sign(x) for reals; for complex z, d|z| = Re(conj(z) dz) / |z|."""
    if np.iscomplexobj(x.primal):
        out = abs(x.primal)
        tangent = magnitude_tangent(x.primal, out, x.tangent)
        # (a batch of tangents, or one linearize records, is no number)
        number = not isinstance(out, np.ndarray) and np.ndim(tangent) == 0 and \
            isinstance(tangent, (float, np.generic, np.ndarray))
        return Dual(out, float(tangent) if number else tangent)
    return Dual(abs(x.primal), np.sign(x.primal) * x.tangent)


@frule(operator.mod, pure=True)
@overloadable("__mod__", "__rmod__")
def _mod(x: Dual, y: Dual) -> Dual:
    """x % y = x - floor(x / y) * y, so the tangent is dx - floor(x / y) * dy."""
    x, y = numpy_operands(x, y)
    out = x.primal % y.primal
    if isinstance(out, (str, bytes)):  # "%.2f" % x formats: no derivative
        return Dual(out, NoTangent)
    dx, dy = broadcast_tangents(x, y, out)
    return Dual(out, own(dx - (x.primal // y.primal) * dy, dx))  # (a % 2: da)


@frule(divmod, pure=True)
def _divmod(x: Dual, y: Dual) -> Dual:
    """divmod(x, y) = (x // y, x % y): the quotient is piecewise constant."""
    remainder = _mod(x, y)
    quotient = divmod(x.primal, y.primal)[0]
    return Dual((quotient, remainder.primal), (NoTangent, remainder.tangent))


@frule(operator.matmul, pure=True)
@overloadable("__matmul__", "__rmatmul__")
def matmul_rule(x: Dual, y: Dual) -> Dual:
    from fwdad.rules.linalg import matmul_tangent
    x, y = numpy_operands(x, y)
    out = x.primal @ y.primal
    return Dual(out, matmul_tangent(x, y, out))


def_nondiff(operator.floordiv)  # piecewise constant


# ---- in place: `a += b` updates a NumPy array (and its tangent) where it is ----------
_SYMBOLS = {operator.iadd: "+=", operator.isub: "-=", operator.imul: "*=",
            operator.itruediv: "/=", operator.ipow: "**=", operator.imod: "%=",
            operator.imatmul: "@=", operator.ifloordiv: "//="}

def _in_place(pure, update):
    """An in-place rule from the pure rule: mutable arrays are updated in place, primal
    and tangent alike (so views see the change); everything else is rebound."""
    where = f"a {_SYMBOLS[update]} b"

    def rule(x: Dual, y: Dual) -> Dual:
        if isinstance(x.primal, list):
            update(x.primal, y.primal)
            update(x.tangent, y.primal if update is operator.imul else y.tangent)
            return x
        if not isinstance(x.primal, np.ndarray):
            return pure(x, y)
        if refused_as_constant(x.tangent, y.tangent, where, x.primal):
            update(x.primal, y.primal)  # zero tangents stay zero
            return x
        if update in _LINEAR_UPDATES and _tangent_updates_in_place(x, y):
            update(x.primal, y.primal)  # d(a += b) = da += db: no new tangent array
            if y.tangent is not NoTangent:
                update(x.tangent, lift(y.primal, y.tangent, x.primal.ndim))
            return x
        new = pure(x, y)  # the tangent is computed from the values before the update
        update(x.primal, y.primal)  # NumPy's own casting rules and errors
        widen_for(x, new, where)
        if x.tangent is not NoTangent:
            x.tangent[...] = new.tangent
        return x
    rule.__name__ = f"_{update.__name__}"
    name = f"__{update.__name__.strip('_')}__"  # operator.iadd -> __iadd__
    return overloadable(name, fallback=name.replace("__i", "__", 1))(rule)


_LINEAR_UPDATES = (operator.iadd, operator.isub)


def _tangent_updates_in_place(x: Dual, y: Dual) -> bool:
    """Whether `a += b` (or -=) can update a's tangent array with b's as NumPy updates
    the primal: both plain tangents, b's no more batched than a's and broadcasting
    into it (anything else goes through the pure rule)."""
    dx, dy = x.tangent, y.tangent
    if type(dx) is not np.ndarray or ndim(y.primal) > x.primal.ndim:
        return False
    if dy is NoTangent or type(dy) is float:
        return True
    return type(dy) is np.ndarray and (is_batched(x.primal, dx) or
                                       not is_batched(y.primal, dy))


for _pure, _update in [(add_rule, operator.iadd), (sub_rule, operator.isub),
                       (mul_rule, operator.imul), (_truediv, operator.itruediv),
                       (pow_rule, operator.ipow), (_mod, operator.imod),
                       (matmul_rule, operator.imatmul)]:
    frule(_update)(_in_place(_pure, _update))

frule(operator.ifloordiv)(_in_place(lambda x, y: Dual(x.primal // y.primal, NoTangent),
                                    operator.ifloordiv))

# ---- no derivative: comparisons, logic, bits, identity ------------------------------
def_nondiff(operator.lt, operator.le, operator.eq, operator.ne, operator.ge,
            operator.gt, operator.not_, operator.truth, operator.is_, operator.is_not,
            operator.contains, operator.and_, operator.or_, operator.xor,
            operator.invert, operator.lshift, operator.rshift, operator.index)
