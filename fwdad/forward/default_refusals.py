"""Why fwdad refuses a mutable default or a written global array in the middle of a
derivative (forward/defaults.FreshDefault, whose `what` and `value` the messages
name), and whether a rule runs now, below the caller."""
from __future__ import annotations

import sys
from typing import Any

from fwdad.errors import FwdadError, a_type, in_user_code


def changed_outside(kept: Any) -> FwdadError:
    line = in_user_code()
    return FwdadError(
        f"{kept.what} ({a_type(kept.value)}) was changed outside its function "
        f"between two calls of one derivative{line}: the "
        f"derivatives it holds no longer match its items. Pass the list, dict or array "
        f"as an argument instead.")


def an_argument_too(kept: Any) -> FwdadError:
    line = in_user_code()
    return FwdadError(
        f"{kept.what} ({a_type(kept.value)}) is also given as an argument (or a view of "
        f"it is) of the function differentiated{line}: the argument and the "
        f"variable would carry two derivatives of one object, and a write through one "
        f"would not reach the other. Pass a copy as the argument (`x.copy()`), or "
        f"read the object through the variable alone.")


def met_late(kept: Any) -> FwdadError:
    line = in_user_code()
    return FwdadError(
        f"fwdad met {kept.what} ({a_type(kept.value)}) only in the middle of "
        f"a derivative{line}, after it had "
        f"built a rule that reads the same object through a global or closure variable "
        f"and takes it for a constant; that rule may be running now, and this "
        f"derivative would be wrong. fwdad has dropped its rules and knows the object "
        f"now: the next call is right. To avoid this, call the function that owns the "
        f"default or writes the array by its name (fwdad then finds it when it builds "
        f"the rules), or pass the list, dict or array as an argument.")


def rule_running() -> bool:
    """Whether generated code (a rule) runs now in this thread, below the caller: a
    rule built at the start of a derivative, before any rule ran (the first jvp of a
    function that reaches the object), leaves none running that took it for a
    constant (compile.py names the code of every rule `<fwdad ...>`)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<fwdad "):
            return True
        frame = frame.f_back
    return False
