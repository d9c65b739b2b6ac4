"""Draws of location-scale families whose parameters have a derivative: `normal(loc,
scale)` and `uniform(low, high)`, in both modes. The sample is a + b-scaled unit draw,
and the unit draw is read back from the sample (the generator's state is not needed):

    normal:  sample = loc + scale z             d sample = dloc + dscale z
    uniform: sample = low + (high - low) u      d sample = dlow (1 - u) + dhigh u

Where the scale is 0 (high == low) the sample does not tell the unit draw: a derivative
there is refused (`degenerate_error`). Every other draw with such a parameter stays
refused (rules/random_.py `draw_parameter_error`).
"""
from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from fwdad.errors import FwdadError, in_user_code

# name -> (its parameters' names, their defaults); the same for Generator and RandomState
FAMILIES = {"normal": (("loc", "scale"), (0.0, 1.0)),
            "uniform": (("low", "high"), (0.0, 1.0))}


def bind(name: str, args: tuple, kwargs: dict) -> Tuple[Any, Any, Any]:
    """(a, b, size) of a call `name(*args, **kwargs)` (the generator left out), with the
    defaults where they are not given."""
    names, defaults = FAMILIES[name]
    given = dict(zip(names + ("size",), args))
    for key, value in kwargs.items():
        if key not in names + ("size",) or key in given:
            raise TypeError(f"{name}() got an unexpected or repeated argument {key!r}")
        given[key] = value
    return given.get(names[0], defaults[0]), given.get(names[1], defaults[1]), \
        given.get("size")


def unit_draw(name: str, sample: Any, a: Any, b: Any) -> np.ndarray:
    """z = (sample - loc) / scale, or u = (sample - low) / (high - low); 0 where the
    scale is 0 (see `degenerate`)."""
    width = np.asarray(b, dtype=float) - (0.0 if name == "normal" else np.asarray(a, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(width == 0, 0.0, (np.asarray(sample) - a) / width)


def degenerate(name: str, a: Any, b: Any) -> bool:
    """Whether some scale is 0 (normal) or some high equals its low (uniform)."""
    return bool(np.any(np.asarray(b) == 0 if name == "normal" else np.asarray(a) == b))


def degenerate_error(call: str) -> FwdadError:
    what = "scale is 0" if call.endswith("normal") else "high equals low"
    return FwdadError(
        f"np.random's {call}{in_user_code()}: its parameters have a derivative and a "
        f"{what}, where the sample does not tell the standard draw the derivative needs. "
        f"Draw standard values and transform them with the parameters "
        f"(loc + scale * rng.standard_normal(size), low + (high - low) * rng.random(size)), "
        f"which fwdad differentiates exactly.")


def partials(name: str, unit: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """d sample / d a and d sample / d b, elementwise."""
    if name == "normal":
        return np.ones_like(unit), unit
    return 1.0 - unit, unit
