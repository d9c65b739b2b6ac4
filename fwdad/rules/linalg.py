"""Rules for products: matmul, dot, vdot, inner, outer, tensordot, einsum, kron, and
the linear maps trace and diag (decompositions and solvers: decompositions.py)."""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import fit, is_batched, lift, map_batch
from fwdad.rules.operators import broadcast_tangents
from fwdad.rules.registry import KEYWORD_ONLY, def_nondiff, frule, takes_out
from fwdad.tangents import NoTangent


def _times_right(a, db, b, out):
    """a @ db for the tangent db of b, which may carry a leading batch axis."""
    if db is NoTangent:
        return NoTangent
    if is_batched(b, db) and np.ndim(b) == 1:  # a batch of vectors: one column each
        return np.moveaxis(np.matmul(a, db.T), -1, 0) if np.ndim(a) > 1 else db @ a
    return np.matmul(a, lift(b, db, np.ndim(out)))


def _times_left(da, a, b, out):
    """da @ b for the tangent da of a (batched ones broadcast as stacks)."""
    if da is NoTangent:
        return NoTangent
    return np.matmul(lift(a, da, np.ndim(out)), b)


def matmul_tangent(x: Dual, y: Dual, out):
    """d(x @ y) = dx @ y + x @ dy."""
    return _times_left(x.tangent, x.primal, y.primal, out) + \
        _times_right(x.primal, y.tangent, y.primal, out)


@frule(np.matmul, pure=True)
def np_matmul_rule(x: Dual, y: Dual) -> Dual:
    out = np.matmul(x.primal, y.primal)
    return Dual(out, matmul_tangent(x, y, out))


@frule(np.dot, np.ndarray.dot, pure=True)
def _dot(x: Dual, y: Dual) -> Dual:
    """dot is matmul for vectors and matrices, and multiplication for scalars."""
    out = np.dot(x.primal, y.primal)
    if np.ndim(x.primal) == 0 or np.ndim(y.primal) == 0:
        dx, dy = broadcast_tangents(x, y, out)  # (a float64 result of a float32 array: cast)
        return Dual(out, fit(dx * y.primal + x.primal * dy, out))
    if np.ndim(y.primal) > 2:
        return Dual(out, _dot_stacks_tangent(x, y))
    return Dual(out, matmul_tangent(x, y, out))


def _dot_stacks_tangent(x: Dual, y: Dual):
    """d dot(x, y) = dot(dx, y) + dot(x, dy) for a y of 3 or more axes, where dot pairs
    x with every stack of y (matmul would broadcast the stacks instead)."""
    dx_y = NoTangent if x.tangent is NoTangent else np.dot(x.tangent, y.primal)
    x_dy = NoTangent if y.tangent is NoTangent else np.dot(x.primal, y.tangent)
    if is_batched(y.primal, y.tangent):  # dot put the batch axis after x's axes
        x_dy = np.moveaxis(x_dy, np.ndim(x.primal) - 1, 0)
    return dx_y + x_dy


# ---- more products: each is linear in each argument ---------------------------------------
def _flat(d: Dual):
    """The primal and tangent raveled (the tangent after its batch axis)."""
    p = np.ravel(d.primal)
    if d.tangent is NoTangent:
        return p, NoTangent
    t = d.tangent
    if not hasattr(t, "reshape"):  # a float (a tangent recorded by linearize stays one)
        t = np.asarray(t)
    return p, (t.reshape(len(t), -1) if is_batched(d.primal, t) else t.ravel())


@frule(np.outer)
def outer_rule(a: Dual, b: Dual) -> Dual:
    """outer(a, b)_ij = a_i b_j, on the raveled arguments."""
    (pa, da), (pb, db) = _flat(a), _flat(b)
    left = NoTangent if da is NoTangent else da[..., :, None] * pb
    right = NoTangent if db is NoTangent else pa[:, None] * db[..., None, :]
    return Dual(np.outer(pa, pb), left + right)


takes_out(2, np.outer)  # (rules/outputs.py adds out= to its rule)


@frule(np.vdot)
def _vdot(a: Dual, b: Dual) -> Dual:
    """vdot(a, b) = sum(conj(a) * b) over the raveled arguments."""
    (pa, da), (pb, db) = _flat(a), _flat(b)
    left = NoTangent if da is NoTangent else np.conj(da) @ pb
    right = NoTangent if db is NoTangent else db @ np.conj(pa)
    return Dual(np.vdot(pa, pb), left + right)


@frule(np.inner)
def _inner(a: Dual, b: Dual) -> Dual:
    """inner sums over the last axes; with a scalar it multiplies."""
    out = np.inner(a.primal, b.primal)
    if np.ndim(a.primal) == 0 or np.ndim(b.primal) == 0:
        dx, dy = broadcast_tangents(a, b, out)
        return Dual(out, fit(dx * b.primal + a.primal * dy, out))
    left = NoTangent if a.tangent is NoTangent else np.inner(a.tangent, b.primal)
    right = NoTangent if b.tangent is NoTangent else np.inner(a.primal, b.tangent)
    if is_batched(b.primal, b.tangent):  # inner put the batch axis after a's axes
        right = np.moveaxis(right, np.ndim(a.primal) - 1, 0)
    return Dual(out, left + right)


@frule(np.tensordot)
def tensordot_rule(a: Dual, b: Dual, axes=2) -> Dual:
    out = np.tensordot(a.primal, b.primal, axes)
    a_axes, b_axes = _contracted(np.ndim(a.primal), np.ndim(b.primal), axes)
    left = right = NoTangent
    if a.tangent is not NoTangent:
        shift = int(is_batched(a.primal, a.tangent))
        left = np.tensordot(a.tangent, b.primal, ([k + shift for k in a_axes], b_axes))
    if b.tangent is not NoTangent:
        shift = int(is_batched(b.primal, b.tangent))
        right = np.tensordot(a.primal, b.tangent, (a_axes, [k + shift for k in b_axes]))
        if shift:  # the batch axis came after a's free axes
            right = np.moveaxis(right, np.ndim(a.primal) - len(a_axes), 0)
    return Dual(out, left + right)


def _contracted(a_ndim: int, b_ndim: int, axes):
    """tensordot's `axes` as two lists of non-negative axes."""
    if isinstance(axes, (int, np.integer)):
        return list(range(a_ndim - axes, a_ndim)), list(range(axes))
    a_axes, b_axes = ([x] if isinstance(x, (int, np.integer)) else list(x) for x in axes)
    return [k % a_ndim for k in a_axes], [k % b_ndim for k in b_axes]


@frule(np.einsum)
def _einsum(first: Dual, *operands: Dual, **kwargs) -> Dual:
    """The sum over operands of einsum with that operand replaced by its tangent; a
    batched tangent gets a subscript of its own, leading the output. The interleaved
    form, einsum(a, [0, 1], b, [1, 2], [0, 2]), is read as the subscripts it spells."""
    kwargs.pop("out", None)
    if isinstance(first.primal, str):
        return _einsum_of(first.primal, list(operands), kwargs)
    return _einsum_of(*interleaved_subscripts((first,) + operands), kwargs)


def _einsum_of(subscripts: str, operands: list, kwargs: dict) -> Dual:
    primals = [d.primal for d in operands]
    out = np.einsum(subscripts, *primals, **kwargs)
    inputs, output = explicit_subscripts(subscripts)
    batch = free_letter(subscripts)
    total = NoTangent
    for i, d in enumerate(operands):
        if d.tangent is NoTangent:
            continue
        spec, lead = list(inputs), ""
        if is_batched(d.primal, d.tangent):
            spec[i], lead = batch + spec[i], batch
        args = primals[:i] + [d.tangent] + primals[i + 1:]
        term = np.einsum(",".join(spec) + "->" + lead + output, *args, **kwargs)
        total = term if total is NoTangent else total + term
    return Dual(out, total)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"  # NumPy's 52 subscripts


def interleaved_subscripts(args: tuple) -> tuple:
    """from_sublists of Duals: the sublists are read from their primals."""
    plain = [a.primal if k % 2 or k == len(args) - 1 else a for k, a in enumerate(args)]
    return from_sublists(plain)


def from_sublists(args) -> tuple:
    """(a, [0, 1], b, [1, 2], [0, 2]) -> ("ab,bc->ac", [a, b]): the subscripts string the
    sublists spell (integers 0-51, Ellipsis), and the operands (both modes use it)."""
    def spell(sublist) -> str:
        return "".join("..." if k is Ellipsis else _LETTERS[k] for k in sublist)
    pairs = len(args) // 2
    inputs = ",".join(spell(args[2 * k + 1]) for k in range(pairs))
    output = "->" + spell(args[-1]) if len(args) % 2 else ""
    return inputs + output, [args[2 * k] for k in range(pairs)]


def free_letter(subscripts: str) -> str:
    """A subscript letter `subscripts` does not use (a batch of tangents takes it)."""
    return next(c for c in "ZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in subscripts)


def explicit_subscripts(subscripts: str):
    """Input subscripts and the output subscript, made explicit as NumPy would."""
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        left, output = subscripts.split("->")
        return left.split(","), output
    left = subscripts.split(",")
    letters = "".join(left).replace(".", "")
    once = sorted(c for c in set(letters) if letters.count(c) == 1)
    return left, ("..." if "..." in subscripts else "") + "".join(once)


# strings in, strings out: constants, also where this rule is differentiated again (its
# generator and str.count had no rule at a third order:
# tests/test_higher_order.py::test_einsum_to_third_order)
def_nondiff(free_letter, explicit_subscripts)


@frule(np.trace, np.ndarray.trace)
def _trace(x: Dual, offset=0, axis1=0, axis2=1, dtype=None) -> Dual:
    out = np.trace(x.primal, offset, axis1, axis2, dtype)
    if x.tangent is NoTangent:
        return Dual(out, NoTangent)
    shift = int(is_batched(x.primal, x.tangent))
    ndim = np.ndim(x.primal)
    return Dual(out, np.trace(x.tangent, offset, axis1 % ndim + shift, axis2 % ndim + shift,
                              dtype))


@frule(np.diag)
def _diag(v: Dual, k=0) -> Dual:
    """Linear: diag of the tangent (of each tangent of a batch). The diagonal of a
    matrix is a view of it: so is its tangent, of a batch too (writes to the matrix
    show through)."""
    if np.ndim(v.primal) == 2 and is_batched(v.primal, v.tangent):
        return Dual(np.diag(v.primal, k), np.diagonal(v.tangent, k, 1, 2))
    return Dual(np.diag(v.primal, k), map_batch(lambda t: np.diag(t, k), v.primal,
                                                v.tangent))


@frule(np.kron)
def _kron(a: Dual, b: Dual) -> Dual:
    left = map_batch(lambda t: np.kron(t, b.primal), a.primal, a.tangent)
    right = map_batch(lambda t: np.kron(a.primal, t), b.primal, b.tangent)
    return Dual(np.kron(a.primal, b.primal), left + right)


@frule(np.linalg.multi_dot)
def _multi_dot(arrays: Dual, **kwargs) -> Dual:
    """A chain of dot products, through the dot rule (in NumPy's order of evaluation
    the values may differ in the last bits)."""
    from fwdad.rules.shapes import items
    parts = items(arrays)
    out = parts[0]
    for part in parts[1:]:
        out = _dot(out, part)
    return Dual(np.linalg.multi_dot([p.primal for p in parts]), out.tangent)


def _gufunc_product(fn, matrix_first: bool):
    """matvec(A, v) = A v and vecmat(v, A) = conj(v) A over the last axes: bilinear;
    each tangent is lifted so that its stack axes broadcast as its primal's do."""
    def rule(a: Dual, b: Dual) -> Dual:
        out = fn(a.primal, b.primal)
        lead = np.ndim(out) + 1  # a matrix has one core axis more than the result
        da = lift(a.primal, a.tangent, lead if matrix_first else np.ndim(out))
        db = lift(b.primal, b.tangent, np.ndim(out) if matrix_first else lead)
        left = NoTangent if da is NoTangent else fn(da, b.primal)
        right = NoTangent if db is NoTangent else fn(a.primal, db)
        return Dual(out, left + right)
    rule.__name__ = f"_{fn.__name__}"
    frule(fn)(rule)


_gufunc_product(np.matvec, True)
_gufunc_product(np.vecmat, False)


takes_out(2, np.dot, np.matmul, np.ndarray.dot)  # (rules/outputs.py adds out= to them)
takes_out(5, np.trace, np.ndarray.trace)
takes_out(KEYWORD_ONLY, np.einsum)
