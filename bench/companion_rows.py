"""The rows of bench/run.py for the workloads of the other issues: the Jacobian of a
PDE residual (jacfwd), linearize on a transcendental chain, reverse mode (varmat
against matvar, the GMM gradient), second derivatives (hvp against grad, hessian
against the peers), differentiating through solve_ivp and sparse Jacobians by colouring.
The measurements are bench/jacobian.py's, bench/reverse.py's, bench/higher_order.py's,
bench/ode.py's and bench/sparse.py's own; this module only puts them in the one table."""
from __future__ import annotations

from typing import List

from bench import higher_order, jacobian, reverse, sparse
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
    for name, times in (("linearize, transcendental chain on 2x10^5 floats",
                         jacobian.linearize_ratio(max(3, repeats // 3))),
                        ("linearize, tanh MLP 256x64-64-10, d/dW1",
                         jacobian.linearize_mlp_times(repeats))):
        share, back = times["lin(t)"] / times["jvp"], times["lin.T(ct)"] / times["lin(t)"]
        rows += [Row(name, "primal", _seconds(times["primal"])),
                 Row(name, "fwdad.jvp", _seconds(times["jvp"]),
                     f"{times['jvp'] / times['primal']:.2f}x"),
                 Row(name, "lin(t)", _seconds(times["lin(t)"]), f"{share:.2f}x of jvp",
                     _verdict(share, 0.7)),
                 Row(name, "lin.T(ct)", _seconds(times["lin.T(ct)"]),
                     f"{back:.2f}x of lin(t)", _verdict(back, 3))]
    return rows


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
                        f"{_verdict(ratio, 3.5)}; data as an argument: {_verdict(ratio, 2.7)}"
                        if entry == "fwdad" else ""))
    return rows


def higher_order_rows(repeats: int, n: int = higher_order.HVP_N) -> List[Row]:
    peers = higher_order.installed_peers()
    times = higher_order.hvp_times(n, repeats, peers)
    name = f"hvp / grad, chained Rosenbrock n={n:,}"
    rows = [Row(name, "primal", _seconds(times["primal"]))]
    for library, grad, hvp in (("fwdad", "fwdad.grad", "fwdad.hvp"),
                               ("jax (eager)", "jax.grad (eager)", "jax.jvp of jax.grad"),
                               ("torch.func", "torch.func.grad", "torch.func.jvp of grad")):
        if f"{library} hvp" not in times:
            rows += [Row(name, grad, "absent"), Row(name, hvp, "absent")]
            continue
        ratio = times[f"{library} hvp"] / times[f"{library} grad"]
        target = _verdict(ratio, 5) + " (at n=10^5)" if library == "fwdad" else ""
        rows += [Row(name, grad, _seconds(times[f"{library} grad"])),
                 Row(name, hvp, _seconds(times[f"{library} hvp"]), f"{ratio:.1f}x grad",
                     target)]
    times = higher_order.hessian_times(higher_order.HESSIAN_N, repeats, peers)
    name = f"hessian, chained Rosenbrock n={higher_order.HESSIAN_N}"
    rows.append(Row(name, "primal", _seconds(times["primal"])))
    for library, entry in (("fwdad", "fwdad.hessian"), ("jax (eager)", "jax.hessian (eager)"),
                           ("torch.func", "torch.func.hessian")):
        t = times.get(library)
        rows.append(Row(name, entry, _seconds(t) if t else "absent",
                        f"{t / times['primal']:.0f}x" if t else ""))
    return rows


def ode_rows(repeats: int) -> List[Row]:
    """solve_ivp: the sensitivity solve against the plain solve, for 1 and for n tangent
    directions, and per right-hand side call (target: about 1 + directions; the step
    count ratio, the error control's, beside it). SciPy missing: none."""
    try:
        from bench import ode
    except ImportError:
        return []
    rows, calls = [], ode.right_hand_side_calls()
    for workload, name, times in (
            ("Lotka-Volterra", "solve_ivp, Lotka-Volterra (2 states), DOP853",
             ode.lotka_volterra_times(repeats)),
            ("reaction-diffusion", f"solve_ivp, reaction-diffusion ({ode.N_CELLS} states), "
             "RK45", ode.line_times(repeats))):
        rows.append(Row(name, "primal", _seconds(times["primal"])))
        rows += [Row(name, entry, _seconds(t), f"{t / times['primal']:.1f}x")
                 for entry, t in times.items() if entry != "primal"]
        for entry, (plain, augmented) in calls[workload].items():
            ratio = ode.per_call(times, entry, (plain, augmented))
            rows.append(Row(name, f"{entry}: sensitivity solve per right-hand side call "
                                  f"({augmented} calls, {augmented / plain:.2f}x the plain "
                                  f"solve's {plain})", "", f"{ratio:.2f}x",
                            _verdict(ratio, 1 + ode.DIRECTIONS[entry])))
    return rows


def sparse_rows(repeats: int) -> List[Row]:
    rows = []
    for label, f, x, pattern, target in sparse.workloads():
        times = sparse.workload_times(f, x, pattern, repeats)
        name, base = f"sparse_jacfwd, {label} ({times['ncolors']} colours)", times["primal"]
        rows.append(Row(name, "primal", _seconds(base)))
        for entry in ("sparse_jacfwd", "sparse_jacfwd, probe=False",
                      "hand-written batched NumPy, one pass of the colours", sparse.FLOOR,
                      "fwdad.jvp per colour (no batch axis)", "central differences, coloured"):
            ratio = times[entry] / base
            rows.append(Row(name, entry, _seconds(times[entry]), f"{ratio:.1f}x",
                            _verdict(ratio, target) if entry == "sparse_jacfwd" else ""))
        rows.append(Row(name, "colouring (once, largest first)", _seconds(times["coloring"])))
    dense = sparse.dense_times(repeats)
    name = f"jacfwd (dense), 1-D reaction-diffusion, n={sparse.N_DENSE:,}"
    return rows + [Row(name, "primal", _seconds(dense["primal"])),
                   Row(name, "fwdad.jacfwd", _seconds(dense["jacfwd"]),
                       f"{dense['jacfwd'] / dense['primal']:.1f}x")]
