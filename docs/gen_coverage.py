"""Write docs/coverage.md: NumPy's public functions (numpy, numpy.linalg, numpy.fft) and,
for each, what fwdad differentiates: its forward rule, its reverse rule, whether a test
row pushes a batch of tangents through it, whether its second derivative is tested, or
why it is refused.

Run: python docs/gen_coverage.py    (tests/test_coverage.py fails when a function the
committed page shows as covered loses its rule, and when the page is out of date)
"""
from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any, Dict, List, NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "coverage.md"
sys.path.insert(0, str(ROOT))  # (the test tables say what is tested)

# Functions with no rule on purpose, by kind, with the reason the page shows.
_NO_DERIVATIVE = {
    "reads or writes files, buffers or text: call it outside the differentiated "
    "function and pass the arrays in": [
        "save", "savez", "savez_compressed", "load", "loadtxt", "savetxt", "genfromtxt",
        "fromregex", "fromfile", "frombuffer", "fromstring", "from_dlpack"],
    "formats values as text: no derivative": [
        "array2string", "array_str", "array_repr", "format_float_positional",
        "format_float_scientific", "binary_repr", "base_repr", "datetime_as_string",
        "typename"],
    "configuration or information: no value to differentiate": [
        "geterr", "seterr", "geterrcall", "seterrcall", "getbufsize", "setbufsize",
        "get_printoptions", "set_printoptions", "show_config", "show_runtime", "info",
        "get_include", "test"],
    "asks about types or shapes: no float output": [
        "issubdtype", "promote_types", "min_scalar_type", "mintypecode", "common_type",
        "isdtype", "datetime_data", "isfortran", "iterable", "broadcast_shapes"],
    "calendar arithmetic on dates: no float output": [
        "busday_count", "busday_offset", "is_busday"],
}
REFUSED = {f"numpy.{name}": reason for reason, names in _NO_DERIVATIVE.items()
           for name in names}
# Rules that refuse on purpose, with the error's reason.
REFUSED_BY_RULE = {
    f"numpy.{name}": "refuses a tie among values with a derivative (a perturbation can "
                     "split a repeated value), and axis=" for name in (
        "unique", "unique_all", "unique_counts", "unique_inverse", "unique_values")
}
# Reverse rules not written yet: np.fft's come with complex values in reverse mode.
REVERSE_WAITS = {f"numpy.fft.{name}": "reverse rule: with np.fft's, after complex values "
                                      "in reverse mode" for name in np.fft.__all__}


class Row(NamedTuple):
    name: str          # numpy.sin
    forward: str       # rule, constant, or -
    reverse: str       # rule, constant, or -
    batched: str       # tested, or -
    second: str        # tested, zero, or -
    note: str          # why something is refused or untested


def public_functions() -> List[tuple]:
    """(qualified name, function) for the public callables of numpy, numpy.linalg and
    numpy.fft (their __all__), classes and modules left out."""
    found = []
    for module in (np, np.linalg, np.fft):
        for name in sorted(module.__all__):
            value = getattr(module, name, None)
            if callable(value) and not isinstance(value, (type, types.ModuleType)):
                found.append((f"{module.__name__}.{name}", value))
    return found


def _tested(cases_module: Any, second_order_module: Any) -> tuple:
    """The functions test_rule rows push batches through, the second-order table's
    functions, and its reasons for the rules without a row."""
    rows = [cases_module.unwrap(row) for row in cases_module.CASES
            if not getattr(row, "marks", None)]
    batched = {_key(c.fn) for c in rows if c.batch}
    second = {_key(covers) for covers, *_ in second_order_module.ROWS}
    reasons = {_key(fn): reason for fn, reason in
               second_order_module.NO_SECOND_ORDER_ROW.items()}
    return batched, second, reasons


def _key(fn: Any) -> Any:
    return getattr(fn, "__func__", fn)


def rows() -> List[Row]:
    """One Row per public function."""
    from fwdad.reverse import registry as reverse
    from fwdad.rules import registry as forward
    from tests.rules import cases, second_order_cases
    batched, second, reasons = _tested(cases, second_order_cases)
    out = []
    for name, fn in public_functions():
        kind = forward.kind_of(fn)
        forward_text = {"nondiff": "constant", None: "-"}.get(kind, "rule")
        if kind == "nondiff":
            reverse_text = "constant"
        else:
            reverse_text = "rule" if reverse.get_rrule(fn) is not None else "-"
        notes = [REFUSED.get(name, "") or REFUSED_BY_RULE.get(name, ""),
                 REVERSE_WAITS.get(name, "") if reverse_text == "-" and kind else ""]
        if kind == "nondiff":
            second_text = "zero"
        elif _key(fn) in second:
            second_text = "tested"
        else:
            second_text = "-"
            notes.append(reasons.get(_key(fn), ""))
        out.append(Row(name, forward_text, reverse_text,
                       "tested" if kind and _key(fn) in batched else "-", second_text,
                       "; ".join(n for n in notes if n)))
    return out


HEADER = """# Coverage of NumPy

What fwdad differentiates among NumPy's public functions (`numpy`, `numpy.linalg`,
`numpy.fft`: {total} functions in NumPy {version}). Generated by `docs/gen_coverage.py`
from fwdad's rule tables and its test tables; `tests/test_coverage.py` fails when a
function shown here as covered loses its rule.

- **forward**: `rule` (an frule, or a linear rule), `constant` (declared
  non-differentiable: the output has no derivative, and the call runs on values), or `-`
  (no rule: fwdad raises `MissingRuleError`, naming the function).
- **reverse**: the same, for reverse mode (`grad`, `vjp`).
- **batched**: `tested` when a row of the rule tables pushes a batch of tangents
  through the rule (`test_rule` compares it with one tangent at a time).
- **2nd order**: `tested` when the second-order table compares the rule's Hessian with
  differences of its gradient; `zero` for a constant.
- **note**: why a function is refused, or why a test is missing.

Rules may still refuse some inputs, with an error that says why (complex input to a
rule for real values only, a repeated eigenvalue, ...): the tables show the functions,
not every input.

A list or tuple of numbers (differentiated or not) given where NumPy reads an array,
`np.sin([x[0], x[1]])` or `x * [a, b, c]`, is read as the array NumPy makes of it, in
both modes (fwdad/rules/array_like.py; tests/rules/test_list_operands.py runs every
rule case again with a list). Functions that take sequences of arrays
(`np.concatenate`, `np.stack`, ...) or write into an argument (`np.copyto`, `np.put`,
...) take their arguments as they are.

Covered: {forward} of {total} functions have a forward rule or are constants, {reverse}
a reverse rule or are constants; {refused} are refused on purpose; {missing} have no rule
yet.
"""


def render(table: List[Row]) -> str:
    refused = sum(1 for r in table if r.forward == "-" and r.name in REFUSED)
    missing = sum(1 for r in table if r.forward == "-" and r.name not in REFUSED)
    text = HEADER.format(total=len(table), version=np.__version__,
                         forward=sum(1 for r in table if r.forward != "-"),
                         reverse=sum(1 for r in table if r.reverse != "-"),
                         refused=refused, missing=missing)
    for module in ("numpy", "numpy.linalg", "numpy.fft"):
        text += f"\n## `{module}`\n\n| function | forward | reverse | batched | " \
                f"2nd order | note |\n|---|---|---|---|---|---|\n"
        for r in table:
            if r.name.rpartition(".")[0] == module:
                text += f"| `{r.name}` | {r.forward} | {r.reverse} | {r.batched} | " \
                        f"{r.second} | {r.note} |\n"
    return text


def committed_rows(text: str) -> Dict[str, Row]:
    """The rows of a page render() wrote, by function name."""
    found = {}
    for line in text.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            found[cells[0].strip("`")] = Row(cells[0].strip("`"), *cells[1:6])
    return found


if __name__ == "__main__":
    PAGE.write_text(render(rows()))
    print(f"wrote {PAGE.relative_to(ROOT)}")
