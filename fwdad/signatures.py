"""Whether f can take the arguments a transformation passes it, by f's signature.

    check_call("jvp", f, (0.5, 1.0))   # def f(x): ...
        ->  FwdadError: jvp calls f(x) with 2 positional arguments: too many ...

The transformations call f's rule, not f, so a call f cannot take would otherwise fail
inside generated code, naming a rule the user never wrote (`f_frule() takes 1
positional argument`). Hot paths (jvp, vjp, grad) check only once a call has failed
(`explain_failed_call`): a signature costs more than a small derivative.
"""
from __future__ import annotations

import inspect
import weakref
from typing import Any, Callable, Optional

from fwdad.errors import FwdadError, describe
from fwdad.probe import probe


def check_call(api: str, f: Callable, args: tuple, kwargs: Optional[dict] = None) -> None:
    """Nothing when f's signature accepts `args` and `kwargs`, or f has no signature.

    Raises:
        FwdadError: naming f, its signature, the arguments given and what to do.
    """
    signature = signature_of(f)
    if signature is None:  # a builtin without one: its rule decides
        return
    kwargs = kwargs or {}
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        given = _plural(len(args), "positional argument") + (
            f" and keyword arguments {', '.join(kwargs)}" if kwargs else "")
        raise FwdadError(
            f"{api} calls {describe(f)}{signature} with {given}: {exc}. Pass the "
            f"arguments f takes{_what_to_pass(api)}.") from None


# f -> (what its signature is made of, its signature or None). Note: inspect.signature
# costs 10-20 us a call, a tenth of jacfwd of the PDE residual (bench/jacobian.py). Kept
# weakly, so that a function defined in a loop is not kept alive.
_SIGNATURES: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


def signature_of(f: Callable) -> Optional[inspect.Signature]:
    """f's signature, or None when it has none; kept per f where f can be, and made
    again when f's code or defaults were replaced since."""
    parts = _parts(f)
    try:
        known = _SIGNATURES.get(f)
    except TypeError:  # not hashable, or not weakly referable
        known = None
    if known is not None and all(a is b for a, b in zip(known[0], parts)):
        return known[1]
    try:
        signature: Optional[inspect.Signature] = inspect.signature(f)
    except Exception:  # noqa: BLE001 (TypeError, ValueError: no signature; or what a user's
        signature = None  # __getattr__ raised when inspect asked it for __signature__)
    try:
        _SIGNATURES[f] = (parts, signature)
    except TypeError:
        pass
    return signature


def _parts(f: Callable) -> tuple:
    """What a function's signature is read from (compared by identity)."""
    return tuple(probe(f, name) for name in (
        "__code__", "__defaults__", "__kwdefaults__", "__signature__", "__wrapped__"))


def explain_failed_call(api: str, f: Callable, args: tuple, exc: BaseException,
                        kwargs: Optional[dict] = None) -> None:
    """After a call of f's rule raised `exc`: when it is a TypeError of a call f cannot
    take, raise the error of `check_call` instead (otherwise return)."""
    if isinstance(exc, TypeError) and not isinstance(exc, FwdadError):
        check_call(api, f, args, kwargs)


def _what_to_pass(api: str) -> str:
    return {"jvp": ": one primal and one tangent for each (a tuple each)",
            "batched_jvp": ": one primal and one batched tangent for each",
            "hvp": ": one primal and one tangent for each (a tuple each)"}.get(
        api, ", positionally for those to differentiate")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")
