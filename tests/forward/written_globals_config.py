"""A module whose array a function of its own writes into, read by the tests in
test_written_globals.py through the module (`config.BUF`, `config.write(w)`)."""
import numpy as np

BUF = np.zeros(3)


def write(w):
    BUF[...] = w * w
