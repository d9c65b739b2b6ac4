"""What the constructs drawn from their own random stream share (state.py, guarded.py,
layouts.py): the draw of whether a program gets one and after which top-level
statement, from `random.Random(seed * salt + offset)`, so that the rest of the program
is drawn as it was without it; and the test that it is."""
from __future__ import annotations

import random
from typing import Any, ClassVar, Dict, FrozenSet, List, Tuple

# the features drawn in every program that has them enabled (python -m tests.fuzz
# --always scientific: for hunting bugs in one construct; worker processes are forked,
# so they see it)
ALWAYS: FrozenSet[str] = frozenset()


def set_always(features: FrozenSet[str]) -> None:
    global ALWAYS
    ALWAYS = frozenset(features)


class OnceAfter:
    """One statement of a construct, in one program in `fraction`, after one of the
    first three top-level statements (the first where the program is ready for it)."""

    def __init__(self, seed: int, enabled: bool, salt: int, offset: int, fraction: int,
                 feature: str) -> None:
        self.rng = random.Random(seed * salt + offset)
        drawn = self.rng.randrange(fraction) == 0  # (drawn always: the stream stays)
        self.wanted = enabled and (drawn or feature in ALWAYS)
        self.after = self.rng.randint(1, 3)   # after this many top-level statements
        self.statements = 0
        self.feature = feature

    def due(self, g, ready: bool) -> bool:
        """Whether the construct's statement goes here (once: it is marked drawn)."""
        self.statements += 1
        if not self.wanted or self.statements < self.after or not ready:
            return False
        self.wanted = False
        g.features = g.features | {self.feature}
        return True


class OncePattern(OnceAfter):
    """A construct of one statement (habits.py, classes.py, array_calls.py): a pattern
    (name, module text or None, lines, kind) drawn once, whose lines rebind a variable
    of a shape `SHAPES[kind]` names; `FRESH` are the fields that get fresh names."""

    PATTERNS: ClassVar[List[Tuple[str, Any, List[str], str]]]
    SHAPES: ClassVar[Dict[str, List[tuple]]]
    FRESH: ClassVar[Tuple[str, ...]]
    PREFIX: ClassVar[str]  # of the fresh names (and of the module text's helper)
    HELPER: ClassVar[str] = ""  # of the module text's helper, when not PREFIX

    def __init__(self, seed: int, enabled: bool, salt: int, offset: int, fraction: int,
                 feature: str, only: str) -> None:
        super().__init__(seed, enabled, salt, offset, fraction, feature)
        self.pattern = self.rng.choice([p for p in self.PATTERNS if p[0] == only]
                                       or self.PATTERNS)

    def after_statement(self, g) -> List[str]:
        """The lines of the statement (registering its module text), once, where a
        variable of a shape it takes exists."""
        name, text, lines, kind = self.pattern
        names = sorted(v for v, s in g.vars.items() if s in self.SHAPES[kind])
        if not self.due(g, bool(names)):
            return []
        number = len(g.module)
        helper = f"{self.HELPER or self.PREFIX}_{name}_{number}"
        if text is not None:
            g.module.append(text.format(name=helper, n=number))
        v = self.rng.choice(names)
        scalars = sorted(u for u, s in g.vars.items() if s == ())
        shift = self.rng.choice(scalars) if scalars else f"float(np.sum({v}))"
        fields = dict(name=helper, n=number, v=v, s=shift)
        fields.update((field, g.fresh(self.PREFIX)) for field in self.FRESH)
        # a variable made from constants is made to depend on an argument, so that the
        # construct's derivative is not zero
        active = [] if v in g.params else [
            f"{v} = {v} * (1.0 + 0.125 * np.sum({self.rng.choice(g.params)}))"]
        g.output_terms.append(f"0.25 * np.sum({v})")  # (the output reads what it made)
        return active + [line.format(**fields) for line in lines]


def assert_drawn_apart(seeds, feature: str, without, with_it) -> None:
    """A program that does not draw `feature` is the program it was without it, with
    the same arguments; some programs of `seeds` draw it, not all."""
    drawn = 0
    for seed in seeds:
        plain, program = without(seed), with_it(seed)
        assert feature not in plain.features
        if feature in program.features:
            drawn += 1
            assert program.source != plain.source
        else:
            assert program.source == plain.source
        assert [a.tolist() if hasattr(a, "tolist") else a for a in program.args] == \
            [a.tolist() if hasattr(a, "tolist") else a for a in plain.args]
    assert 0 < drawn < len(seeds)
