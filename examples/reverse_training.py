"""A training loop on a reverse schedule: fit a small MLP by gradient descent.

`loss` is a two-layer tanh MLP with a softmax cross-entropy, written in plain NumPy.
Under @fwdad.static_graph, the first `fwdad.grad` records the forward primitive calls
and the backward steps the tape would run as one flat schedule; each later step of the
loop replays it (no Var objects, no tape, no dispatch) behind guards on the shapes,
branches and globals. The same loss without the decorator runs the full reverse rule
every step. Both gradients are the same, bit for bit, and central finite differences
check one entry.

Run: python examples/reverse_training.py [--quick]   (a loss plot when matplotlib is
installed: reverse_training_loss.png)
"""
import sys
import time

import numpy as np

import fwdad


def loss(params, x, labels):
    """Mean softmax cross-entropy of a 2-layer tanh MLP on the rows of x."""
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -(log_p * labels).sum() / x.shape[0]


scheduled_loss = fwdad.static_graph(loss)


def blobs(n, rng):
    """Three Gaussian blobs in the plane, one-hot labels."""
    centers = np.array([[0.0, 1.5], [-1.3, -0.8], [1.3, -0.8]])
    k = rng.integers(0, 3, n)
    return centers[k] + 0.6 * rng.standard_normal((n, 2)), np.eye(3)[k]


def initial(rng, hidden=16):
    return [0.5 * rng.standard_normal((2, hidden)), np.zeros(hidden),
            0.5 * rng.standard_normal((hidden, 3)), np.zeros(3)]


def descend(grad, params, x, labels, steps, rate=0.5):
    """Plain gradient descent; returns the losses and the seconds per step."""
    losses, start = [], time.perf_counter()
    for _ in range(steps):
        value, g = grad(params, x, labels)
        params = [p - rate * d for p, d in zip(params, g)]
        losses.append(value)
    return losses, (time.perf_counter() - start) / steps, params


def main(quick=False):
    steps, compared = (60, 10) if quick else (1000, 50)
    rng = np.random.default_rng(0)
    x, labels = blobs(200, rng)
    params = initial(rng)

    full = fwdad.value_and_grad(loss)
    replayed = fwdad.value_and_grad(scheduled_loss)
    want, got = full(params, x, labels)[1], replayed(params, x, labels)[1]
    assert all(np.array_equal(a, b) for a, b in zip(want, got))
    step = 1e-6
    nudged = [p.copy() for p in params]
    nudged[0][0, 0] += step
    low = [p.copy() for p in params]
    low[0][0, 0] -= step
    fd = (loss(nudged, x, labels) - loss(low, x, labels)) / (2 * step)
    assert abs(fd - got[0][0, 0]) < 1e-6 * max(1.0, abs(fd))

    _, per_full, _ = descend(full, params, x, labels, compared)
    losses, per_replay, trained = descend(replayed, params, x, labels, steps)
    graph = scheduled_loss.static_graph.reverse
    assert graph.counts["fallbacks"] == 0 and graph.counts["full"] == 0, graph.reasons
    accuracy = np.mean(np.argmax(np.tanh(x @ trained[0] + trained[1]) @ trained[2]
                                 + trained[3], axis=1) == np.argmax(labels, axis=1))
    print(f"{steps} steps: loss {losses[0]:.3f} -> {losses[-1]:.3f}, "
          f"training accuracy {accuracy:.0%}")
    print(f"time per step: replayed schedule {per_replay * 1e3:.2f} ms, full reverse "
          f"rule {per_full * 1e3:.2f} ms ({per_full / per_replay:.1f}x)")
    print(f"schedule: {graph.counts['records']} recorded, {graph.counts['replays']} "
          f"replays; the first lines:")
    print("\n".join(graph.source().splitlines()[:8]))
    print("replayed schedule matches the full reverse rule and finite differences")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    plt.plot(losses)
    plt.xlabel("step")
    plt.ylabel("cross-entropy")
    plt.savefig("reverse_training_loss.png", dpi=80)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
