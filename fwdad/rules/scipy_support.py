"""SciPy's rules, registered when they are first needed: `import fwdad` imports no SciPy
(an optional extra that takes about half a second to import).

    load_for(fn)       register the rules of fn's part of SciPy, unless done: the rule
                       tables call it on a lookup that finds no rule
    load()             register every SciPy rule (forward, reverse, sparsity)
    installed()        whether SciPy can be imported, without importing it

SciPy's rules come in three parts, each loaded on its own (the solvers' part imports
scipy.optimize and scipy.integrate, about 0.3 s more): `special` (scipy.special, and
np.i0, whose derivative is scipy.special.i1), `linalg` and `solvers`. A lookup that
finds no rule loads the part of the function first, so no cache ever holds "no rule"
(or a rule derived from source) for a function whose rule comes with SciPy's, and
whichever asks first (a forward or reverse rule, a sparsity rule, is_primitive) finds
the registered rule. `import fwdad` loads the parts of SciPy imported before it.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from typing import Any, Dict, Optional, Tuple

import numpy as np

from fwdad import requirements
from fwdad.errors import FwdadError
from fwdad.probe import probe

# part: (SciPy's modules, fwdad's forward rule modules, its reverse rule modules), in
# the order they import: rules registered later wrap or read earlier ones.
PARTS: Dict[str, Tuple[Tuple[str, ...], Tuple[str, ...], Tuple[str, ...]]] = {
    "special": (("scipy.special",), ("scipy_special", "scipy_composed", "scipy_logsumexp"),
                ("rules_scipy_special",)),
    "linalg": (("scipy.linalg",), ("scipy_linalg", "scipy_spectral", "scipy_sylvester",
                                    "scipy_matrix_functions"),
               ("rules_scipy_linalg", "rules_scipy_spectral", "rules_scipy_sylvester",
                "rules_scipy_matrix_functions")),
    "solvers": (("scipy.optimize", "scipy.integrate"),
                ("scipy_roots", "scipy_minimize", "scipy_quad", "scipy_integrate"),
                ("rules_scipy_optimize", "rules_scipy_quad", "rules_scipy_integrate")),
}
_PART_OF_MODULE = {module: part for part, (modules, _, _) in PARTS.items()
                   for module in modules}
_NUMPY_I0 = getattr(np, "i0", object())  # (NumPy's code; its rule is in scipy_special)

_LOCK = threading.RLock()  # (re-entrant: the modules it imports look rules up)
_loaded: set = set()    # the parts registered
_loading: set = set()   # the parts being registered (a lookup meanwhile: what is in)
_absent = False         # SciPy does not import here: nothing to load, ever


def installed() -> bool:
    """Whether SciPy can be imported (SciPy itself is not imported)."""
    try:
        return importlib.util.find_spec("scipy") is not None
    except ValueError:  # (a module without a spec in sys.modules)
        return sys.modules.get("scipy") is not None


def load_for(fn: Any) -> bool:
    """Register the rules of the part of SciPy `fn` belongs to, unless done: True when
    this call registered them (look `fn` up again), False otherwise. Cheap when SciPy
    was never imported: no function can be SciPy's then."""
    if _absent or len(_loaded) == len(PARTS):
        return False
    part = part_of(fn)
    return part is not None and part not in _loaded and load_part(part)


def load() -> bool:
    """Register every SciPy rule: False when SciPy does not import."""
    return all([load_part(part) for part in PARTS])


def load_if_imported() -> None:
    """Register the rules of the parts of SciPy imported already (`import scipy.special`
    before `import fwdad`)."""
    for part, (modules, _, _) in PARTS.items():
        if any(sys.modules.get(module) is not None for module in modules):
            try:
                load_part(part)
            except FwdadError:  # (a SciPy too old: said when one of its functions is met)
                return


def load_part(part: str) -> bool:
    """Register the rules of one part of SciPy (PARTS), unless done: True when they are
    registered, False when SciPy does not import. Safe under threads: one thread
    loads, the others wait for it."""
    global _absent
    if part in _loaded or _absent:
        return part in _loaded
    with _LOCK:
        if part in _loaded or _absent or part in _loading:
            return part in _loaded
        modules, forward, reverse = PARTS[part]
        try:
            for module in modules:
                importlib.import_module(module)
        except ImportError:  # (SciPy is optional: pip install fwdad[scipy])
            _absent = True
            return False
        requirements.check_scipy()  # (an older SciPy: an error saying what to install)
        _loading.add(part)
        try:
            _register(part, forward, reverse)
        finally:
            _loading.discard(part)
    return True


def part_of(fn: Any) -> Optional[str]:
    """The part of SciPy whose rules would hold the rule of `fn`, or None: a function,
    ufunc or method of scipy.special, scipy.linalg, scipy.optimize or scipy.integrate,
    or np.i0."""
    if fn is _NUMPY_I0:
        return "special" if installed() else None
    if "scipy" not in sys.modules:
        return None
    for owner in (fn, probe(fn, "__func__"), type(probe(fn, "__self__"))):
        module = getattr(owner, "__module__", None)
        if isinstance(module, str) and module.startswith("scipy."):
            return _PART_OF_MODULE.get(".".join(module.split(".")[:2]))
    return "special" if _is_scipy_ufunc(fn) else None


def _is_scipy_ufunc(fn: Any) -> bool:
    """scipy.special's ufuncs are NumPy ufuncs: told apart by the name SciPy gives."""
    special = sys.modules.get("scipy.special")
    return isinstance(fn, np.ufunc) and special is not None and \
        getattr(special, fn.__name__, None) is fn


def _register(part: str, forward: Tuple[str, ...], reverse: Tuple[str, ...]) -> None:
    from fwdad.reverse import registry as reverse_registry
    from fwdad.reverse import rules_outputs
    from fwdad.rules import registry as forward_registry
    from fwdad.sparsity import scipy_rules
    with forward_registry.on_demand(), reverse_registry.on_demand():
        for name in forward:
            importlib.import_module(f"fwdad.rules.{name}")
        for name in reverse:
            importlib.import_module(f"fwdad.reverse.{name}")
    rules_outputs.place_out_positions()  # (it reads every reverse rule: these too)
    scipy_rules.add_rows(part)
    _loaded.add(part)


def loaded_parts() -> frozenset:
    """The parts of SciPy whose rules are registered."""
    return frozenset(_loaded)
