"""fwdad: forward-mode automatic differentiation of Python + NumPy by source
transformation."""
# The import order matters: rules register before the modules that build on them.
# isort: skip_file
from fwdad import requirements as _requirements  # noqa: F401  (checks NumPy first)
from fwdad.dual import Dual
from fwdad.errors import (ColoringError, DenseFallbackWarning, FwdadError, InternalError,
                          InternalErrorWarning,
                          MissingRuleError, NonDifferentiableError, ShippingError,
                          SourceUnavailableError, SparsityPatternError, TangentError,
                          UnrecordableError, UnsupportedSyntaxError,
                          ValueDependentPatternError)
from fwdad.forward.derive import derive_frule
from fwdad.lang import build_dict, build_list, build_set, build_slice, build_tuple, \
    foreigncall, unpack
from fwdad.rules import all as _all_rules  # noqa: F401  (registers the rules)
from fwdad.rules.registry import def_linear, def_nondiff, frule, is_primitive
from fwdad.tangents import NoTangent, Tangent, zero_tangent
from fwdad.api import batched_jvp, jvp
from fwdad.jacobians import jacfwd
from fwdad.budget import get_memory_budget, set_memory_budget
from fwdad.higher import hessian, hvp
from fwdad.linearize import linearize
from fwdad.reverse.api import grad, value_and_grad, vjp
from fwdad.jacrev import jacrev
from fwdad.mapping import map_grad, map_jvp
from fwdad.sparsity.api import jacobian_sparsity
from fwdad.static_graph import static_graph
from fwdad.sparse import sparse_hessian, sparse_jacfwd, sparse_jacrev
from fwdad import coloring  # noqa: F401  (so that `import fwdad` gives fwdad.coloring)
from fwdad import nesting as _nesting  # noqa: F401  (registers the nesting rules)
from fwdad import testing  # noqa: F401  (so that `import fwdad` gives fwdad.testing)
from fwdad import optimize  # noqa: F401  (derivatives as scipy.optimize takes them)
from fwdad.version import installed_version as _installed_version
from fwdad.rules import scipy_support as _scipy_support

__version__ = _installed_version()
_scipy_support.load_if_imported()  # (else SciPy's rules load when first needed)

__all__ = ["Dual", "NoTangent", "Tangent", "zero_tangent", "jvp", "batched_jvp", "jacfwd",
           "jacrev", "jacobian_sparsity", "linearize", "hessian", "hvp", "vjp", "grad",
           "value_and_grad",
           "map_jvp", "map_grad", "set_memory_budget", "get_memory_budget",
           "derive_frule", "static_graph", "sparse_jacfwd", "sparse_jacrev",
           "sparse_hessian",
           "frule", "def_linear", "def_nondiff", "is_primitive", "FwdadError",
           "InternalError", "MissingRuleError", "NonDifferentiableError",
           "ShippingError", "SourceUnavailableError", "SparsityPatternError",
           "ColoringError", "TangentError", "UnrecordableError",
           "UnsupportedSyntaxError", "ValueDependentPatternError", "DenseFallbackWarning",
           "InternalErrorWarning",
           "build_dict", "build_list", "build_set", "build_slice", "build_tuple",
           "foreigncall", "unpack"]
