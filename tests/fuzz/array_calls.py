"""NumPy calls the other statements do not draw: ufunc methods (`np.add.reduce`,
`np.multiply.accumulate`, `np.maximum.reduce`, `np.add.outer`, `np.subtract.outer`,
`reduceat`) and reductions with `axis`, `keepdims`, `where` and `initial` (an `initial`
that depends on the arguments, too); broadcasting chains (`x[:, None] * y[None, :]`,
`np.newaxis`, `np.broadcast_to` then a copy written, `expand_dims`, `squeeze`,
`moveaxis`, `swapaxes`); `tile`, `repeat`, `stack`, `vstack`, `hstack`,
`column_stack`; `take`, `take_along_axis` and boolean masks of constants; `np.hypot`,
`np.arctan2`, `np.logaddexp`, `np.sinc`, `np.expm1`, `np.log1p`, `np.cbrt`, powers with
array exponents and scalar bases, `np.polyval` (with coefficients that depend on the
arguments), `np.interp` on constant knots, `np.trapezoid`; and dtypes mixed in: int
arrays, bool masks multiplied in, `np.float64` and `np.float32` scalars with float64
arrays, 0-d arrays, `.item()`, `float(np.sum(x))` and `math` functions of 0-d arrays.

Each program of the `arrays` subset (about one in four of the fuzzer's programs, drawn
from the seed by its own random stream, so the rest of the program is drawn as before;
`generate(seed, arrays=True)`) rebinds one variable through one of them after one of
its top-level statements:

    v3 = np.add.reduce(arr4, axis=-1) + np.multiply.reduce(v3 * 0.5 + 2.0, axis=None,
                                                           initial=x1 * 0.1 + 1.0) * 0.01

Values stay far from kinks and ties (a mask that keeps all, a max of values 10 apart,
interpolation knots far from the values), so the oracles' references stay valid.
"""
from __future__ import annotations

from tests.fuzz.own_stream import OncePattern

FRACTION = 4     # one program in FRACTION draws an array call
SALT = 5737      # the construct's own random stream: random.Random(seed * SALT + 19)

# (name, lines with {v}, {w}, {t} and {s}; the shapes {v} may have: "any", "array" or
# "vector")
CALLS = [
    ("reduce", ["{w} = np.multiply.outer({v}, np.array([0.5, -0.25]))",
                "{v} = np.add.reduce({w}, axis=-1) + np.maximum.reduce({w} + "
                "np.array([0.0, 10.0]), axis=-1, keepdims=True)[..., 0] * 0.1 + "
                "np.multiply.reduce({v} * 0.5 + 2.0, axis=None, initial={s} * 0.1 + 1.0) "
                "* 0.01"], "array"),
    ("accumulate", ["{w} = np.add.accumulate({v}, axis=-1) * 0.5 + "
                    "np.multiply.accumulate(np.tanh({v}) * 0.25 + 1.0, axis=0)",
                    "{v} = {w} + np.maximum.accumulate({v} + np.arange({v}.shape[-1]) * 10.0, "
                    "axis=-1) * 0.1"], "array"),
    ("outer", ["{w} = np.subtract.outer({v}, np.sin({v})) + np.add.outer({v} * 0.5, {v})",
               "{v} = {w} @ {v} * 0.25 + np.diagonal({w})"], "vector"),
    ("reduceat", ["{w} = np.add.reduceat(np.concatenate([{v}, {v} * {v}]), [0, 2, 3])",
                  "{v} = {v} * 0.5 + {w}"], "vector"),
    ("keywords", ["{w} = np.arange({v}.size).reshape({v}.shape) % 2 == 0",
                  "{v} = {v} + np.sum({v} * {v}, axis=-1, keepdims=True) * 0.25 + "
                  "np.sum({v}, initial={s}) * 0.1 + np.sum({v}, where={w}) * 0.5 + "
                  "np.mean(np.sin({v}), axis=0, keepdims=True) + np.max({v}, axis=-1, "
                  "keepdims=True, initial=float(np.max({v})) + 5.0 + np.tanh({s})) * 0.1 + "
                  "np.prod({v} * 0.25 + 2.0, axis=0, initial={s} * 0.5) * 0.1"], "array"),
    ("broadcast", ["{w} = {v}[:, None] * np.cos({v})[None, :] + "
                   "np.broadcast_to({v}, (2, 3)).copy()[0][:, np.newaxis]",
                   "{w}[0] += 0.5",
                   "{v} = np.squeeze(np.expand_dims({w}.sum(axis=1), 0), axis=0) * 0.25 + "
                   "np.moveaxis({w}, 0, 1)[1] * 0.5"], "vector"),
    ("stacking", ["{w} = np.stack([{v}, np.sin({v})]) + np.vstack([{v}, {v} ** 2]) * 0.5",
                  "{t} = np.hstack([{w}[0], {w}[1]]) + np.tile({v}, 2) * np.repeat({v}, 2) "
                  "* 0.25",
                  "{v} = {t}[:3] - {t}[3:] * 0.5 + np.column_stack([{v}, {v}])[:, 1] * "
                  "np.swapaxes({w}, 0, 1)[:, 0]"], "vector"),
    ("taking", ["{w} = np.take({v}, np.array([2, 0, 1, 2])) * 0.5",
                "{t} = np.take_along_axis(np.outer({v}, {v}), np.array([[1], [2], [0]]), "
                "axis=1)[:, 0]",
                "{v} = {w}[:3] + {t} + {v}[np.array([True, False, True])].sum() * 0.25"],
     "vector"),
    ("special", ["{v} = np.hypot({v}, 1.5) + np.arctan2({v}, 2.0) + "
                 "np.logaddexp({v}, {v} * 0.5) * 0.5 + np.sinc({v} * 0.3 + 0.15) + "
                 "np.expm1({v} * 0.5) * np.log1p({v} * {v}) + np.cbrt({v} * {v} + 1.0)"],
     "any"),
    ("powers", ["{v} = np.power(np.sqrt({v} * {v} + 2.0), np.sin({v}) * 0.5) + "
                "np.float_power(2.0, {v} * 0.5) + (np.cos({s}) * 0.1 + 2.0) ** ({v} * 0.25) "
                "+ np.power(np.sqrt({v} * {v} + 9.0) * 0.5, np.cos({s}))"], "any"),
    ("polynomials", ["{v} = np.polyval(np.array([0.25, -0.5, 1.0]), {v}) + "
                     "np.polyval([np.sin({s}) * 0.1, 0.5], {v}) + np.interp({v} * 0.01, "
                     "np.array([-5.0, 3.0, 5.0]), np.array([1.0, 2.0, 0.5]))"], "any"),
    ("trapezoid", ["{w} = np.trapezoid({v} * {v}, dx=0.5, axis=-1) + np.trapezoid("
                   "np.sin({v}), x=np.linspace(0.0, 1.0, {v}.shape[-1]), axis=-1) + "
                   "np.trapezoid({v}, x=np.cumsum(np.exp({v} * 0.1), axis=-1), axis=-1)",
                   "{v} = {v} * 0.5 + np.expand_dims({w}, -1)"], "array"),
    ("dtypes", ["{w} = np.arange(1, {v}.size + 1).reshape({v}.shape)",
                "{v} = {v} * {w} + ({v} > -1e6) * {v} * 0.5 + {w} // 2 * np.float64(0.25) * "
                "{v} + np.asarray({s}) * 0.1 + float(np.sum({v})) * 0.01 + "
                "np.sum({v}).item() * 0.01 + {v} * np.float32(0.5) + "
                "np.ones({v}.shape, dtype=np.int32) * {v} * 0.25"], "array"),
    ("zero_d", ["{w} = np.array({s} * 0.5 + np.float64(0.25))",
                "{v} = {v} * math.exp(math.tanh(np.sum({v}) * 0.01)) + math.sin({w}) * {v} + "
                "np.hypot(math.cos({w}), 1.0) + {w}.item() * 0.5 + {w} * {v}"], "any"),
]
SHAPES = {"any": [(), (3,), (2, 3)], "array": [(3,), (2, 3)], "vector": [(3,)]}
PATTERNS = [(name, None, lines, kind) for name, lines, kind in CALLS]  # (no module text)


class ArrayCalls(OncePattern):
    """Whether and where the program of `seed` gets an array call, and which one (`only`
    names the one to draw, for measuring one at a time)."""

    PATTERNS, SHAPES, FRESH, PREFIX = PATTERNS, SHAPES, ("w", "t"), "arr"

    def __init__(self, seed: int, enabled: bool, only: str = "") -> None:
        super().__init__(seed, enabled, SALT, 19, FRACTION, "arrays", only)
