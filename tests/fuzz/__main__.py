"""python -m tests.fuzz --count 20000 --seed S [--workers 2] [--show] [--shrink-seconds T]
    [--examples K]

Runs the differential fuzzer over seeds S .. S+count-1 and prints the report of
campaign.py; with --show, prints each program and its per-oracle results instead.
"""
from __future__ import annotations

import argparse

from tests.fuzz.campaign import campaign
from tests.fuzz.check import check, report


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
    args = parser.parse_args(argv)
    if args.show:
        for seed in range(args.seed, args.seed + args.count):
            print(report(check(seed)))
        return
    print(campaign(args.seed, args.count, args.workers, args.shrink_seconds,
                   args.examples), flush=True)


if __name__ == "__main__":
    main()
