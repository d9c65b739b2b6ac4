"""Which programs the costly higher-order oracles check.

By default each checks a fixed subset of the seeds (a residue of seed % its modulus),
so that a campaign and the suite's fuzz tests keep their cost. `python -m tests.fuzz
--higher` turns the subsets off (every program the oracle applies to), for hunting
bugs in the nested modes; worker processes are forked, so they see the switch.
"""
from __future__ import annotations

HIGHER = False


def set_higher(on: bool) -> None:
    global HIGHER
    HIGHER = on


def in_subset(seed: int, modulus: int, residue: int = 0) -> bool:
    """Whether the program of `seed` is in the subset seed % modulus == residue (every
    program with --higher)."""
    return HIGHER or seed % modulus == residue
