"""Pictures of a `kbrain run` folder: the recorded traces (first variable, up to 8 cells), a spike raster (the last
W steps, up to H cells) and the population rate."""
import csv
import json
import os

from plot_common import footer, save

RASTER_STEPS = 1000  # W
RASTER_CELLS = 500   # H
MAX_TRACES = 8


def _manifest(folder):
    with open(os.path.join(folder, "run.json")) as f:
        return json.load(f)


def _hardware(m):
    return [f"{m.get('backend', '')} {m.get('precision', '')}: {m.get('hardware', '')}",
            f"kbrain {m.get('commit', '')}, {m.get('date', '')}"]


def traces(plt, folder, m, out_dir, record):
    path = os.path.join(folder, "trace.csv")
    if not os.path.exists(path):
        return
    with open(path) as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = [list(map(float, r)) for r in reader if r]
    if not rows or len(header) < 3:
        return
    var = header[2].rsplit("_", 1)[0]
    columns = [k for k, h in enumerate(header) if k >= 2 and h.rsplit("_", 1)[0] == var][:MAX_TRACES]
    unit = m.get(f"unit_{var}", "")
    fig, ax = plt.subplots(figsize=(7, 4))
    data = {}
    for k in columns:
        ax.plot([r[1] for r in rows], [r[k] for r in rows], lw=0.8, label=f"cell {header[k].rsplit('_', 1)[1]}")
        data[header[k]] = [rows[0][k], rows[-1][k], len(rows)]
    ax.set_xlabel("time (ms)")
    ax.set_ylabel(f"{var} ({unit})" if unit else var)
    title = f"{m.get('experiment', '')} ({m.get('model', '')}): {var}"
    ax.set_title(title)
    if len(columns) > 1:
        ax.legend(fontsize=7, ncol=2)
    footer(fig, _hardware(m))
    save(fig, out_dir, "traces", record, "traces", title, data)
    plt.close(fig)


def _spikes(folder):
    path = os.path.join(folder, "spikes.csv")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        reader = csv.reader(f)
        next(reader, None)
        return [(int(r[0]), int(r[1])) for r in reader if r]


def raster_and_rate(plt, folder, m, out_dir, record):
    spikes = _spikes(folder)
    if spikes is None:
        return
    dt = float(m.get("dt_ms", 1.0))
    steps = int(m.get("steps", 0)) or (max((s for s, _ in spikes), default=0))
    first = max(0, steps - RASTER_STEPS)
    shown = [(s, c) for s, c in spikes if s > first and c < RASTER_CELLS]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.scatter([s * dt for s, _ in shown], [c for _, c in shown], s=1.5, marker="|", color="k")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel(f"cell (first {RASTER_CELLS})")
    title = f"{m.get('experiment', '')}: spikes, last {min(steps, RASTER_STEPS)} steps"
    ax.set_title(title)
    footer(fig, _hardware(m))
    save(fig, out_dir, "raster", record, "raster", title, {"spikes_shown": len(shown), "first_step": first})
    plt.close(fig)

    cells = int(m.get("neurons", m.get("cells", 0))) or 1
    bin_steps = max(1, int(round(10.0 / dt)))  # 10 ms bins
    bins = [0] * max(1, -(-steps // bin_steps))  # the run's steps in whole bins (the last one may be shorter)
    for s, _ in spikes:  # a spike's step counts updates done: step s fell in update s - 1
        bins[min(len(bins) - 1, max(0, s - 1) // bin_steps)] += 1
    widths = [min(bin_steps, steps - k * bin_steps) if steps else bin_steps for k in range(len(bins))]
    rates = [b / cells / (w * dt / 1000.0) for b, w in zip(bins, widths)]
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.step([k * bin_steps * dt for k in range(len(rates))], rates, where="post", lw=1)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("population rate (Hz per cell)")
    title = f"{m.get('experiment', '')}: population rate, {bin_steps * dt:g} ms bins"
    ax.set_title(title)
    footer(fig, _hardware(m))
    save(fig, out_dir, "population_rate", record, "population_rate", title,
         {"spikes": len(spikes), "cells": cells, "mean_rate_hz": sum(rates) / len(rates) if rates else 0.0})
    plt.close(fig)


def plot_run(plt, folder, out_dir, record):
    if not os.path.exists(os.path.join(folder, "run.json")):
        return
    m = _manifest(folder)
    traces(plt, folder, m, out_dir, record)
    raster_and_rate(plt, folder, m, out_dir, record)
    if m.get("model") == "galbraith_decoder":
        from plot_decoder import plot_decoder
        plot_decoder(plt, folder, m, out_dir, record)
