#!/usr/bin/env python3
"""Predicted-vs-measured plots for strata-retrain: one PNG per GPU, the
learned model and the pure analytic model side by side, log-log, one colour
per app, with the y = x line a perfect model would lie on.

usage: plot_predictions.py PREDICTIONS.jsonl PREFIX   → PREFIX.<gpu>.png
(PREDICTIONS.jsonl is what strata-retrain writes beside the weights.)
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display on build machines or GPU hosts
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    by_gpu = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                by_gpu.setdefault(row["gpu"], []).append(row)
            except (ValueError, KeyError) as e:
                sys.exit(f"{path}:{number}: not a prediction record ({e})")
    return by_gpu


def plot(gpu, rows, out):
    apps = sorted({r["app"] for r in rows})
    colours = plt.get_cmap("tab20" if len(apps) > 10 else "tab10")
    held_out = all(r["held_out"] for r in rows)
    measured = [r["measured_s"] * 1e3 for r in rows]
    lo, hi = min(measured), max(measured)
    for key in ("learned_s", "analytic_s"):
        values = [r[key] * 1e3 for r in rows]
        lo, hi = min(lo, min(values)), max(hi, max(values))
    lo, hi = lo / 1.5, hi * 1.5

    fig, axes = plt.subplots(1, 2, figsize=(12, 5.6), sharex=True, sharey=True)
    for ax, key, title in ((axes[0], "learned_s", "learned" + (" (held-out apps)" if held_out else " (in-sample)")),
                           (axes[1], "analytic_s", "analytic")):
        for i, app in enumerate(apps):
            mine = [r for r in rows if r["app"] == app]
            ax.scatter([r["measured_s"] * 1e3 for r in mine], [r[key] * 1e3 for r in mine],
                       s=18, color=colours(i % colours.N), label=app, alpha=0.85, edgecolors="none")
        ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8, linestyle="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel("measured (ms)")
        ax.set_title(title)
        ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
    axes[0].set_ylabel("predicted (ms)")
    fig.suptitle(f"Strata cost model on {gpu}: {len(rows)} schedules of {len(apps)} apps")
    if len(apps) <= 40:  # beyond that a legend is noise: the colours still separate the apps
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="center right", fontsize=7, frameon=False, ncol=1 if len(apps) <= 20 else 2)
        fig.tight_layout(rect=(0, 0, 0.80 if len(apps) > 20 else 0.87, 0.95))
    else:
        fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    for gpu, rows in sorted(read(sys.argv[1]).items()):
        out = f"{sys.argv[2]}.{gpu}.png"
        plot(gpu, rows, out)
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
