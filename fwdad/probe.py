"""Read an attribute fwdad looks for on a user's object (`__func__`, `__self__`, ...)
so that a name the object does not have is missing whatever its `__getattr__` raises.

Python calls `__getattr__` only for a name ordinary lookup did not find. A class that
serves its fields from a dict and raises KeyError there (rather than AttributeError)
would otherwise let that KeyError escape from fwdad's own checks of the object.

    probe(config, "__func__")   ->  None  (config.__getattr__ raised KeyError)
    shallow_copy(config)        ->  a new instance with config's fields (copy.copy
                                    asked config for __setstate__, and it raised)
"""
from __future__ import annotations

import copy
from typing import Any


def probe(obj: Any, name: str, default: Any = None) -> Any:
    """getattr(obj, name, default), with any error of a user's `__getattr__` read as
    "no such attribute"."""
    try:
        return getattr(obj, name, default)
    except Exception:  # noqa: BLE001 (whatever __getattr__ raises: the name is missing)
        return default


def shallow_copy(obj: Any) -> Any:
    """copy.copy(obj); for an instance of a plain class whose `__getattr__` breaks
    copy's own look-up of `__setstate__`, the copy copy.copy makes of such a class:
    a new instance holding the same fields."""
    try:
        return copy.copy(obj)
    except Exception:  # noqa: BLE001 (re-raised unless the copy can be made by hand)
        cls = type(obj)
        if cls.__new__ is not object.__new__ or cls.__reduce_ex__ is not \
                object.__reduce_ex__ or not hasattr(obj, "__dict__"):
            raise
        out = object.__new__(cls)
        out.__dict__.update(obj.__dict__)
        return out
