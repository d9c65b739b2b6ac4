"""linearize(f, *primals) -> (out, lin): the JVP as a reusable linear map.

The rule of `f` runs once with *recorded* tangents (`Linear`): every NumPy operation a
rule applies to a tangent is appended to a `Tape`, with the primal-side coefficients it
needs (e.g. `cos(x)` for `sin`) copied at that moment. `lin(t)` replays only the tape
on real tangents: no primal work, no rules, no dispatch. In-place updates of tangents
are replayed in order, so views keep sharing memory as they did.

Note: recording the tangent operations was chosen over keeping the dense Jacobian
(n jvps up front and an n x m matrix, where the tape costs one jvp and the
coefficients). `lin.T` (the VJP, fwdad/linearize_transpose.py) runs the tape backwards
(fwdad/transposition.py); for a tape with an op it has no transpose rule for, the
batched Jacobian.
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Optional, Sequence, Tuple

import numpy as np

from fwdad import linear_program, seeds, transposition
from fwdad.aliased_arguments import separated
from fwdad.api import call, jvp
from fwdad.api_checks import argument_names, check_callable
from fwdad.dead_ops import drop_dead_ops
from fwdad.dual import Dual
from fwdad.errors import (
    FwdadError,
    TangentError,
    UnrecordableError,
    a_type,
    describe,
    note_user_location,
    where,
)
from fwdad.linearize_transpose import Transpose, recorded_leaves
from fwdad.recording import Linear, Recording, Tape
from fwdad.rules.batching import tangent_context
from fwdad.signatures import check_call
from fwdad.tangent_checks import check_tangent
from fwdad.tangents import NoTangent, Tangent, rebuild, zero_tangent


# ---- the public function ---------------------------------------------------------------
def linearize(f: Callable[..., Any], *primals: Any) -> Tuple[Any, "Linearization"]:
    """Evaluate `f(*primals)` and return its linearization at that point.

    Args:
        f: the function.
        primals: its arguments (floats, float arrays and tuples, lists and dicts of
            them are differentiable; other values pass through).

    Returns:
        `(out, lin)`: `lin(*tangents)` is the JVP (`jvp(f, primals, tangents)[1]`),
        computed by replaying the recorded tangent operations only; tangents with a
        leading batch axis give a batch of outputs. `lin.T(cotangent)` is the VJP
        (the tuple of cotangents of the arguments).

    Raises:
        UnrecordableError: a rule does something with a tangent that cannot be
            recorded (jvp and jacfwd work: the message names the rule and the line).
        FwdadError: as jvp raises it (errors of f itself, too, are raised as jvp
            raises them).
    """
    check_callable(f, "linearize")
    check_call("linearize", f, primals)
    primals = separated(primals)  # (each argument has tangents of its own)
    kept = copy.deepcopy(primals)
    tape = Tape()
    # (an instance at two places, of one argument or two, has one seed, as one tangent
    # in jvp: one Tangent, also in f's copies, which are made all at once)
    inputs = list(seeds.primal_tree_map(lambda leaf: _input(tape, leaf), tuple(primals),
                                        lambda: f"linearize({describe(f)})", shared=True,
                                        apart=True))
    # (f gets its own lists and dicts of tangents: it may pop from them or add keys,
    # and lin binds the given tangents to the seeds as they were)
    duals = [Dual(p, t) for p, t in zip(copy.deepcopy(primals),
                                        seeds.tree_map(lambda leaf: leaf, tuple(inputs)))]
    try:
        with tangent_context(Recording(tape)):
            out = call(f, duals)
    except Exception as exc:
        if _recording_failed(f, kept, exc):
            if getattr(exc, "whole", False):  # (a rule's own message names the call,
                raise  # the user's line and what to do: fwdad/rules/recorded_solves.py)
            raise _unrecordable(f, exc) from exc
        note_user_location(exc)
        raise
    tape.forget_shadows()
    drop_dead_ops(tape, out.tangent)  # (tangent work that nothing read: fwdad/dead_ops.py)
    return out.primal, Linearization(f, kept, tape, inputs, out)


# ---- what a rule does with a tangent that cannot be recorded ---------------------------
def _recording_failed(f: Callable[..., Any], primals: tuple[Any, ...], exc: Exception) -> bool:
    """Whether `exc` comes from recording rather than from f or its rules: f's own
    errors (and fwdad's, such as a missing rule) are raised by jvp as well."""
    if isinstance(exc, FwdadError) and not isinstance(exc, UnrecordableError):
        return False
    try:
        jvp(f, copy.deepcopy(primals), [None] * len(primals))  # (None: zero, and one
        # for an instance at two places)
    except Exception:  # noqa: BLE001 (any error of f's: the original one is raised)
        return isinstance(exc, UnrecordableError)
    return True


def _unrecordable(f: Callable[..., Any], exc: Exception) -> UnrecordableError:
    rule, line = _rule_and_line(exc.__traceback__)
    what = str(exc) if isinstance(exc, UnrecordableError) else \
        f"a rule did something to a recorded tangent that failed ({type(exc).__name__}: {exc})"
    return UnrecordableError(
        f"linearize cannot record the derivative of {describe(f)}: {what}, in the rule "
        f"{rule}, which {line or 'a line of f'} calls. linearize records the tangent "
        f"operations of every rule, and this rule applies something other than the "
        f"NumPy operations it can record. fwdad.jvp and fwdad.jacfwd work for this "
        f"function: use them (and fwdad.vjp for lin.T).")


def _rule_and_line(tb: Any) -> tuple[Any, ...]:
    """The rule that failed (the first function of fwdad/rules/ or of the user's rules
    below the innermost generated line) and the user's line that called it."""
    from fwdad.compile import USER_LINES, user_location
    line, rule = None, None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename in USER_LINES:  # generated code: the rules below it count
            hit = user_location(code.co_filename, tb.tb_lineno)
            line, rule = (where(*hit) if hit else line), None
        elif rule is None and _is_rule_frame(code.co_filename):
            rule = f"{code.co_qualname} ({where(code.co_filename, code.co_firstlineno)})"
        tb = tb.tb_next
    return rule or "that failed", line


_MACHINERY = ("api.py", "linearize.py", "forward/", "recording.py", "rules/registry.py",
              "rules/outputs.py", "rules/classes.py", "rules/plain_params.py",
              "rules/array_like.py", "core/",
              "rules/batching.py", "dual.py", "tangents.py")


def _is_rule_frame(filename: str) -> bool:
    """Code of rules (fwdad's or the user's): not fwdad's machinery, not NumPy."""
    inside = filename.replace("\\", "/").rsplit("/fwdad/", 1)
    return not (len(inside) == 2 and inside[1].startswith(_MACHINERY)) and \
        "/numpy/" not in filename


def _input(tape: Tape, leaf: Any) -> Any:
    zero = zero_tangent(leaf)
    if isinstance(zero, (float, complex, np.inexact, np.ndarray)):
        if type(leaf) is np.ndarray:  # (in its memory order: rules/layout.py)
            return tape.node(np.zeros_like(leaf))
        return tape.node(np.zeros(np.shape(leaf), np.asarray(leaf).dtype))
    if zero is NoTangent:
        return zero
    raise FwdadError(f"linearize takes floats, float arrays and tuples, lists and dicts "
                     f"of them; got {a_type(leaf)}.")


class Linearization:
    """`lin(*tangents)`: the JVP of f at the recorded point; `lin.T`: its transpose."""

    def __init__(self, f: Callable[..., Any], primals: tuple[Any, ...], tape: Tape,
                 inputs: list[Any], out: Dual) -> None:
        self.f, self.primals, self.tape, self.inputs = f, primals, tape, inputs
        self.out_primal, self.out_tangent = out.primal, out.tangent
        self._jacobian_t: Optional[Tuple[np.ndarray[Any, Any], Any]] = None
        self._transpose: Optional[Transpose] = None

    def __call__(self, *tangents: Any) -> Any:
        if len(tangents) != len(self.primals):
            raise FwdadError(f"lin of {describe(self.f)} takes {len(self.primals)} "
                             f"tangents (one per argument), but got {len(tangents)}.")
        size, tangents = self._checked(tangents)
        if size is None:
            return self._apply(tangents)
        from fwdad.tangents import stack, unstack
        return stack([self._apply([unstack(t, b) for t in tangents])
                      for b in range(size)])

    def _checked(self, tangents: tuple[Any, ...]) -> tuple[Any, ...]:
        """(batch size or None, the tangents checked): None for a tangent is a zero
        of the primal's shape, with the batch axis when the others have one."""
        reached, single, checked = self._check_each(tangents, None)
        if single is None:
            return None, checked
        leaf = next((x for x in seeds.leaf_list(tangents, instances=True)
                     if x is not None and np.ndim(x) > 0), None)
        if leaf is None:  # (no batch axis: the error was not about one)
            raise single
        size = int(np.shape(leaf)[0])
        reached_batched, batched, checked = self._check_each(tangents, size)
        if batched is None:
            return size, checked
        # (the error of the reading that got further: as a batch, the first argument
        # already failed, when the tangents were single ones)
        raise batched if reached_batched > reached else single

    def _check_each(self, tangents: tuple[Any, ...], size: Optional[int]
                    ) -> tuple[int, Optional[TangentError], list[Any]]:
        """(how many arguments passed, the TangentError of the next or None, the
        tangents checked, with a batch axis of `size`). (`seen`: an instance at two
        places takes one tangent, as in jvp.)"""
        names = argument_names(self.f, len(tangents))
        seen: dict[int, Any] = {}
        checked: list[Any] = []
        for p, t, n in zip(self.primals, tangents, names):
            try:
                checked.append(check_tangent(p, t, n, batch=size, of=describe(self.f),
                                             seen=seen))
            except TangentError as exc:
                return len(checked), exc, checked
        return len(checked), None, checked

    def _apply(self, tangents: Sequence[Any]) -> Any:
        env: list[Any] = [None] * len(self.tape.nodes)
        for given, seeded in zip(tangents, self.inputs):
            _bind(env, seeded, given)
        self.tape.replay(env)
        return _read(self.out_primal, self.out_tangent, env)

    def source(self) -> str:
        """The recorded linear program, as readable Python (fwdad/linear_program.py)."""
        return linear_program.forward_source(self.tape, recorded_leaves(self.inputs),
                                             self.out_tangent)

    @property
    def T(self) -> "Transpose":
        if self._transpose is None:
            self._transpose = Transpose(self)
        return self._transpose


def _bind(env: list[Any], seeded: Any, given: Any) -> None:
    if type(seeded) is Linear:
        env[seeded.index] = transposition.zeros_like_node(seeded)  # (the seed's layout)
        env[seeded.index][...] = given
    elif isinstance(seeded, (tuple, list)):
        for s, g in zip(seeded, given):
            _bind(env, s, g)
    elif isinstance(seeded, dict):
        for k in seeded:
            _bind(env, seeded[k], given[k])
    elif isinstance(seeded, Tangent):  # (an instance's: check_tangent gave every field)
        for k, s in vars(seeded).items():
            _bind(env, s, getattr(given, k))


def _read(primal: Any, tangent: Any, env: list[Any], memo: Optional[dict[int, Any]] = None
          ) -> Any:
    """The output tangent, with recorded leaves replaced by their replayed values."""
    if type(tangent) is Linear:
        value = env[tangent.index]
        if isinstance(primal, (float, complex)):
            return type(primal)(value)
        return np.array(value)
    if isinstance(tangent, (tuple, list)) and isinstance(primal, (tuple, list)):
        return rebuild(tangent, [_read(p, t, env, memo) for p, t in zip(primal, tangent)])
    if isinstance(tangent, dict):
        return {k: _read(primal[k], t, env, memo) for k, t in tangent.items()}
    if isinstance(tangent, Tangent):  # (an instance's fields; one met again, once)
        memo = {} if memo is None else memo
        if id(tangent) not in memo:
            out = memo[id(tangent)] = Tangent()
            vars(out).update({k: _read(getattr(primal, k, None), t, env, memo)
                              for k, t in vars(tangent).items()})
        return memo[id(tangent)]
    return copy.copy(tangent)
