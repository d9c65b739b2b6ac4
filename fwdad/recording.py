"""Recorded tangents: `Linear` values whose NumPy operations are appended to a `Tape`,
and the replay of that tape on real tangents (what linearize's `lin` runs).

A `Linear` carries a *shadow* (a zero array of its shape) while recording, so rules can
ask for its shape; every operation runs on the shadows, for shapes, and is recorded
with its non-tangent arguments copied at that moment. In-place updates are recorded
in order too, so on replay views share memory as they did.
"""
from __future__ import annotations

import functools
import operator
from typing import Any, Callable, List, Optional

import numpy as np

from fwdad.errors import UnrecordableError
from fwdad.rules.batching import TangentContext
from fwdad.tangents import NoTangent


class Tape:
    """The recorded tangent program: `(node, fn, args, kwargs)` in the order run."""

    def __init__(self) -> None:
        self.ops: List[tuple] = []
        self.nodes: List["Linear"] = []
        # per op: the node whose memory its new node views (None: new memory, or no new
        # node), as the shadows show it; replay lays arrays out alike (transposition.py)
        self.views: List[Optional[int]] = []
        self.dropped: set = set()  # nodes of ops removed as dead (fwdad/dead_ops.py)

    def node(self, shadow: Any) -> "Linear":
        out = Linear(self, len(self.nodes), shadow)
        self.nodes.append(out)
        return out

    def record(self, fn: Callable, args: tuple, kwargs: dict) -> Any:
        """Run `fn` on the shadows (for shapes) and append it to the tape."""
        if _plain_out(kwargs) or (fn is np.copyto and type(args[0]) is np.ndarray):
            raise _unrecordable("written with out= into a plain array (the zero tangent "
                                "of an array made from constants)")
        args, kwargs = _snapshot(args), _snapshot(kwargs)
        shadow = fn(*_shadows(args), **_shadows(kwargs))
        aliased = _linear_out(kwargs)
        node = aliased if aliased is not None else \
            None if shadow is None else self.node(shadow)
        self.ops.append((None if node is None else node.index, fn, args, kwargs))
        self.views.append(None if aliased is not None or node is None else
                          _viewed(node.shadow, (args, kwargs)))
        if node is not None and node.pieces:  # several arrays (np.split, np.gradient):
            return type(shadow)(self.record(operator.getitem, (node, i), {})  # one node
                                for i in range(node.pieces))  # each, read from the op's
        return node

    def replay(self, env: list) -> list:
        # (floating-point warnings were the rules' to silence, as they do with
        # np.errstate around a 0/0 that np.where then drops; the tape does not see that)
        with np.errstate(all="ignore"):
            for index, fn, args, kwargs in self.ops:
                out = fn(*resolved(args, env), **resolved(kwargs, env))
                if index is not None:
                    env[index] = out
        return env

    def forget_shadows(self) -> None:
        """After recording, the shadows are no longer needed: keep only the tape."""
        for node in self.nodes:
            node.shadow = None


class Linear:
    """A tangent being recorded: a node of a Tape, with the shape and dtype it has."""

    __array_priority__ = 1000

    def __init__(self, tape: Tape, index: int, shadow: Any) -> None:
        self.tape, self.index, self.shadow = tape, index, shadow
        # an op that returns several arrays gets a node of the tuple (never seen by
        # rules: Tape.record hands out one node per array), which lin.T cannot transpose
        self.pieces = len(shadow) if isinstance(shadow, (tuple, list)) else 0
        if self.pieces:
            self.shape, self.dtype = (self.pieces,), np.dtype(object)
        else:
            self.shape, self.dtype = np.shape(shadow), np.asarray(shadow).dtype
        self.strides = getattr(shadow, "strides", ())  # its layout, for lin.T's buffers
        self.ndim, self.size = len(self.shape), int(np.prod(self.shape, dtype=int))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        fn = ufunc if method == "__call__" else getattr(ufunc, method)
        return self.tape.record(fn, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func in _ABOUT_SHAPE:  # a question about the shape, not a computation
            return func(*_shadows(args), **_shadows(kwargs))
        return self.tape.record(func, args, kwargs)

    def __getitem__(self, index):
        return self.tape.record(operator.getitem, (self, index), {})

    def __setitem__(self, index, value) -> None:
        self.tape.record(operator.setitem, (self, index, value), {})

    def __getattr__(self, name: str) -> Any:
        """Array methods and attributes (reshape, sum, T, real, ...) are recorded."""
        if name.startswith("__") or self.shadow is None:
            raise AttributeError(name)
        if callable(getattr(self.shadow, name)):
            return lambda *args, **kwargs: self.tape.record(method_caller(name), (self,) + args,
                                                            kwargs)
        return self.tape.record(_attribute(name), (self,), {})

    def __copy__(self) -> "Linear":
        return self.tape.record(method_caller("copy"), (self,), {})

    def __deepcopy__(self, memo: dict) -> "Linear":
        """A copy on the tape, as of an array (jvp copies the tangents it is given):
        copy.deepcopy had copied the tape with it, and what was recorded on the copy
        was lost from lin."""
        return self.__copy__()

    def __len__(self) -> int:
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __array__(self, *args, **kwargs):
        raise _unrecordable("turned into a plain array (np.asarray)")

    def __float__(self):
        raise _unrecordable("turned into a float")

    def __bool__(self):
        raise _unrecordable("tested for truth")

    def __repr__(self) -> str:
        return f"Linear(#{self.index}, shape={self.shape})"


_ABOUT_SHAPE = {np.ndim, np.shape, np.size, np.iscomplexobj, np.isrealobj, np.result_type}


def _binary(ufunc: np.ufunc, reflected: bool = False, in_place: bool = False):
    def method(self, other):
        if other is NoTangent:  # the strong zero: t + 0 is t, t * 0 is 0
            return self if ufunc in (np.add, np.subtract) else NoTangent
        if in_place:
            return self.tape.record(ufunc, (self, other), {"out": (self,)})
        return self.tape.record(ufunc, (other, self) if reflected else (self, other), {})
    return method


for _name, _ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                      ("truediv", np.true_divide), ("matmul", np.matmul)):
    setattr(Linear, f"__{_name}__", _binary(_ufunc))
    setattr(Linear, f"__r{_name}__", _binary(_ufunc, reflected=True))
    setattr(Linear, f"__i{_name}__", _binary(_ufunc, in_place=True))
# Comparisons are recorded too (a rule may test where a tangent is 0, as the norm's does
# at a zero norm): without them Python compared by identity and gave a plain False.
Linear.__eq__ = lambda self, other: self.tape.record(np.equal, (self, other), {})
Linear.__ne__ = lambda self, other: self.tape.record(np.not_equal, (self, other), {})
Linear.__hash__ = None
Linear.__neg__ = lambda self: self.tape.record(np.negative, (self,), {})
Linear.__pos__ = lambda self: self


@functools.lru_cache(maxsize=None)
def method_caller(name: str) -> Callable:
    """A function that calls the method `name` of its first argument (a tape's record
    of `x.sum()` is a call of method_caller("sum") on x)."""
    def call_method(obj, *args, **kwargs):
        return getattr(obj, name)(*args, **kwargs)
    call_method.__name__ = name
    return call_method


@functools.lru_cache(maxsize=None)
def _attribute(name: str) -> Callable:
    return operator.attrgetter(name)


def _unrecordable(what: str) -> UnrecordableError:
    """linearize (fwdad/linearize.py) adds the rule, the user's line and what to do."""
    return UnrecordableError(f"a rule's tangent was {what}, which cannot be recorded")


def _map(fn: Callable, tree: Any) -> Any:
    """fn on every leaf of the nested tuples, lists and dicts of a call's arguments."""
    if type(tree) in (tuple, list):
        return type(tree)(_map(fn, v) for v in tree)
    if type(tree) is dict:
        return {k: _map(fn, v) for k, v in tree.items()}
    return fn(tree)


def _snapshot(tree: Any) -> Any:
    """Arrays that are not tangents are copied: a later in-place update of a primal
    must not change the coefficient the tape recorded."""
    return _map(lambda v: v.copy(order="K") if type(v) is np.ndarray else v, tree)  # (its layout)


def _shadows(tree: Any) -> Any:
    return _map(lambda v: v.shadow if type(v) is Linear else v, tree)


def resolved(tree: Any, env: list) -> Any:
    """`tree` with each recorded `Linear` replaced by its value in `env`."""
    return _map(lambda v: env[v.index] if type(v) is Linear else v, tree)


def _viewed(shadow: Any, tree: Any) -> Optional[int]:
    """The node among the recorded arguments whose memory `shadow` shares (a view). A
    view whose entries share memory with each other (np.broadcast_to: a zero stride)
    is not one: its transpose sums, it has a rule (fwdad/transposition_rules.py)."""
    found: list = []
    if isinstance(shadow, np.ndarray) and not any(
            stride == 0 and n > 1 for stride, n in zip(shadow.strides, shadow.shape)):
        _map(lambda v: found.append(v.index) if type(v) is Linear and isinstance(
            v.shadow, np.ndarray) and np.may_share_memory(shadow, v.shadow) else None,
             tree)  # (not the node of several arrays, np.array_split's pieces)
    return found[0] if found else None


def _plain_out(kwargs: dict) -> bool:
    """A recorded value written into a plain array with out= (or np.copyto): the tape
    could only write into a snapshot of it, and later reads would miss the write."""
    out = kwargs.get("out")
    return any(type(o) is np.ndarray for o in (out if isinstance(out, tuple) else (out,)))


def _linear_out(kwargs: dict) -> Any:
    out = kwargs.get("out")
    out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    return out if type(out) is Linear else None


class Recording(TangentContext):
    """While recording: new arrays get recorded zero tangents, and a plain tangent that
    a recorded one is written into becomes a recorded copy of itself."""

    def __init__(self, tape: Tape) -> None:
        super().__init__(None)
        self.tape = tape

    def zeros(self, zero: np.ndarray) -> Any:
        if zero.ndim > 1 and not zero.flags.c_contiguous:  # (in its memory order:
            return self.tape.record(np.zeros_like, (zero,), {})  # rules/layout.py)
        return self.tape.record(np.zeros, (zero.shape, zero.dtype), {})

    def needs_widening(self, x: Any, value: Any) -> bool:
        return type(value.tangent) is Linear

    def widen(self, tangent: np.ndarray, value: Any) -> Any:
        return self.tape.record(np.array, (np.copy(tangent),), {})  # (in its order)
