"""A differential fuzzer for fwdad: random programs, several independent oracles.

    generate.py     seeded random programs (exprs.py, statements.py, constructs.py;
                    flow.py: loop exits and calls between helpers; numerics.py: array
                    idioms, masks, scans, solves, scipy.special; state.py: helpers
                    that keep state between calls, in a third of the programs)
    reference.py    the plain run and central differences, or why the program is discarded
    case.py         one loaded program and the jvp the oracles share
    oracles.py      the oracles a-c and the table of all; more_oracles.py d-g;
                    third_order.py h; constants_oracle.py i; repeat_oracle.py j;
                    jacobian_oracles.py k-m; outcome.py their verdicts
    check.py        every oracle on one seed; shrink.py minimal failing programs
    campaign.py     many seeds in worker processes, the summary tables
    test_fuzz.py    the CI budget (a fixed seed range, known failures as strict xfails)

    python -m tests.fuzz --count 20000 --seed 0 --workers 2   # the long campaign
    python -m tests.fuzz --seed 7 --count 1 --show            # one program, its results
"""
