"""Where a call goes that the guard of an optimized rule turns away.

    if _fw_batched(x, n) or n.tangent is _fw_NoTangent:
        return _fw_unoptimized(x, n)        # a Routes: the plain rule, or a variant

Batched tangents go to the variant for them (forward/optimizer/batched_variant.py), built
for the kinds of the positional arguments (forward/optimizer/kinds.py: the key is
BATCHED and that signature, computed on each batched call), or the plain rule where it
inlines nothing. Unbatched calls the guard turns away (arguments with no tangent: an
int, a string, None; a list where a NumPy template reads an array) go to the optimized
rule specialized on their *signature*, built on first use and cached by it: which
parameters have no tangent and whether each is a number (there they are constants, so
`x + n * A` keeps the shape n * A gives: forward/optimizer/vanishing.py says which
parameters the guard must check), and the kind of each positional argument (float,
int, bool, NumPy float scalar, float array with its axes and dtype, list or tuple of
such, other: kinds.py). The key is the variant's guard: a call of other kinds (an int
where a float was seen, another rank, float32, an ndarray subclass, a list of another
length) gets the variant for its own kinds, and after _MAX_VARIANTS keys the variant
for the parameters with no tangent alone. Only named parameters are keys; *args and
**kwargs are not checked.

Instances of plain classes, given for parameters the rule uses only through their
fields (normalize/instance_params.py, checked by forward/plain_instances.py), go to the
optimized variant for them (key INSTANCE): the same code without the guard; or, where the
function is sealed, the variant that keeps their fields in locals (key FIELDS), keyed on
the kinds of the positional arguments too, where each such instance has the kinds of its
fields (plain_instances.fields_kind): a field of another kind takes another variant, and
after _MAX_VARIANTS keys the FIELDS variant with no kinds.

Calls the guard lets through (every argument active) never come here: the general rule
tries, inline, the variant for the first such call's signature (forward/keyed.py,
built by the same specialize under the key it would have here, and not counted among
the variants).

A caller that knows some arguments are constants (its own plain locals, literals,
globals; jvp given a None or zero tangent) calls `Specialized`: the same variants, with
those parameters in the key too, so that the callee does no tangent work for them.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Tuple

import numpy as np

from fwdad.forward import plain_instances
from fwdad.forward.optimizer import kinds, unboxed
from fwdad.forward.plain_instances import fields_checked, plain_instance
from fwdad.tangents import NoTangent, Tangent

Key = Tuple[Tuple[str, Any], ...]  # (parameter with no tangent, FLOAT, NUMBER or ""),
#                (parameter, INSTANCE), or BATCHED; then (KINDS, the arguments' kinds)
_NUMBERS = (int, float, complex, np.number, np.bool_)
_NONE: FrozenSet[Any] = frozenset()


class Routes:
    """The plain rule and the variants of one optimized rule."""

    def __init__(self, plain: Callable, positional: Tuple[str, ...],
                 keywords: Tuple[str, ...],
                 specialize: Optional[Callable[[Key], Callable]] = None,
                 instances: Optional[Dict[str, FrozenSet[str]]] = None) -> None:
        self.plain, self.specialize = plain, specialize
        self.positional, self.keywords = positional, keywords
        # parameter -> the fields the rule uses, for those it may take as instances
        self.instances = instances or {}
        self.field_names = {name: tuple(sorted(fields)) for name, fields
                            in self.instances.items() if getattr(fields, "unboxed", False)}
        self.variants: Dict[Key, Callable] = {}
        self.lock = threading.Lock()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.specialize is None:
            return self.plain(*args, **kwargs)
        if unboxed.batched(*args, **kwargs):
            key = self.with_instances(args, kwargs) if self.instances else None
            return self.variant(key or self.batched_key(args))(*args, **kwargs)
        return self.one_tangent(self.key(args, kwargs), self.signature(args))(
            *args, **kwargs)

    def without(self, constants: FrozenSet[Any], args: tuple,
                kwargs: Dict[str, Any]) -> Any:
        """The call `self(*args, **kwargs)` where the arguments at the positions and
        names in `constants` have zero tangents: they count as having none."""
        if self.specialize is None:
            return self.plain(*args, **kwargs)
        if unboxed.batched(*args, **kwargs):  # (zero tangents cost the rule little)
            key = self.with_instances(args, kwargs, constants) if self.instances else None
            return self.variant(key or self.batched_key(args))(*args, **kwargs)
        return self.one_tangent(self.key(args, kwargs, constants), self.signature(args))(
            *args, **kwargs)

    def key(self, args: tuple, kwargs: Dict[str, Any], constants: FrozenSet[Any] = _NONE
            ) -> Key:
        found = [(name, _is_number(d.primal)) for i, (name, d)
                 in enumerate(zip(self.positional, args))
                 if d.tangent is NoTangent or i in constants]
        if kwargs:
            found += [(name, _is_number(kwargs[name].primal))
                      for name in self.positional[len(args):] + self.keywords
                      if name in kwargs and (kwargs[name].tangent is NoTangent
                                             or name in constants)]
        return tuple(found)

    def signature(self, args: tuple) -> kinds.Signature:
        """The kinds of the arguments given for the named positional parameters (those
        that go on to *args are not keys)."""
        named = len(self.positional)
        return kinds.signature(args if len(args) <= named else args[:named])

    def one_tangent(self, key: Key, signature: kinds.Signature) -> Callable:
        """The rule for unbatched tangents where the parameters of `key` have none (or
        are constants) and the positional arguments have the kinds `signature`: the
        variant built for both, with no guard (this is its guard: every other key or
        signature gets its own variant); once the rule has met _MAX_VARIANTS keys, the
        variant for `key` alone, or the plain rule."""
        if len(self.variants) < _MAX_VARIANTS:
            return self.variant(key + ((KINDS, signature),))
        return self.variant(key) if key else self.plain

    def with_kinds(self, key: Key, args: tuple) -> Key:
        """`key` with the kinds of the positional arguments last (the key one_tangent
        gives the variant it picks), or alone once a rule has met many signatures."""
        if len(self.variants) >= _MAX_VARIANTS:
            return key
        return key + ((KINDS, self.signature(args)),)

    def batched_key(self, args: tuple) -> Key:
        """The key of the variant for batched tangents and arguments of these kinds:
        BATCHED alone (no kinds known) once a rule has met many signatures."""
        if len(self.variants) >= _MAX_VARIANTS:
            return BATCHED
        return BATCHED + ((KINDS, kinds.signature(args)),)

    def with_instances(self, args: tuple, kwargs: Dict[str, Any],
                       constants: FrozenSet[Any] = _NONE) -> Optional[Key]:
        """The key of a call whose tangents are unbatched but for instances of plain
        classes given for parameters the rule may take so (forward/plain_instances.py):
        those parameters marked INSTANCE, then what `key` says; None for other calls."""
        found = []
        held: Dict[str, Any] = {}  # parameter -> its instance's fields, as checked
        named = list(zip(self.positional, args)) + list(kwargs.items())
        if len(args) > len(self.positional) and unboxed.batched(
                *args[len(self.positional):]):
            return None
        for name, d in named:
            fields = self.instances.get(name)
            if fields is not None and type(d.tangent) is Tangent:
                checked = plain_instance(d, fields)
                if checked is None:
                    return None
                found.append((name, checked[0]))
                held[name] = checked[1]
            elif unboxed.batched(d):
                return None
        if found:
            found = fields_checked(found, named, self.instances)  # type: ignore[assignment]
        if not found:
            return None
        marked = {name for name, _ in found}
        key = tuple(found) + tuple(entry for entry in self.key(args, kwargs, constants)
                                   if entry[0] not in marked)
        kept = [name for name, kind in found if kind == FIELDS]
        if kept and len(self.variants) < _MAX_VARIANTS:
            key += ((KINDS, self.fields_signature(args, kept, held)),)
        return key

    def fields_signature(self, args: tuple, kept: List[str], held: Dict[str, Any]
                         ) -> kinds.Signature:
        """The kinds of the positional arguments, each instance of `kept` (whose fields
        the variant keeps in locals) the kinds its fields `held` have (a loop: it runs
        per call)."""
        out, kind_of = [], kinds.kind_of
        for name, d in zip(self.positional, args):
            if name in kept:
                out.append(plain_instances.fields_kind(held[name], self.field_names[name]))
            else:
                out.append(kind_of(d.primal))
        return tuple(out)

    def full(self) -> bool:
        """Whether the rule has met _MAX_VARIANTS keys (it builds no more variants)."""
        return len(self.variants) >= _MAX_VARIANTS

    def variant(self, key: Key) -> Callable:
        rule = self.variants.get(key)
        if rule is None:
            with self.lock:
                rule = self.variants.get(key)
                if rule is None:
                    rule = self.variants[key] = self.specialize(key)
        return rule


FLOAT = "float"  # a Python float: its zero tangent is the float 0.0, never NoTangent
BATCHED: Key = (("", "batched"),)  # the key of the variant for batched tangents
NUMBER = "number"  # another number, which broadcasts to no new shape
KINDS = "kinds"  # last in a key: (KINDS, the arguments' kinds.signature)
_MAX_VARIANTS = 32  # (a rule called with ever new kinds of arguments)
INSTANCE, FIELDS = plain_instances.INSTANCE, plain_instances.FIELDS  # (kinds in a key)


def unkinded_key(key: Key) -> Tuple[Key, Optional[kinds.Signature]]:
    """An unbatched key without its kinds (Routes.one_tangent), and those kinds (None
    when it has none). A parameter's own entry holds a string, never a signature."""
    if key and key[-1][0] == KINDS and isinstance(key[-1][1], tuple):
        return key[:-1], key[-1][1]
    return key, None


def _is_number(value: Any) -> str:
    """What the key says of a value with no tangent: FLOAT, NUMBER, or "" (an array,
    anything else). Both kinds of number are true (the guard let no int array
    through)."""
    if type(value) is float:
        return FLOAT
    return NUMBER if isinstance(value, _NUMBERS) or (
        type(value) is np.ndarray and value.ndim == 0) else ""


class Specialized:
    """The rule of a callee for calls where the arguments at some positions and names
    are constants of the caller (zero tangents): the variant of its optimized rule that
    treats them as having none (no tangent work for them). A callee with no Routes (a
    rule that is not optimized, a registered rule) is called as it is."""

    __slots__ = ("lazy", "constants", "seen", "routes")

    def __init__(self, lazy: Any, constants: FrozenSet[Any]) -> None:
        self.lazy, self.constants = lazy, constants  # a forward/dispatch.LazyRule
        self.seen: Any = None  # the rule the lazy rule held when last called,
        self.routes: Any = False  # and its Routes (False: none)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        lazy = self.lazy
        rule = lazy.rule
        if rule is None:  # not built yet, or forgotten since (a new frule registered)
            rule = lazy.rule = lazy.derive(lazy.fn)
        if rule is not self.seen:
            self.seen, self.routes = rule, routes_of(rule)
        if self.routes is False:
            return rule(*args, **kwargs)
        return self.routes.without(self.constants, args, kwargs)

    def __repr__(self) -> str:
        return f"<{self.lazy!r} for constant {sorted(map(str, self.constants))}>"


def routes_of(rule: Callable) -> Any:
    """The Routes of an optimized derived rule (a LazyRule builds it), else False."""
    built = getattr(rule, "routes", None)
    return built if isinstance(built, Routes) else False
