"""Forward over reverse: the forward-mode derivative of a reverse-mode gradient.

    jvp(grad(f), (x,), (v,))   ->   (grad f(x), H v)      one reverse pass on Dual values

A gradient inside forward mode (an inner `grad` under `jvp`, `hvp`, `hessian`) is the
reverse pass of f run on Dual values: forward mode derives rules for the reverse code
as it does for user code (the generated reverse rule of f, the rrules, Var and VarMat
are plain Python), so each adjoint carries its own tangent, and H v costs a small
constant times a gradient, whatever the number of inputs.

Hand-written here: the pass itself (a region of its own on the tape, a ContextVar;
running the recorded Dual callbacks backwards) and, in fwdad/over_reverse_rules.py, the
rules for the few pieces of reverse code that are not plain differentiable code.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from fwdad.core.closures import DerivedClosure
from fwdad.core.duals import fresh
from fwdad.dual import Dual
from fwdad.errors import FwdadError, InternalError
from fwdad.forward import dispatch as forward
from fwdad.forward.defaults import kept_duals
from fwdad.reverse import boxing, tape
from fwdad.reverse import dispatch as reverse
from fwdad.reverse.api import check_real_scalar
from fwdad.reverse.stores import settle, settle_tangents
from fwdad.reverse.var import VarMat
from fwdad.tangents import NoTangent, Tangent


class DualRegion(tape.Tape):
    """A tape region recorded by forward-mode code: its callbacks are Duals."""


def applies(f: Dual) -> bool:
    """Whether f's reverse pass can run on Dual values: a function with no tangent of
    its own. A function defined inside differentiated code (a `DerivedClosure`: its
    rule is forward code closing over Duals) or a partial holding differentiated values
    is differentiated by the level-2 jvps of fwdad/nesting.py instead."""
    return f.tangent is NoTangent and not isinstance(f.primal, DerivedClosure)


class NotOverReverse(FwdadError):
    """f's reverse pass cannot run on Dual values (reverse mode refuses something f
    does, or the reverse code uses a construct forward mode does not run yet): the
    caller differentiates f by forward over forward instead. `unexpected` is an error
    that is no refusal (not a FwdadError): the user's program's own, which forward over
    forward raises again, or a bug of fwdad's, which the caller reports as an
    InternalError when forward over forward succeeds."""

    def __init__(self, message: str, unexpected: Optional[BaseException] = None) -> None:
        super().__init__(message)
        self.unexpected = unexpected


def value_and_grad(f: Dual, args: Tuple[Dual, ...], wrt: Tuple[int, ...],
                   kwargs: Optional[Dict[str, Dual]] = None) -> Tuple[Dual, List[Dual]]:
    """f(*args) and its gradients with respect to the arguments in `wrt`, each a Dual
    whose tangent is the forward derivative of the gradient; keyword arguments are
    constants of the gradient (keeping their own tangents). Raises NotOverReverse, with
    the arguments untouched, when the reverse pass cannot run on Duals."""
    kwargs = {k: copied(v) for k, v in (kwargs or {}).items()}
    region = DualRegion(tape.current_layout())
    token = tape.REGION_STACK.set(tape.regions() + (region,))
    try:
        boxed = tuple(_boxed(a, region) if i in wrt else copied(a)
                      for i, a in enumerate(args))  # (f's writes reach these first)
        held = [_call(boxing.hold, b) for b in boxed]
        out = forward.call(fresh(reverse.call), f, *boxed, **kwargs)
        value = _call(boxing.unbox, out)
        check_real_scalar(f.primal, value.primal)
        finals = [_final(b, region) if i in wrt else copied(b)  # (the backward pass
                  for i, b in enumerate(boxed)]                 # restores the values)
        _call(boxing.seed, out, Dual(1.0, 0.0))
        # As Tape.backward with release: each callback is dropped once run, so that the
        # memory of its values and adjoints is reused by those made after it.
        chain, region.chain = region.chain, []
        while chain:
            callback = chain.pop()[0]
            if type(callback) is over_reverse_pure.DualChain:
                callback.run()
            else:
                forward.call(callback)
            del callback
        grads = [_call(boxing.cast, _adjoints(held[i]),
                       fresh(boxing.dtypes(args[i].primal))) for i in wrt]
    except InternalError:
        raise
    except FwdadError as exc:
        raise NotOverReverse(str(exc)) from exc
    except Exception as exc:  # no refusal: the program's own error, or a bug of ours
        raise NotOverReverse(f"{type(exc).__name__}: {exc}", exc) from exc
    finally:
        tape.REGION_STACK.reset(token)
        settle(region.stores)  # (the user's lists and dicts hold no Var after the pass,
        settle_tangents(kept_duals())  # and a default's Dual no Var's tangent)
    for arg, final in zip(args, finals):  # f may have updated an argument in place
        if final is not None:
            write_final(arg, final)
    return value, grads


def _boxed(arg: Dual, region: DualRegion) -> Dual:
    """boxing.box on Duals. A float64 array, the common argument, written out: a VarMat
    of a copy, on both parts, as box's derived rule makes it (its tangent a Tangent of
    the copied tangent, batched or not, and no adjoint yet); anything else takes it."""
    p, t = arg.primal, arg.tangent
    if type(p) is np.ndarray and p.dtype == np.float64 and type(t) is np.ndarray and \
            t.dtype == np.float64 and region.layout == "varmat":
        return Dual(VarMat(p.astype(float)), Tangent(value=t.astype(float), _adjoint=NoTangent))
    return _call(boxing.box, arg, fresh(region))


def _adjoints(held: Dual) -> Dual:
    """boxing.adjoints on Duals, without its copy for a VarMat whose adjoint both parts
    have (the region is dropped after this pass: nothing writes into them again)."""
    if type(held.primal) is VarMat and isinstance(held.tangent, Tangent) and \
            type(held.primal._adjoint) is np.ndarray and \
            type(getattr(held.tangent, "_adjoint", None)) is np.ndarray:
        return Dual(held.primal._adjoint, held.tangent._adjoint)
    return _call(boxing.adjoints, held)


def _final(box: Dual, region: DualRegion):
    """A differentiated argument as f left it, or None when f wrote into no variable
    (the region records every write into a VarMat, as plain reverse mode relies on)."""
    return _call(boxing.unbox, box) if region.writes else None


def write_final(arg: Dual, final: Dual) -> None:
    """What boxing.write_back does, on Duals: an array argument (or one in a list, tuple
    or dict) ends as f left it, its tangent with it. Only once the whole pass has run,
    so that a pass that stops leaves the arguments as they were."""
    primal, tangent = arg.primal, arg.tangent
    if isinstance(primal, np.ndarray) and isinstance(final.primal, np.ndarray):
        if not np.array_equal(primal, final.primal):
            primal[...] = final.primal
        if _recorded(tangent) or _recorded(final.tangent):  # (linearize: values unknown,
            tangent[...] = final.tangent                     # the write is recorded)
        elif isinstance(tangent, np.ndarray) and isinstance(final.tangent, np.ndarray) and \
                not np.array_equal(tangent, final.tangent):
            tangent[...] = final.tangent  # (a constant's read-only zero refuses it)
    elif isinstance(primal, (list, tuple)) and isinstance(final.primal, (list, tuple)):
        for k in range(min(len(primal), len(final.primal))):
            write_final(_item(arg, k), _item(final, k))
    elif isinstance(primal, dict) and isinstance(final.primal, dict):
        for k in primal:
            if k in final.primal:
                write_final(_item(arg, k), _item(final, k))


def copied(d: Dual) -> Dual:
    """The arrays of a Dual (in lists, tuples and dicts too) copied; the rest shared."""
    return Dual(arrays_copied(d.primal), arrays_copied(d.tangent))


def arrays_copied(x: Any) -> Any:
    """x with its arrays (in lists, tuples and dicts too) copied; the rest shared. A
    tangent linearize records (`Linear`) is copied on its tape: shared, a write of one
    run into it reached the next run's tangent when lin replayed them."""
    if _recorded(x):
        return x.copy()
    if isinstance(x, np.ndarray):
        copy = x.copy()
        copy.flags.writeable = x.flags.writeable  # (a constant's tangent stays read-only)
        return copy
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(arrays_copied(v) for v in x)
    if isinstance(x, dict):
        return {k: arrays_copied(v) for k, v in x.items()}
    return x


def _recorded(tangent: Any) -> bool:
    if type(tangent) is np.ndarray:  # (the common case, asked without the import)
        return False
    from fwdad.recording import Linear  # (recording imports the rules' modules)
    return type(tangent) is Linear


def _item(d: Dual, key: Any) -> Dual:
    tangent = d.tangent[key] if isinstance(d.tangent, (list, tuple, dict)) else NoTangent
    return Dual(d.primal[key], tangent)


def _call(fn: Any, *args: Dual) -> Dual:
    return forward.call(fresh(fn), *args)


from fwdad import over_reverse_pure, over_reverse_rules  # noqa: E402,F401  (rules)
