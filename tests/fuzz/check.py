"""Check one program with every oracle: `check(seed)` -> Result.

A program whose reference is unusable (see reference.py) is *discarded*: no oracle
runs on it. Otherwise each oracle's Outcome is recorded separately.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Dict, Iterable, Optional

from tests.fuzz.case import Case
from tests.fuzz.generate import Program, generate
from tests.fuzz.oracles import ORACLES
from tests.fuzz.outcome import Outcome, attempt


@dataclass
class Result:
    seed: int
    source: str
    discard: Optional[str] = None
    outcomes: Dict[str, Outcome] = field(default_factory=dict)
    seconds: float = 0.0

    def failures(self) -> Dict[str, Outcome]:
        return {name: o for name, o in self.outcomes.items() if o.status in ("wrong", "crash")}


def check(seed: int, oracles: Optional[Iterable[str]] = None,
          source: Optional[str] = None, exclude: frozenset = frozenset(),
          idioms: bool | str = True, views: bool | int = True,
          habits: bool | str = True, classes: bool | str = True,
          arrays: bool | str = True, functional: bool | str = True,
          callbacks: bool | str = True, scientific: bool | str = True) -> Result:
    """Run the oracles (all by default) on the program of `seed` (or on `source`, a
    variant of it with the same arguments, as the shrinker makes); `idioms` names one
    idiom to draw in place of any, `views` (an index) one view pattern, `habits`
    one habit, `classes` one class, `arrays` one array call, `functional` one
    functional idiom, `callbacks` one callback, `scientific` one SciPy call
    (generate.generate)."""
    start = time.perf_counter()
    program = generate(seed, exclude, stateful=True, complex_values=True, guarded=True,
                       layouts=True, idioms=idioms, views=views, habits=habits,
                       classes=classes, arrays=arrays, functional=functional,
                       callbacks=callbacks, scientific=scientific)
    if source is not None:
        program = Program(seed, source, program.args, program.tangents, program.features)
    result = Result(seed, program.source)
    try:
        case = Case(program)
    except Exception as exc:  # noqa: BLE001 (a variant that does not even import)
        result.discard = f"does not load: {type(exc).__name__}"
        return result
    result.discard = case.ref.discard
    if result.discard is None:
        for name in oracles or ORACLES:
            result.outcomes[name] = attempt(lambda: ORACLES[name](case))
    result.seconds = time.perf_counter() - start
    return result


def failure_class(result: Result) -> str:
    """The failure classes of a result, "" when it has none: `oracle status: kind; ...`."""
    return "; ".join(f"{name} {o.status}: {o.kind}" for name, o in result.failures().items())


def report(result: Result) -> str:
    """The program and one line per oracle (the --show format)."""
    lines = [f"# seed {result.seed} ({result.seconds:.2f} s)", result.source]
    if result.discard:
        lines.append(f"discarded: {result.discard}")
    for name, o in result.outcomes.items():
        lines.append(f"{name:13} {o.status:8} {o.kind}")
        if o.status not in ("pass", "skipped") and o.detail:
            lines.append(f"{'':13} {o.detail[:400]}")
    return "\n".join(lines)
