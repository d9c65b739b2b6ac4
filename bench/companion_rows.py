"""The rows of bench/run.py for the workloads of the other issues: the Jacobian of a
PDE residual (jacfwd), linearize on a transcendental chain, and reverse mode (varmat
against matvar, the GMM gradient). The measurements are bench/jacobian.py's and
bench/reverse.py's own; this module only puts them in the one table."""
from __future__ import annotations

from typing import List

from bench import jacobian, reverse
from bench.report import Row


def _seconds(t: float) -> str:
    return f"{t * 1e3:.3g} ms" if t >= 1e-3 else f"{t * 1e6:.3g} us"


def _verdict(value: float, limit: float, at_most: bool = True) -> str:
    ok = value <= limit if at_most else value >= limit
    return f"{'<=' if at_most else '>='} {limit:g}: {'met' if ok else 'MISSED'}"


def jacobian_rows(repeats: int) -> List[Row]:
    ratios, primal = jacobian.jacobian_ratios(repeats)
    name = "jacfwd, PDE residual R^100 -> R^100"
    rows = [Row(name, "primal", _seconds(primal))]
    for entry, ratio in ratios.items():
        if entry != "primal":
            rows.append(Row(name, entry, _seconds(ratio * primal), f"{ratio:.1f}x",
                            _verdict(ratio, 10) if entry == "fwdad.jacfwd" else ""))
    times = jacobian.linearize_ratio(max(3, repeats // 3))
    name = "linearize, transcendental chain on 10^6 floats"
    share = times["lin(t)"] / times["jvp"]
    return rows + [Row(name, "primal", _seconds(times["primal"])),
                   Row(name, "fwdad.jvp", _seconds(times["jvp"]),
                       f"{times['jvp'] / times['primal']:.2f}x"),
                   Row(name, "lin(t)", _seconds(times["lin(t)"]), f"{share:.2f}x of jvp",
                       _verdict(share, 0.7))]


def reverse_rows(repeats: int, with_peers: bool, size: int = 200) -> List[Row]:
    chain = reverse.chain_times(max(2, repeats // 3), size)
    name = f"reverse, chain of 3 products {size}x{size}"
    speedup = chain["matvar"] / chain["varmat"]
    rows = [Row(name, "grad, varmat", _seconds(chain["varmat"]),
                f"{speedup:.1f}x faster than matvar", _verdict(speedup, 10, at_most=False)),
            Row(name, "grad, matvar", _seconds(chain["matvar"]))]
    gmm = reverse.gmm_times(4 * repeats, with_peers)  # as bench/reverse.py takes it
    name = "reverse, GMM d=10 k=25 n=1000"
    rows.append(Row(name, "primal", _seconds(gmm["primal"])))
    for entry in [e for e in gmm if e != "primal"]:
        ratio = gmm[entry] / gmm["primal"]
        rows.append(Row(name, "fwdad.grad" if entry == "fwdad" else f"{entry} gradient",
                        _seconds(gmm[entry]), f"{ratio:.2f}x",
                        _verdict(ratio, 3.5) if entry == "fwdad" else ""))
    return rows
