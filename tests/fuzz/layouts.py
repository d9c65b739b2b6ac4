"""Memory layouts: arrays made in F order, transposed or copied in another order, then
written through a reshape or ravel, which is a view of them or a copy as their layout
decides (NumPy's rule; fwdad/rules/layout.py keeps each derivative laid out as its
value, so that the write reaches the derivative where it reaches the value).

Each program of the `layout` subset (about one in four of the fuzzer's programs, drawn
from the seed by its own random stream, so the rest of the program is drawn as before;
`generate(seed, layouts=True)`) rebinds one (2, 3) variable after one of its top-level
statements:

    lay4 = np.asfortranarray(v2 * 1.0).T    # (3, 2), C-ordered: its reshape is a view
    lay4.reshape(-1)[1] = np.sin(v2[0, 1])  # so this write reaches lay4
    v2 = v2 + 0.5 * lay4.T
"""
from __future__ import annotations

from typing import List

from tests.fuzz.own_stream import OnceAfter

FRACTION = 4     # one program in FRACTION draws a layout statement
SALT = 6271      # the construct's own random stream: random.Random(seed * SALT + 5)

# (lines making {w} from {v}, {w}'s shape is (2, 3) or (3, 2): "T" when transposed)
MAKERS = [
    (["{w} = np.asfortranarray({v} * 1.0)"], ""),
    (["{w} = np.asfortranarray({v} * 1.0).T"], "T"),
    (["{w} = np.ascontiguousarray(({v} + 0.0).T)"], "T"),
    (["{w} = np.array({v} * 2.0, order='F').T"], "T"),
    (["{w} = ({v} - 0.5).copy(order='F')"], ""),
    (["{w} = np.copy({v} * 1.5, order='F').T"], "T"),
    (["{w} = ({v} * 1.0).astype(np.float64, order='F')"], ""),
    (["{w} = np.zeros((2, 3), order='F')", "{w} += {v}"], ""),
    (["{w} = np.empty_like({v}, order='F')", "{w}[...] = np.tanh({v})"], ""),
    (["{w} = np.sin(np.asfortranarray({v})).T"], "T"),
    (["{w} = np.einsum('ij->ji', {v} * 1.0)"], "T"),
]
# writes through a view (or a copy) of {w}, with values that depend on {v}
WRITES = [
    ["{w}.reshape(-1)[1] = np.sin({v}[0, 1])"],
    ["{w}.reshape(-1, order='F')[2] += {v}[1, 2] * 0.5"],
    ["{w}.reshape(-1, order='A')[0] *= 1.5"],
    ["np.ravel({w})[1:3] = {v}[0, :2] * {v}[1, :2]"],
    ["{w}.ravel(order='K')[4] -= np.cos({v}[0, 0])"],
    ["{w}.T.reshape(-1)[-1] = {v}[1, 1] ** 2"],
    ["{flat} = {w}.reshape({w}.size)", "{flat}[0] = {flat}[-1] * 0.5 + {v}[0, 2]"],
]


class Layouts(OnceAfter):
    """Whether and where the program of `seed` gets a layout statement."""

    def __init__(self, seed: int, enabled: bool) -> None:
        super().__init__(seed, enabled, SALT, 5, FRACTION, "layout")

    def after_statement(self, g) -> List[str]:
        """The lines of the statement, once, where a (2, 3) variable exists."""
        matrices = sorted(n for n, s in g.vars.items() if s == (2, 3))
        if not self.due(g, bool(matrices)):
            return []
        make, transposed = self.rng.choice(MAKERS)
        names = dict(v=self.rng.choice(matrices), w=g.fresh("lay"), flat=g.fresh("flat"))
        lines = make + self.rng.choice(WRITES) + \
            [f"{{v}} = {{v}} + 0.5 * {{w}}{'.T' if transposed else ''}"]
        return [line.format(**names) for line in lines]
