"""The functions fwdad's transformations return, as objects that say what they compute.

    fwdad.grad(f, argnums=1)  ->  Transformed("grad", f, 1, compute)
    fwdad.grad(f)(x)          ->  compute(x)

A call of a plain closure would be foreign code to fwdad; a call of a `Transformed` has
rules (fwdad/nesting.py), so a gradient or Jacobian taken inside a differentiated
function is differentiated again. `f` is a field, so the tangent of a `Transformed` is
the tangent of the function it transforms (a closure over differentiated values).
"""
from __future__ import annotations

from typing import Any, Callable

from fwdad.probe import probe


class Transformed:
    """`kind` ("grad", "value_and_grad", "jacfwd", "jacrev", "hessian") of `f` with
    respect to `argnums`; calling it runs `compute`."""

    def __init__(self, kind: str, f: Callable[..., Any], argnums: Any,
                 compute: Callable[..., Any]) -> None:
        self.kind, self.f, self.argnums, self.compute = kind, f, argnums, compute
        self.__name__ = self.__qualname__ = compute.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.compute(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<fwdad.{self.kind} of {probe(self.f, '__name__', self.f)!r}>"


class NestedTransformation(BaseException):
    """A control signal, not an error: reverse mode met a call of one of fwdad's
    transformations inside the function it differentiates. `grad`, `value_and_grad` and
    `jacrev` catch it and take the outer derivative in forward mode instead
    (fwdad/nesting.py); `vjp` turns it into a FwdadError. A BaseException, so that a user's
    `except Exception` around the inner call cannot swallow it and go on with a wrong
    value."""

    def __init__(self, inner: str) -> None:
        super().__init__(inner)
        self.inner = inner
