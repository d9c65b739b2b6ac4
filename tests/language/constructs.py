"""The catalogue of Python constructs: what fwdad differentiates and what it refuses.

Each row names a construct, a function using it and a point. Supported rows are checked
against finite differences (test_constructs.py); unsupported ones by their error. The
same rows make docs/python.md: `python -m tests.language.constructs > docs/python.md`.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

import numpy as np

import fwdad
from tests.language import classes, containers, functions, statements, stdlib, unsupported


@dataclass
class Construct:
    name: str
    category: str
    fn: Callable
    args: Tuple[Any, ...]
    tangents: Optional[Tuple[Any, ...]] = None  # None: random, for every float argument
    error: Optional[type] = None
    match: str = ""  # the error message must match this pattern
    note: str = ""
    # reverse mode (fwdad.vjp, fwdad.grad): refused with this error where it differs
    # from forward mode (a row that forward mode refuses is refused the same way)
    reverse_error: Optional[type] = None
    reverse_match: str = ""
    reverse_note: str = ""

    def __str__(self) -> str:
        return self.name

    @property
    def refused_in_reverse(self) -> Optional[type]:
        return self.reverse_error or self.error

    @property
    def reverse_pattern(self) -> str:
        return self.reverse_match if self.reverse_error else self.match


C, K, F, S, U = "classes", "containers", "functions", "statements", "not differentiable"

CONSTRUCTS = [
    Construct("instantiation, attribute reads and writes", C,
              classes.instantiate_and_attributes, (0.7,),
              note="`C(...)` is a new instance plus the derived rule of `__init__`"),
    Construct("bound methods", C, classes.bound_methods, (0.4,),
              note="through dynamic dispatch; the method's tangent is its object's"),
    Construct("static methods and class methods", C, classes.static_and_class_methods,
              (0.3,)),
    Construct("properties", C, classes.properties, (1.3,)),
    Construct("attribute protocol: property setters, __setattr__ overrides, descriptors "
              "(__get__/__set__), __getattr__, __slots__, functools.cached_property", C,
              classes.attribute_protocol, (0.6,),
              note="attributes are read and set as object.__getattribute__ and "
                   "object.__setattr__ do, with Python code run by its rules"),
    Construct("inheritance and super()", C, classes.inheritance_and_super, (0.6,)),
    Construct("objects with __call__", C, classes.callable_objects, (0.8,)),
    Construct("operator dunders (__add__, __rmul__, __matmul__, __neg__, __getitem__)", C,
              classes.operator_dunders, (0.9,)),
    Construct("NumPy's array protocol: a class's Python __array__ (np.asarray(b), "
              "np.sin(b), np.sum(b), array * b, array - b)", C, classes.array_protocol,
              (0.7,), note="differentiated as NumPy calls it (dtype, copy); __array__ in "
              "C, __array_ufunc__, __array_function__ and __array_priority__ are refused "
              "when the instance carries a derivative"),
    Construct("instances as dict keys (their own __eq__ and __hash__)", C,
              classes.instances_as_dict_keys, (0.7,),
              note="the built-in operator where neither operand's class defines it"),
    Construct("@dataclass created inside (defaults, default_factory, __post_init__)", C,
              classes.dataclass_inside, (1.2,)),
    Construct("@dataclass argument, tangent given as fwdad.Tangent(field=...)", C,
              classes.dataclass_argument, (classes.Spring(2.0, 0.5), 1.5),
              tangents=(fwdad.Tangent(stiffness=1.0, rest=-0.5), 0.3),
              note="fields left out of the Tangent have a zero tangent"),
    Construct("@dataclass argument, tangent given as an instance of the class", C,
              classes.dataclass_argument, (classes.Spring(2.0, 0.5), 1.5),
              tangents=(classes.Spring(1.0, 0.0, []), 0.3)),
    Construct("@dataclass output (jvp returns a fwdad.Tangent)", C,
              classes.dataclass_output, (0.6,)),
    Construct("NamedTuple created inside", C, classes.namedtuple_inside, (0.5,)),
    Construct("NamedTuple argument (tangent: the same NamedTuple)", C,
              classes.namedtuple_argument, (classes.Point(1.5, 2.0),),
              tangents=(classes.Point(1.0, 0.5, None),)),
    Construct("array-valued fields", C, classes.array_fields, (0.3,)),
    Construct("an object built by a classmethod (cls(...)), then called", C,
              stdlib.object_built_by_a_classmethod_then_called, (0.7,)),
    Construct("NamedTuple methods _replace, _make, _asdict", C, stdlib.namedtuple_methods,
              (0.6,)),
    Construct("@dataclass generated methods (__eq__, order), dataclasses.replace, astuple, "
              "asdict", C, stdlib.dataclass_generated_methods, (0.8,)),
    Construct("frozen @dataclass argument and output (__post_init__ setting a field with "
              "object.__setattr__, dataclasses.replace)", C,
              stdlib.frozen_dataclass_argument_and_output, (stdlib.Frame(0.6), 1.3),
              tangents=(fwdad.Tangent(origin=0.5, scale=-1.0, span=0.0), 0.4),
              note="a field __post_init__ computes gets a tangent, as the other fields do"),
    Construct("copy.copy and copy.deepcopy (instances, lists, dicts, arrays)", C,
              stdlib.copies_shallow_and_deep, (0.7,),
              note="the tangent is copied as the value is; a class with its own __deepcopy__ "
                   "or __reduce__ is refused (its own __copy__ runs)"),
    Construct("list, tuple, dict and set displays", K, containers.displays, (0.4, 1.1)),
    Construct("list append, extend, insert, pop, remove, reverse, index, count, "
              "item assignment and deletion", K, containers.list_methods, (0.7,)),
    Construct("list sort (with key) and copy", K, containers.list_sort_and_copy, (0.5,)),
    Construct("dict get, setdefault, items, keys, values, update, pop, copy", K,
              containers.dict_methods, (0.9,)),
    Construct("tuple unpacking, nested and starred", K, containers.unpacking, (0.3, 1.2)),
    Construct("zip, enumerate, range, reversed, sorted (key), map, filter, len, "
              "isinstance", K, containers.builtin_iteration, (1.4, 0.6)),
    Construct("functools.reduce and functools.partial", K, containers.functools_calls,
              (0.8,)),
    Construct("functools.partial (of a partial; made outside the function)", K,
              stdlib.partials, (0.8,)),
    Construct("operator.itemgetter, attrgetter, methodcaller (also as sort keys)", K,
              stdlib.operator_callables, (0.7,)),
    Construct("bound methods stored in variables", K, stdlib.bound_methods_in_variables,
              (0.4,)),
    Construct("itertools chain, product, combinations, accumulate, islice", K,
              containers.itertools_calls, (0.4, 1.3)),
    Construct("itertools count, cycle and repeat (endless: ended by zip, islice or "
              "break), takewhile, dropwhile, filterfalse, compress", K,
              containers.endless_itertools, (0.4, 1.3)),
    Construct("iter and next (also on zip, map and the other lazy iterators)", K,
              containers.iter_and_next, (0.4, 1.3)),
    Construct("lazy iterators consumed partly by plain code (any) and then iterated", K,
              containers.partly_consumed, (0.4, 1.3)),
    Construct("iterator classes (`__iter__` returns the instance, `__next__` raises "
              "StopIteration); loops over np.ndindex and np.ndenumerate", K,
              containers.iterator_classes, (0.4,),
              note="third derivatives through an iterator class are refused",
              reverse_note="its methods run by their reverse rules in a for loop, in "
                           "`iter` and `next`, and in the builtins that consume it (`sum`, "
                           "`list`, `zip`, `map`, `math.fsum`, ...)"),
    Construct("containers of containers", K, containers.containers_of_containers, (0.6,)),
    Construct("comprehensions: list, dict, set, generator; nested; with conditions", F,
              functions.comprehensions, (0.7,),
              note="generator expressions are evaluated eagerly"),
    Construct("lambdas, with defaults", F, functions.lambdas, (0.9,)),
    Construct("lambdas with defaults made in a comprehension", F,
              functions.lambdas_made_in_a_comprehension, (0.5,),
              note="each default is evaluated when its lambda is made, per iteration"),
    Construct("nested functions and closures", F, functions.closures, (0.4,)),
    Construct("nonlocal writes", F, functions.nonlocal_writes, (0.6,)),
    Construct("module constants and arrays (read as constants)", F,
              functions.globals_read, (0.3,)),
    Construct("global writes", F, functions.globals_written, (0.3,),
              note="the global holds the plain value; a value with a derivative assigned "
                   "to it is refused (its derivative would be lost at the next read)"),
    Construct("a global or closure float array written into by name (`G[i] = v`, "
              "`G[...] += v`, `G.fill(v)`, `out=G`), and read anywhere", F,
              functions.global_array_written, (0.5,),
              note="one object: in a derivative every read of it shares one tangent, which "
                   "starts from zero in each derivative (a rule that reads it is left "
                   "unoptimized); a write the code does not make by name (into a parameter "
                   "given the global) is refused; in reverse mode, one variable in "
                   "each pass, made from a copy of the array at its first read, whose "
                   "value the array gets when the pass ends"),
    Construct("a global or closure list, dict or object written into by name "
              "(`S.append(v)`, `T[k] = v`, `B.v = v`, `S.clear()`), and read anywhere", F,
              functions.global_containers_written, (0.5,),
              note="one object, as a written global array: in a derivative every read of "
                   "it shares one tangent, and after it holds plain values; one also given "
                   "as an argument, or read through another holder (a list, a field, a dict "
                   "view), is refused, as is a write the code does not make by name"),
    Construct("recursion and mutual recursion", F, functions.recursion, (0.9,)),
    Construct("*args, **kwargs, keyword-only arguments, defaults", F, functions.arguments,
              (0.5,)),
    Construct("a mutable default written into", F, functions.mutable_default, (0.5,),
              note="the same object across calls, as in Python; the calls of one "
                   "derivative share its tangent, which starts from zero in each "
                   "derivative; in reverse mode, an array default the function writes by "
                   "name is one variable in each pass"),
    Construct("a mutable default list or dict appended to", F,
              functions.mutable_default_list, (0.5,),
              note="the same object across calls, as in Python; after a derivative it holds "
                   "plain values, as after a plain call"),
    Construct("a mutable default also named by a global (`STORE = f.__defaults__[0]`), "
              "read or cleared through it", F, functions.mutable_default_named_by_a_global,
              (0.5,),
              note="one object: in a derivative the function and the global share its "
                   "tangent (a rule that reads it is left unoptimized), at every order"),
    Construct("higher-order functions taking user callables", F, functions.higher_order,
              (0.7,)),
    Construct("your function through NumPy's loops: `np.vectorize(f)(x, y)` (also as a "
              "decorator, of a lambda or a closure), `np.apply_along_axis`, "
              "`np.apply_over_axes`, `np.piecewise`, `np.fromfunction`, `np.fromiter`", F,
              functions.through_numpy_loops, (0.7,),
              note="f is called per item or row, with its derived rule; `np.vectorize` with "
                   "`signature=` or keyword arguments is refused, saying what to write "
                   "instead"),
    Construct("decorators made with functools.wraps (the wrapper's own code runs), "
              "helpers under functools.lru_cache and functools.cache", F,
              functions.decorated_helpers, (0.7,),
              note="a cached helper is differentiated as the function it caches: no "
                   "value computed with another tangent is read from the cache"),
    Construct("try / except / else / finally", S, statements.try_except_else_finally,
              (0.6,)),
    Construct("with (several managers in one statement)", S, statements.with_statement,
              (0.5,)),
    Construct("with: the bound value carries its tangent; __exit__ sees exceptions, "
              "returns and continues as in Python", S,
              stdlib.with_bound_value_carries_its_tangent, (0.5,),
              note="`__enter__` and `__exit__` run through their rules"),
    Construct("with: managers from C or the standard library that hold no values "
              "(np.errstate, np.printoptions, warnings.catch_warnings, "
              "contextlib.suppress, redirect_stdout, locks)", S,
              stdlib.with_managers_holding_no_values, (0.5,),
              note="their methods run on plain values"),
    Construct("assert and del", S, statements.assert_and_del, (0.8,)),
    Construct("conditional expressions and chained comparisons", S,
              statements.conditional_and_chained, (0.4,)),
    Construct("the walrus operator", S, statements.walrus, (0.7,)),
    Construct("f-strings and print (values pass through untouched)", S,
              statements.fstrings_and_print, (0.25,)),
    Construct("raise (caught in the same function)", S, statements.raise_and_catch, (0.3,)),
    Construct("import inside a function", S, statements.import_inside, (0.3,)),
    Construct("item assignment into arrays made inside from constants (x.copy(), astype, "
              "np.zeros, np.array), and through their views", S,
              statements.writes_into_arrays_made_from_constants, (0.7,),
              note="in reverse mode such an array is a variable from the start"),
    Construct("item assignment into an array argument", S,
              statements.writes_into_an_argument, (0.7, np.array([0.5, -1.2, 2.0])),
              note="the caller's array is changed, as in Python",
              reverse_error=fwdad.FwdadError,
              reverse_match=r"(?s)written into a constant array.*argnums.*statements\.py:\d+",
              reverse_note="supported with the argument in argnums (vjp has them "
                           "all); refused when it is left out (grad's default is argnums=0), "
                           "as the caller's array cannot become a variable: add it to "
                           "argnums, or write into a copy, `s = s0.copy()`"),
    Construct("generator functions and yield", U, unsupported.uses_generator, (0.5,),
              error=fwdad.UnsupportedSyntaxError, match=r"generator .*unsupported\.py:\d+",
              note="return a list instead"),
    Construct("a context manager written with @contextlib.contextmanager", U,
              unsupported.generator_context_manager, (0.5,),
              error=fwdad.UnsupportedSyntaxError, match=r"generator .*unsupported\.py:\d+",
              note="write a class with __enter__ and __exit__"),
    Construct("contextlib.ExitStack", U, unsupported.exit_stack, (0.5,),
              error=fwdad.MissingRuleError, match=r"creating a collections\.deque",
              note="nest with statements instead"),
    Construct("a set display of values that carry a derivative", U,
              unsupported.set_of_differentiable_values, (0.5,),
              error=fwdad.NonDifferentiableError,
              match=r"a set display in \S+ at .*unsupported\.py:\d+ holds a value that carries",
              note="use a list (sets of constants and of ints or strings are supported)"),
    Construct("a set comprehension of values that carry a derivative", U,
              unsupported.set_comprehension_of_differentiable_values, (0.5,),
              error=fwdad.NonDifferentiableError, match=r"set\.add in \S+ at .*unsupported\.py"),
    Construct("set() or frozenset() of values that carry a derivative", U,
              unsupported.set_of_a_differentiable_list, (0.5,),
              error=fwdad.NonDifferentiableError, match=r"frozenset\(\) in \S+ at .*unsupported"),
    Construct("async functions", U, unsupported.asynchronous, (0.5,),
              error=fwdad.UnsupportedSyntaxError, match=r"async function"),
    Construct("exec / eval of strings", U, unsupported.evaluates_strings, (0.5,),
              error=fwdad.UnsupportedSyntaxError, match=r"eval\(\) of a string"),
    Construct("a class defined inside the function", U, unsupported.class_inside, (0.5,),
              error=fwdad.UnsupportedSyntaxError, match=r"class defined inside"),
    Construct("match statements", U, unsupported.match_statement, (0.5,),
              error=fwdad.UnsupportedSyntaxError, match=r"match statement"),
    Construct("a class with its own __new__ (or one from C)", U,
              unsupported.class_with_own_new, (0.5,), error=fwdad.MissingRuleError,
              match=(r"creating a .*Interned in class_with_own_new at "
                     r".*unsupported\.py:\d+.*__new__"),
              note="register an frule for the class"),
    Construct("functions without source (made by exec, typed at a prompt)", U,
              unsupported.made_by_exec, (0.5,), error=fwdad.SourceUnavailableError,
              match=r"exec or eval"),
    Construct("a derivative with respect to an int", U, unsupported.int_argument, (3,),
              tangents=(1.0,), error=fwdad.NonDifferentiableError, match=r"int .*float",
              reverse_error=fwdad.NonDifferentiableError,
              reverse_match=r"int_argument requires real-valued inputs.*type int"),
]


def catalogue() -> str:
    """docs/python.md, made from CONSTRUCTS."""
    lines = ["# Supported Python", "",
             "Every row is a test: supported constructs are differentiated and compared "
             "with finite differences (in reverse mode, `fwdad.vjp`, by the dot-product "
             "test against forward mode), the others must raise the error shown "
             "(`tests/language/constructs.py`; regenerate this page with "
             "`python -m tests.language.constructs > docs/python.md`).", "",
             "The rule behind this page: **a derivative fwdad returns is right, or fwdad "
             "raises an error that says why.** A construct whose semantics fwdad does not "
             "model fully is refused with a clear error, never approximated; the refused "
             "constructs are the rows below with an error in a status column, and "
             "[Errors and debugging](errors-and-debugging.md#right-or-a-clear-error) lists "
             "what is refused elsewhere (sets of differentiable values, slices with moving "
             "bounds, batched writes into shared arrays, complex values in reverse-mode rules "
             "not written for them) and "
             "what to do instead. [Correctness](correctness.md) describes the program fuzzer "
             "that checks it.", ""]
    for category in (C, K, F, S, U):
        lines += [f"## {category.capitalize()}", "",
                  "| construct | status | reverse mode | note |", "| --- | --- | --- | --- |"]
        for c in (c for c in CONSTRUCTS if c.category == category):
            status = f"`{c.error.__name__}`" if c.error else "supported"
            reverse = f"`{c.refused_in_reverse.__name__}`" if c.refused_in_reverse \
                else "supported"
            note = c.note + (f" (reverse mode: {c.reverse_note})" if c.reverse_note else "")
            lines.append(f"| {c.name} | {status} | {reverse} | {note} |")
        lines.append("")
    return "\n".join(lines + NOTES)


NOTES = [
    "## Semantics worth knowing", "",
    "- A callee named by a global (or a module attribute) is looked up once, when the "
    "rule is built, and the rule starts by checking that the global still holds the "
    "same object (`if helper is not _fw_was_helper ...` in its `.source`). Assigning a "
    "different function or class to it afterwards (a notebook cell run again, a "
    "monkeypatch) makes every derived rule be built again on its next call. A name "
    "bound to a module (`np`), and an attribute replaced inside a module that stays "
    "bound (`np.sin = ...`), are not checked. Registering an frule drops every derived "
    "rule too, so new rules always take effect.",
    "- Closure variables of the differentiated function are read live, as constants.",
    "- Generator expressions are evaluated eagerly, into a list; zip, map, filter, "
    "enumerate, reversed and the itertools stay lazy, as in Python.",
    "- `with m as v:` runs `type(m).__enter__` and `type(m).__exit__` through their "
    "rules, so v carries its tangent; `__exit__` gets the exception as in Python, but "
    "cannot suppress an fwdad error. A manager from C or the standard library that "
    "holds no float values (np.errstate, warnings.catch_warnings, a lock) runs its "
    "methods on plain values.",
    "- f-strings, print and exceptions see plain values.",
    "- Keys of sorted, min and max see plain values; among equal items the one Python "
    "picks gives the tangent.",
    "- Sets carry no tangent (their order is not defined): a set of ints, strings or "
    "constants works; putting a value that carries a derivative into a set raises "
    "NonDifferentiableError instead of dropping its tangent.",
    "- Instances of user classes have a structural tangent, `fwdad.Tangent`, with one "
    "field per attribute: give it for an argument as `fwdad.Tangent(field=...)` (or an "
    "instance of the same class), and get it back for an output. grad, jacfwd, jacrev "
    "and `lin.T` of linearize give the derivative with respect to an instance argument "
    "as a Tangent too (jacfwd's and jacrev's with one Jacobian block per field), and "
    "jacfwd and jacrev of an instance output give a Tangent of blocks. One instance at "
    "two places of the arguments (two fields, two arguments) is one object, as in the "
    "plain call: a write through one place is seen through the other. In jvp, "
    "batched_jvp and linearize's `lin` it has one tangent: give the same Tangent "
    "object at both places, or none; two different tangents for it are refused. grad, "
    "vjp, value_and_grad, jacrev and `lin.T` give it one cotangent, its total one "
    "(the derivative along the one object), the same Tangent object at each of its "
    "places; an argument outside argnums that holds it is differentiated with it (its "
    "own cotangent is not returned). So `<vjp(ct), t> == <ct, jvp(t)>` when the inner "
    "product counts each object once. jacfwd refuses a differentiated instance reached "
    "twice (one held constant is one object); jacfwd, jacrev and linearize refuse a "
    "cycle and float arrays in instances' fields that share memory; reverse mode, an "
    "argument in a cycle. An output that holds itself takes a cotangent with the same "
    "cycle (or one that leaves the cycle's field out): an object met again inside "
    "itself is paired once.",
    "",
]


if __name__ == "__main__":
    sys.stdout.write(catalogue())
