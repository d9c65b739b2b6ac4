"""The function docs/how-it-works.md follows through fwdad (see gen_how_it_works.py)."""
import math

import numpy as np


def soften(t):
    return 1.0 + math.log(t)


def weighted_energy(x, k):
    weights = np.ones(len(x))
    for i in range(1, len(x)):
        weights[i] = weights[i - 1] * k      # an in-place update
    total = (weights * x * x).sum()          # a method call
    if total > 1.0:                          # a branch on a value
        total = soften(total)                # a call of a Python function
    return total
