#!/usr/bin/env python3
"""Draws the pictures of a finished kbrain output folder (`kbrain plot DIR`; `kbrain run` and `kbrain compare` call it
at the end): compare.json / compare_ranks.csv -> speedups, time per work, scaling; run.json with trace.csv /
spikes.csv -> traces, raster, population rate; reproduce.json -> the study's tables beside kbrain's. Writes DIR/plots/*.png, *.svg and plots.json (what each shows).
Exit 0: drawn (or nothing to draw); 2: not an output folder; 77: matplotlib not importable."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main(argv):
    if len(argv) != 2:
        print("usage: kbrain_plot.py OUTPUT_DIR", file=sys.stderr)
        return 2
    folder = argv[1]
    if not os.path.isdir(folder) or not any(
            os.path.exists(os.path.join(folder, f)) for f in ("run.json", "compare.json", "compare_ranks.csv", "reproduce.json")):
        print(f"{folder}: no run.json, compare.json, compare_ranks.csv or reproduce.json: not a kbrain output folder", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib is not importable by {sys.executable}", file=sys.stderr)
        return 77
    from plot_common import write_record
    from plot_compare import plot_compare
    from plot_reproduce import plot_reproduce
    from plot_run import plot_run
    out_dir = os.path.join(folder, "plots")
    record = []
    plot_compare(plt, folder, out_dir, record)
    plot_run(plt, folder, out_dir, record)
    plot_reproduce(plt, folder, out_dir, record)
    if record:
        write_record(out_dir, record)
    print(f"{len(record)} pictures in {out_dir}" if record else f"{folder}: nothing to draw")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
