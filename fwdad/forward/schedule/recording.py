"""The recording rule's Dual code (forward/schedule/record.py): the plain rule, printed
from the same Lines with each plain value it reaches going through the recorder.

    if t.primal:        ->  if _fw_rec_test(t):                 the outcome becomes a guard
    _fw_global(h)       ->  _fw_rec_const(lambda: h)            a live read, checked
    _fw_const(e)        ->  _fw_rec_const(lambda: e)            (an exception caught)
"""
from __future__ import annotations

import ast

from fwdad.core import duals
from fwdad.forward.transform.astbuild import LOAD
from fwdad.forward.transform.plain_code import PlainCode

TEST, CONST = "_fw_rec_test", "_fw_rec_const"  # the recorder's, bound by record.py

_NO_ARGUMENTS = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                              kw_defaults=[], kwarg=None, defaults=[])


class RecordingCode(PlainCode):
    def primal(self, name: str) -> ast.expr:
        return ast.Call(ast.Name(TEST, LOAD), [ast.Name(name, LOAD)], [])

    def global_read(self, name: str) -> ast.expr:
        return _read(name)

    def constant(self, name: str) -> ast.expr:
        self.k.bind(duals.const, "const")  # (bound as the plain rule binds it)
        return _read(name)


def _read(name: str) -> ast.Call:
    """`_fw_rec_const(lambda: name)`."""
    return ast.Call(ast.Name(CONST, LOAD), [ast.Lambda(_NO_ARGUMENTS, ast.Name(name, LOAD))],
                    [])
