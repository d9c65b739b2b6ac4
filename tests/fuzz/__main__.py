"""python -m tests.fuzz --count 20000 --seed S [--workers 2] [--show] [--shrink-seconds T]
    [--examples K]
    [--exclude with,lambdas] [--always scientific] [--higher] [--oracles hessian,hvp,...]

Runs the differential fuzzer over seeds S .. S+count-1 and prints the report of
campaign.py; with --show, prints each program and its per-oracle results instead.
With --higher, the higher-order oracles (hessian, third, repeat's hessian, hvp, revfwd,
revjvp, lingrad, jacswap) check every program they apply to, not their subset of the
seeds (tests/fuzz/subsets.py): for hunting bugs in the nested modes, at some 3 to 5
times the cost of a program. --always draws the constructs named (of those drawn from
their own stream, such as scientific or callbacks) in every program, not in one in four.
--oracles runs only the oracles named.
"""
from __future__ import annotations

import argparse
import textwrap

from tests.fuzz.campaign import campaign
from tests.fuzz.check import check, failure_class, report
from tests.fuzz.generate import FEATURES, OWN_STREAM_FEATURES
from tests.fuzz.oracles import ORACLES
from tests.fuzz.own_stream import set_always
from tests.fuzz.subsets import set_higher


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--count", type=int, default=100, help="number of programs")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument("--show", action="store_true",
                        help="print each program and its results")
    parser.add_argument("--shrink-seconds", type=float, default=60.0,
                        help="time to shrink each distinct failure (0: do not shrink)")
    parser.add_argument("--examples", type=int, default=1,
                        help="shrink this many seeds of each distinct failure")
    parser.add_argument("--exclude", default="",
                        help="comma-separated features to leave out (see generate.FEATURES, "
                             "and state)")
    parser.add_argument("--always", default="",
                        help="comma-separated constructs to draw in every program "
                             "(of OWN_STREAM_FEATURES, such as scientific)")
    parser.add_argument("--higher", action="store_true",
                        help="the higher-order oracles on every program (no subsets)")
    parser.add_argument("--oracles", default="",
                        help=f"comma-separated oracles to run (default all: {','.join(ORACLES)})")
    parser.add_argument("--xfail-table", action="store_true",
                        help="print the KNOWN table of test_fuzz.py for these seeds")
    args = parser.parse_args(argv)
    exclude = frozenset(f for f in args.exclude.split(",") if f)
    unknown = exclude - set(FEATURES + OWN_STREAM_FEATURES)
    if unknown:
        parser.error(f"unknown features {sorted(unknown)}; they are "
                     f"{FEATURES + OWN_STREAM_FEATURES}")
    oracles = tuple(o for o in args.oracles.split(",") if o) or None
    if oracles and set(oracles) - set(ORACLES):
        parser.error(f"unknown oracles {sorted(set(oracles) - set(ORACLES))}")
    always = frozenset(f for f in args.always.split(",") if f)
    if always - set(OWN_STREAM_FEATURES):
        parser.error(f"unknown constructs {sorted(always - set(OWN_STREAM_FEATURES))}; "
                     f"they are {OWN_STREAM_FEATURES}")
    set_higher(args.higher)
    set_always(always)
    if args.xfail_table:
        print(xfail_table(range(args.seed, args.seed + args.count)))
        return
    if args.show:
        for seed in range(args.seed, args.seed + args.count):
            print(report(check(seed, oracles, exclude=exclude)))
        return
    print(campaign(args.seed, args.count, args.workers, args.shrink_seconds,
                   args.examples, exclude, oracles=oracles), flush=True)


def xfail_table(seeds) -> str:
    """KNOWN = {failure class: [seeds]} for the seeds that fail now, as test_fuzz.py
    holds it."""
    known: dict = {}
    for seed in seeds:
        reason = failure_class(check(seed))
        if reason:
            known.setdefault(reason, []).append(seed)
    rows = []
    for reason, listed in known.items():
        parts = reason.split("; ")
        key = repr(reason) if len(reason) < 90 else "(" + "\n     ".join(
            repr(p + "; " * (i < len(parts) - 1)) for i, p in enumerate(parts)) + ")"
        numbers = textwrap.fill(", ".join(map(str, listed)), 99, initial_indent=" " * 9,
                                subsequent_indent=" " * 9).strip()
        rows.append(f"    {key}:\n        [{numbers}],\n")
    return "# failure class (oracle status: kind; ...) -> seeds\nKNOWN = {\n" + "".join(rows) + "}"


if __name__ == "__main__":
    main()
