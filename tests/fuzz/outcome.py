"""An oracle's verdict on one program, and the classification of exceptions.

pass / wrong / crash / refused / skipped. A refusal is an fwdad error other than
InternalError (a clear "cannot do this"); any other exception out of fwdad, when the
plain program runs fine, is a crash. `kind` groups outcomes into failure classes.
"""
from __future__ import annotations

import os
import re
import traceback
import warnings
from dataclasses import dataclass
from typing import Callable

import fwdad

FWDAD_DIR = os.path.dirname(fwdad.__file__)


@dataclass
class Outcome:
    status: str          # pass | wrong | crash | refused | skipped
    kind: str = ""       # the failure class (mismatch kind, exception and place)
    detail: str = ""     # expected vs got, or the message

    def signature(self, oracle: str) -> tuple:
        return oracle, self.status, self.kind


PASS = Outcome("pass")


def attempt(check: Callable[[], Outcome]) -> Outcome:
    """Run one oracle's check, turning exceptions into refusals and crashes. An
    InternalErrorWarning (a bug of fwdad's in forward over reverse, answered by forward
    over forward) is a crash too."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", fwdad.InternalErrorWarning)
            return check()
    except fwdad.InternalError as exc:
        return Outcome("crash", _crash_kind(exc), _message(exc))
    except fwdad.FwdadError as exc:
        return Outcome("refused", f"{type(exc).__name__}: {message_class(exc)}",
                       _message(exc))
    except Exception as exc:  # noqa: BLE001 (classifying every failure is the point)
        return Outcome("crash", _crash_kind(exc), _message(exc))


def _message(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:600]}"


def _crash_kind(exc: BaseException) -> str:
    """The exception type and the innermost fwdad function it passed through."""
    place = "outside fwdad"
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.startswith(FWDAD_DIR):
            place = f"{os.path.relpath(frame.filename, FWDAD_DIR)}:{frame.name}"
    return f"{type(exc).__name__} in {place}"


def message_class(exc: BaseException) -> str:
    """The first sentence of the message with names, numbers and places blanked out."""
    text = str(exc).split("\n")[0]
    text = re.split(r"(?<=[.:])\s", text)[0]
    text = re.sub(r"/\S+\.py(:\d+)?", "<file>", text)
    text = re.sub(r" in [\w.<>]+ at <file>", " in <function> at <file>", text)  # (user_code)
    text = re.sub(r"fuzz_\d+_\d+", "<module>", text)
    text = re.sub(r"'[^']*'|`[^`]*`", "<name>", text)
    text = re.sub(r"\b\d+(\.\d+)?\b", "<n>", text)
    return text[:120]
