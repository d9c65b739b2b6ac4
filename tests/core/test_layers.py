"""Layers import downward only: the rules and reverse mode never import forward mode,
fwdad/core imports none of the three, and no module imports another's private names."""
import ast
import pathlib

import pytest

import fwdad
from fwdad.core import entry_points
from fwdad.forward import dispatch

PACKAGE = pathlib.Path(fwdad.__file__).parent

# Private names still imported across modules, left where another change owns the body
# (the records of one primitive rewrite both files).
KNOWN_PRIVATE_IMPORTS = {("reverse/rules_ufuncs.py", "_RRULES"),
                         ("reverse/rules_scalar.py", "_digamma")}


def imports(path: pathlib.Path):
    """(module, name) for each `from module import name` in the file, at any depth."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                yield node.module, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None


def modules_under(folder: str):
    return sorted((PACKAGE / folder).glob("*.py"))


def imported_modules(path: pathlib.Path):
    for module, name in imports(path):
        yield module
        if name is not None:
            yield f"{module}.{name}"


@pytest.mark.parametrize("folder, below", [("rules", "fwdad.forward"),
                                           ("reverse", "fwdad.forward"),
                                           ("core", "fwdad.forward"),
                                           ("core", "fwdad.reverse")])
def test_a_lower_layer_does_not_import_a_higher_one(folder, below):
    found = [f"{path.name} imports {module}" for path in modules_under(folder)
             for module in imported_modules(path) if module.startswith(below)]
    assert found == []


def test_no_module_imports_the_private_names_of_another():
    found = []
    for path in PACKAGE.rglob("*.py"):
        where = path.relative_to(PACKAGE).as_posix()
        for module, name in imports(path):
            if module.startswith("fwdad") and name and name.startswith("_") \
                    and not name.startswith("__") and (where, name) not in KNOWN_PRIVATE_IMPORTS:
                found.append(f"{where}: from {module} import {name}")
    assert found == []


def test_rules_call_forward_mode_through_its_own_functions():
    """Second-order rules are registered on dispatch.call and dispatch.derived_rule: the
    entry points rules call must be those very functions, not wrappers."""
    assert entry_points.call is dispatch.call
    assert entry_points.derived_rule is dispatch.derived_rule
    assert entry_points.static_rule is dispatch.static_rule
