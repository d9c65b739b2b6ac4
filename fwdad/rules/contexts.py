"""Context managers from C or libraries that hold no values: made by a rule that gives
a constant (their `__enter__` and `__exit__` then run on plain values, see
forward/contexts.py); and the warnings functions used inside them."""
from __future__ import annotations

import io
import threading
import warnings

import numpy as np

from fwdad.rules.registry import def_nondiff

def_nondiff(np.errstate, np.printoptions, threading.Lock, threading.RLock,
            threading.Semaphore, threading.BoundedSemaphore, io.StringIO, io.BytesIO)

# What code inside `with warnings.catch_warnings():` calls: they change no value.
def_nondiff(warnings.warn, warnings.simplefilter, warnings.filterwarnings,
            warnings.resetwarnings)
