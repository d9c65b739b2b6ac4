"""Write docs/api.md from the docstrings of fwdad's public names.

Every name in `fwdad.__all__` and `fwdad.testing.__all__` gets an entry: its signature
and its docstring. Names not placed in a group below land under "Other names", so a new
public name is never left out. tests/test_docs.py fails when the committed page differs
from what this script writes.

Run from the repository root:  python docs/gen_api.py
"""
from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any, List

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "api.md"

try:
    import fwdad
except ImportError:  # run from a checkout without installing it
    sys.path.insert(0, str(ROOT))
    import fwdad
import fwdad.testing

GROUPS = [  # (heading, what the names are for, names)
    ("Derivatives", "Forward mode (jvp, batched_jvp, jacfwd, linearize), higher order "
     "(hessian, hvp) and reverse mode (vjp, grad, value_and_grad, jacrev).",
     ["fwdad.jvp", "fwdad.batched_jvp", "fwdad.jacfwd", "fwdad.linearize", "fwdad.hessian",
      "fwdad.hvp", "fwdad.vjp", "fwdad.grad", "fwdad.value_and_grad", "fwdad.jacrev"]),
    ("Rules", "How calls are differentiated: see [Writing rules](writing-rules.md).",
     ["fwdad.derive_frule", "fwdad.frule", "fwdad.def_nondiff", "fwdad.def_linear",
      "fwdad.is_primitive"]),
    ("Checking rules", "", ["fwdad.testing.test_rule", "fwdad.testing.test_varmat_matvar"]),
    ("Values and tangents", "", ["fwdad.Dual", "fwdad.NoTangent", "fwdad.Tangent",
                                 "fwdad.zero_tangent"]),
    ("Errors", "Every error fwdad raises on purpose derives from `FwdadError`; see "
     "[Errors and debugging](errors-and-debugging.md).",
     ["fwdad.FwdadError", "fwdad.UnsupportedSyntaxError", "fwdad.MissingRuleError",
      "fwdad.SourceUnavailableError", "fwdad.TangentError",
      "fwdad.NonDifferentiableError", "fwdad.UnrecordableError",
      "fwdad.InternalError"]),
    ("Helpers of normalized code", "Normalized code calls these in place of Python's "
     "displays, starred assignments and calls of C code (see "
     "[How it works](how-it-works.md)); each does what the construct does.",
     ["fwdad.build_list", "fwdad.build_tuple", "fwdad.build_dict", "fwdad.build_set",
      "fwdad.build_slice", "fwdad.unpack", "fwdad.foreigncall"]),
]


def public_names() -> List[str]:
    return [f"fwdad.{n}" for n in fwdad.__all__] + \
        [f"fwdad.testing.{n}" for n in fwdad.testing.__all__]


def resolve(name: str) -> Any:
    module, _, attr = name.rpartition(".")
    return getattr(sys.modules[module], attr)


def signature(name: str, value: Any) -> str:
    short = name.rpartition(".")[2]
    if isinstance(value, type) and issubclass(value, BaseException):
        bases = ", ".join(b.__name__ for b in value.__bases__)
        return f"class {short}({bases})"
    if not callable(value) or not (inspect.isfunction(value) or isinstance(value, type)):
        return f"{short}: {type(value).__name__}"
    text = str(inspect.signature(value)).replace("'", "")
    return f"class {short}{text}" if isinstance(value, type) else f"{short}{text}"


def entry(name: str) -> str:
    value = resolve(name)
    doc = inspect.getdoc(value) or ""
    return (f"### `{name}`\n\n```text\n{signature(name, value)}\n```\n\n"
            f"```text\n{doc}\n```\n")


def render() -> str:
    placed = [n for _, _, names in GROUPS for n in names]
    rest = [n for n in public_names() if n not in placed]
    groups = GROUPS + ([("Other names", "", rest)] if rest else [])
    parts = ["# API reference\n",
             "Generated from the docstrings by `docs/gen_api.py`. The command line is "
             "described in [Getting started](getting-started.md#the-command-line).\n"]
    for heading, intro, names in groups:
        parts.append(f"## {heading}\n")
        if intro:
            parts.append(intro + "\n")
        parts.extend(entry(n) for n in names if n in public_names())
    return "\n".join(parts)


if __name__ == "__main__":
    PAGE.write_text(render())
