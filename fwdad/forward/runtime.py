"""The helpers generated code calls besides rules: they live in fwdad/core/duals.py.

Note: a re-export, kept while forward/transform.py and the optimizer's modules still
import them from here.
"""
from fwdad.core.duals import (NONE, PrimalStream, TangentStream, const, fresh, iterate,
                              pack, pack_kw, stream, unbox, unbox_kw, unpack)

__all__ = ["NONE", "PrimalStream", "TangentStream", "const", "fresh", "iterate", "pack",
           "pack_kw", "stream", "unbox", "unbox_kw", "unpack"]
