"""A seeded generator of random, valid Python + NumPy programs, and their loader.

`generate(seed)` gives a `Program`: the source of a module defining `f` (and the helper
functions and classes it uses), the arguments (floats and small float arrays) and a
tangent for each. The same seed gives the same program on every machine.
`load(source)` writes the module to a real file (fwdad reads source) and imports it.

    >>> program = generate(7)
    >>> f = load(program.source).f
    >>> f(*program.fresh_args())
"""
from __future__ import annotations

import copy
import importlib.util
import itertools
import os
import random
import sys
import tempfile
from dataclasses import dataclass

import numpy as np

from tests.fuzz import constructs, flow, numerics, statements
from tests.fuzz.array_calls import ArrayCalls
from tests.fuzz.callbacks import Callbacks
from tests.fuzz.classes import Classes
from tests.fuzz.complex_values import ComplexValues
from tests.fuzz.exprs import scalar, value
from tests.fuzz.functional import Functional
from tests.fuzz.guarded import Guarded
from tests.fuzz.habits import Habits
from tests.fuzz.idioms import Idioms
from tests.fuzz.layouts import Layouts
from tests.fuzz.scientific import Scientific
from tests.fuzz.state import State
from tests.fuzz.views import Views

# feature -> statement generator; each program draws a random subset of FEATURES.
STATEMENTS = {"assign": statements.assign, "inplace": statements.inplace,
              "alias": statements.alias, "copies": statements.copies,
              "const_array": statements.const_array, "if": statements.if_else,
              "for": statements.for_loop, "while": statements.while_loop,
              "closure": constructs.closure, "lambdas": constructs.lambdas,
              "containers": constructs.containers, "with": constructs.with_block,
              "class": constructs.box, "early_return": constructs.early_return,
              "loop_exit": flow.loop_exit, "calls": flow.calls, "records": flow.records,
              "selection": numerics.selection, "mask": numerics.mask,
              "scatter": numerics.scatter,
              "scan_solve": numerics.scan_solve, "int_index": numerics.int_index,
              "comprehension": numerics.comprehension, "special": numerics.special,
              "listed": numerics.listed}
# how often a statement kind is drawn, when its feature is in the program (aliasing and
# in-place patterns come in many variants, so they are drawn more often; the idioms of
# numerics.py and flow.py are drawn less, so that each program stays mostly the old kinds
# and the new ones meet them)
WEIGHTS = {"alias": 4, "inplace": 2, "copies": 2, "loop_exit": 1, "calls": 1, "records": 1,
           "selection": 1, "mask": 1, "scatter": 1, "scan_solve": 1, "int_index": 1,
           "comprehension": 1, "special": 1, "listed": 1}
EXPRESSION_FEATURES = ["pow", "kinks", "reduce", "index", "helpers"]
# features drawn from their own random stream, after the others (state.py,
# complex_values.py, guarded.py, layouts.py, idioms.py, views.py, habits.py, classes.py,
# array_calls.py, functional.py, callbacks.py, scientific.py)
OWN_STREAM_FEATURES = ["state", "complex", "guarded", "layout", "idioms", "views",
                       "habits", "classes", "arrays", "functional", "callbacks",
                       "scientific"]
FEATURES = list(STATEMENTS) + EXPRESSION_FEATURES
OUTPUTS = ["scalar"] * 4 + ["array"] * 2 + ["tuple"] * 2 + ["constant", "tuple_constant"]
BLOCKS = ("if", "for", "while", "with", "loop_exit")
HEADER = "import contextlib\nimport math\n\nimport numpy as np\n\n\n"


@dataclass
class Program:
    seed: int
    source: str
    args: tuple
    tangents: tuple
    features: frozenset

    def fresh_args(self) -> tuple:
        return copy.deepcopy(self.args)


class Generator:
    """The state of one program under construction: names, shapes, module parts."""

    def __init__(self, seed: int, exclude: frozenset = frozenset()) -> None:
        self.rng = random.Random(seed)
        drawn = {f for f in FEATURES if self.rng.random() < 0.45}
        self.features = (drawn - exclude) | {"assign"}
        self.vars: dict = {}
        self.vars_int: list = []
        self.module: list = []
        self.helpers: list = []
        self.params: list = []
        self.out_kind = self.rng.choice(OUTPUTS)
        self.output_terms: list = []  # terms a construct adds to an active output
        self._count = itertools.count()

    def has(self, feature: str) -> bool:
        return feature in self.features

    def fresh(self, prefix: str = "v") -> str:
        return f"{prefix}{next(self._count)}"

    def statement(self, top: bool) -> list:
        kinds = [f for f in STATEMENTS if f in self.features]
        if not top:  # one-line kinds only inside blocks, to keep nesting shallow
            kinds = [k for k in kinds if k not in BLOCKS] or ["assign"]
        kind = self.rng.choices(kinds, [WEIGHTS.get(k, 1) for k in kinds])[0]
        return STATEMENTS[kind](self, top)

    def output(self) -> str:
        if self.out_kind == "scalar":
            return self._active(scalar(self, 2))
        if self.out_kind == "array":
            return self._active(value(self, (3,), 2))
        if self.out_kind == "tuple":
            return f"{self._active(scalar(self, 2))}, {value(self, (3,), 1)}"
        if self.out_kind == "constant":
            return "2.0"
        return f"{self._active(scalar(self, 2))}, 1.5"

    def _active(self, expr: str) -> str:
        """expr, made to depend on a parameter when it names none (a constant output
        is one kind of output, not the usual one), plus the output terms."""
        if not any(p in expr for p in self.params):
            expr = f"({expr}) * (1.0 + 0.1 * float(np.sum({self.rng.choice(self.params)})))"
        return " + ".join([expr] + self.output_terms)


def generate(seed: int, exclude: frozenset = frozenset(), stateful: bool = False,
             complex_values: bool = False, guarded: bool = False, layouts: bool = False,
             idioms: bool | str = False, views: bool | int = False,
             habits: bool | str = False, classes: bool | str = False,
             arrays: bool | str = False, functional: bool | str = False,
             callbacks: bool | str = False, scientific: bool | str = False) -> Program:
    """The program of `seed`; `exclude` leaves features out (the arguments stay the
    same), e.g. to look past a known bug while it is being fixed. `stateful` lets it
    have a helper that keeps state between calls (state.py), `complex_values` take
    variables through complex intermediates (complex_values.py), `guarded` rebind one
    through try/except, errstate or a dict of state (guarded.py), `layouts` write
    through a reshape of an array laid out in another order (layouts.py), `idioms`
    through recursion, `nonlocal`, reduce, super() and the like (idioms.py; a name
    draws that idiom only), `views` through views written in place and aliased
    arguments (views.py; an int draws that pattern only), `habits` through
    classmethods, partials, einsum, decompositions and the like (habits.py; a name
    draws that habit only), `classes` through dataclasses, slots, super() properties,
    __getattr__ records and user containers (classes.py), `arrays` through ufunc
    methods, reductions' keywords, broadcasting, stacking and mixed dtypes
    (array_calls.py; a name draws that pattern only), `functional` through reduce,
    itertools, math.fsum, key=, casts, walrus, star-unpacking, a functools.wraps
    decorator, lru_cache and an iterator class (functional.py; a name draws that
    idiom only), `callbacks` through np.vectorize, apply_along_axis, piecewise,
    np.ndindex loops and fromiter (callbacks.py; a name draws that pattern only),
    `scientific` through scipy.linalg, scipy.special, solve_ivp, scipy.optimize's root
    finders and np.fft (scientific.py; a name draws that pattern only): the fuzzer's
    programs do;
    other users of the programs, such as tests/sparsity, get them as they were."""
    g = Generator(seed, frozenset(exclude))
    rng = np.random.default_rng(seed)
    shapes = [g.rng.choice([(), (3,), (2, 3)]) for _ in range(g.rng.randint(1, 3))]
    params = [f"x{i}" for i in range(len(shapes))]
    g.vars.update(zip(params, shapes))
    g.params = params
    if g.has("helpers"):
        constructs.add_helpers(g)
    body, state = [], State(seed, stateful and "state" not in exclude)
    cplx = ComplexValues(seed, complex_values and "complex" not in exclude)
    guard = Guarded(seed, guarded and "guarded" not in exclude)
    layout = Layouts(seed, layouts and "layout" not in exclude)
    idiom = Idioms(seed, bool(idioms) and "idioms" not in exclude,
                   idioms if isinstance(idioms, str) else "")
    view = Views(seed, views is not False and "views" not in exclude,
                 views if type(views) is int else -1)
    habit = Habits(seed, bool(habits) and "habits" not in exclude,
                   habits if isinstance(habits, str) else "")
    klass = Classes(seed, bool(classes) and "classes" not in exclude,
                    classes if isinstance(classes, str) else "")
    call = ArrayCalls(seed, bool(arrays) and "arrays" not in exclude,
                      arrays if isinstance(arrays, str) else "")
    functions = Functional(seed, bool(functional) and "functional" not in exclude,
                           functional if isinstance(functional, str) else "")
    calling = Callbacks(seed, bool(callbacks) and "callbacks" not in exclude,
                        callbacks if isinstance(callbacks, str) else "")
    science = Scientific(seed, bool(scientific) and "scientific" not in exclude,
                         scientific if isinstance(scientific, str) else "")
    for _ in range(g.rng.randint(3, 8)):
        body += g.statement(top=True)
        body += state.after_statement(g)
        body += cplx.after_statement(g)
        body += guard.after_statement(g)
        body += layout.after_statement(g)
        body += idiom.after_statement(g)
        body += view.after_statement(g)
        body += habit.after_statement(g)
        body += klass.after_statement(g)
        body += call.after_statement(g)
        body += functions.after_statement(g)
        body += calling.after_statement(g)
        body += science.after_statement(g)
    body.append(f"return {g.output()}")
    source = HEADER + "".join(m + "\n\n" for m in g.module)
    source += f"def f({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in body)
    args = tuple(_value(rng, s) for s in shapes)
    tangents = tuple(_value(rng, s) for s in shapes)
    return Program(seed, source, args, tangents, frozenset(g.features))


def _value(rng: np.random.Generator, shape: tuple):
    if shape == ():
        return float(rng.standard_normal() * 0.8)
    return rng.standard_normal(shape) * 0.8


# ---- loading ---------------------------------------------------------------------------
_DIR = None
_COUNT = itertools.count()


def load(source: str):
    """Write `source` to a fresh module file and import it (not kept in sys.modules)."""
    global _DIR
    if _DIR is None:
        _DIR = tempfile.mkdtemp(prefix="fwdad_fuzz_")
    name = f"fuzz_{os.getpid()}_{next(_COUNT)}"
    path = os.path.join(_DIR, name + ".py")
    with open(path, "w") as file:
        file.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (classes look their module up)
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module
