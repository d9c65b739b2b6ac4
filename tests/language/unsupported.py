"""Constructs fwdad does not differentiate: each gives a clear error."""
from __future__ import annotations

import contextlib


def generator(x):
    yield x * 2.0


def uses_generator(x):
    return sum(generator(x))


async def asynchronous(x):
    return x


def evaluates_strings(x):
    return eval("x * 2")


def class_inside(x):
    class Local:
        pass
    return x


def match_statement(x):
    match x:
        case 0.0:
            return x
        case _:
            return -x


def _made_by_exec():
    namespace = {}
    exec("def made(x):\n    return x * 2\n", namespace)
    return namespace["made"]


made_by_exec = _made_by_exec()


def int_argument(n):
    return n * 2


class Interned:
    def __new__(cls, value):
        self = super().__new__(cls)
        self.value = value
        return self


def class_with_own_new(x):
    return Interned(x * 2.0).value


@contextlib.contextmanager
def _doubled(v):
    yield v * 2.0


def generator_context_manager(x):
    with _doubled(x) as v:
        return v


def exit_stack(x):
    with contextlib.ExitStack() as stack:
        return stack.enter_context(contextlib.nullcontext(x * 2.0))


def set_of_differentiable_values(x):
    s = {x * 1.0, x * 2.0}
    return max(sorted(s))


def set_comprehension_of_differentiable_values(x):
    return max({x * k for k in (1.0, 2.0)})


def set_of_a_differentiable_list(x):
    return sum(frozenset([x, 2.0]))
