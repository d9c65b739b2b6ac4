"""What the constructs drawn from their own random stream share (state.py, guarded.py,
layouts.py): the draw of whether a program gets one and after which top-level
statement, from `random.Random(seed * salt + offset)`, so that the rest of the program
is drawn as it was without it; and the test that it is."""
from __future__ import annotations

import random


class OnceAfter:
    """One statement of a construct, in one program in `fraction`, after one of the
    first three top-level statements (the first where the program is ready for it)."""

    def __init__(self, seed: int, enabled: bool, salt: int, offset: int, fraction: int,
                 feature: str) -> None:
        self.rng = random.Random(seed * salt + offset)
        self.wanted = enabled and self.rng.randrange(fraction) == 0
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
