"""The error for a callee with no rule and no source: it prints a rule to paste.

    no rule to differentiate numpy.frexp(ndarray) in f at model.py:12: ... Register one:
        @fwdad.frule(numpy.frexp)
        def _frexp(x: fwdad.Dual) -> fwdad.Dual: ...
"""
from __future__ import annotations

from typing import Any

from fwdad.dual import Dual
from fwdad.errors import MissingRuleError, describe


def missing_rule_error(fn: Any, args: tuple, location: str = "") -> MissingRuleError:
    """`location`: ` in f at file.py:12` (errors.user_code's phrase), or empty."""
    types_ = ", ".join(type(a.primal).__name__ for a in args if isinstance(a, Dual))
    name = getattr(fn, "__name__", "f")
    return MissingRuleError(
        f"no rule to differentiate {describe(fn)}({types_}){location}: it has no Python "
        f"source (or is library code) and no frule is registered for it. Register one:\n"
        f"    @fwdad.frule({_spelling(fn)})\n"
        f"    def _{name}(x: fwdad.Dual) -> fwdad.Dual:\n"
        f"        return fwdad.Dual({name}(x.primal), <derivative> * x.tangent)\n"
        f"or, if its output does not depend smoothly on its inputs, "
        f"fwdad.def_nondiff({_spelling(fn)}).")


def _spelling(fn: Any) -> str:
    module = getattr(fn, "__module__", None)
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", "f"))
    return f"{module}.{name}" if module and module != "builtins" else name
