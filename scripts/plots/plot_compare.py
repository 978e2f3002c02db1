"""Pictures of a `kbrain compare` folder (compare.json): speedup bars per size and backend (x serial, x OpenMP) and
the time per unit of work against size (log-log, one line per backend and precision); with --ranks
(compare_ranks.csv) strong or weak scaling beside the ideal line."""
import csv
import json
import math
import os

from plot_common import footer, plain_log_ticks, save


def _series(rows, key):
    """{(backend, precision): [(size_label, value), ...]} over the rows that have a finite value."""
    out = {}
    for r in rows:
        v = r.get(key)
        if isinstance(v, (int, float)) and math.isfinite(v):
            out.setdefault((r["backend"], r["precision"]), []).append((r["size_label"], float(v)))
    return out


def _hardware(table):
    return [f"{h['backend']}: {h['description']}" for h in table.get("hardware", [])] + [
        f"kbrain {table.get('commit', '')}, {table.get('date', '')}"]


def speedup_bars(plt, table, out_dir, record):
    rows = table["rows"]
    sizes = list(dict.fromkeys(r["size_label"] for r in rows))
    for key, label, name, base in (("speedup_vs_serial", "× Serial", "speedup_vs_serial", "serial"),
                                   ("speedup_vs_openmp", "× OpenMP", "speedup_vs_openmp", "openmp")):
        series = {k: v for k, v in _series(rows, key).items() if k[0] != base}  # a backend against itself is 1
        if not series:
            continue
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(sizes) * max(1, len(series)) / 2), 4))
        width = 0.8 / len(series)
        for k, ((backend, precision), points) in enumerate(sorted(series.items())):
            at = {s: v for s, v in points}
            xs = [i + (k - (len(series) - 1) / 2) * width for i, s in enumerate(sizes) if s in at]
            bars = ax.bar(xs, [at[s] for s in sizes if s in at], width, label=f"{backend} {precision}")
            ax.bar_label(bars, fmt="%.3g", fontsize=7)
        ax.set_xticks(range(len(sizes)))
        ax.set_xticklabels(sizes, rotation=30, ha="right")
        ax.set_xlabel("network size")
        ax.set_ylabel(f"speedup ({label}, same precision)")
        values = [v for pts in series.values() for _, v in pts]
        if max(values) / max(min(values), 1e-300) > 20:  # wide ranges on a log axis, else linear from 0
            ax.set_yscale("log")
            plain_log_ticks(ax, "y")
        ax.axhline(1.0, color="grey", lw=0.8)
        title = f"{table['experiment']} ({table['model']}): speedup {label}"
        ax.set_title(title)
        ax.legend(fontsize=8)
        footer(fig, _hardware(table))
        save(fig, out_dir, name, record, "speedup", title,
             {f"{b}/{p}": dict(pts) for (b, p), pts in series.items()})
        plt.close(fig)


def time_per_work(plt, table, out_dir, record):
    rows = table["rows"]
    cells_key = table["columns"][0]["key"] if table.get("columns") else "cells"
    series = {}
    for r in rows:
        v, n = r.get("ns_per_cell_step"), r.get(cells_key)
        if isinstance(v, (int, float)) and isinstance(n, (int, float)) and v > 0 and n > 0:
            series.setdefault(f"{r['backend']}/{r['precision']}", []).append((float(n), float(v)))
    if not series:
        return
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for label, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_ticks(ax)
    ax.set_xlabel(f"{cells_key}")
    ax.set_ylabel(f"ns per {cells_key[:-1] if cells_key.endswith('s') else cells_key}-step (simulate)")
    title = f"{table['experiment']} ({table['model']}): time per unit of work"
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", lw=0.3)
    footer(fig, _hardware(table))
    save(fig, out_dir, "time_per_work", record, "time_per_work", title, {k: v for k, v in series.items()})
    plt.close(fig)


def rank_scaling(plt, folder, out_dir, record):
    path = os.path.join(folder, "compare_ranks.csv")
    if not os.path.exists(path):
        return
    with open(path) as f:
        rows = list(csv.DictReader(f))
    about_path = os.path.join(folder, "compare_ranks.json")
    about = json.load(open(about_path)) if os.path.exists(about_path) else {}
    weak = about.get("scaling") == "weak"
    groups = {}
    for r in rows:
        groups.setdefault((r["size"], r["density"]), []).append((int(r["ranks"]), float(r["simulate_s"])))
    fig, ax = plt.subplots(figsize=(6, 4.5))
    data = {}
    for (size, density), pts in sorted(groups.items()):
        pts.sort()
        k1, t1 = pts[0]
        label = (f"{size} cells{' per rank' if weak else ''}" if int(size) > 0 else "the file's size") + (
            f", density {density}" if float(density) > 0 else "")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        ideal = [t1 if weak else t1 * k1 / p[0] for p in pts]
        ax.plot([p[0] for p in pts], ideal, ls="--", color="grey", lw=0.8)
        data[label] = pts
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(sorted({p[0] for pts in groups.values() for p in pts}))
    plain_log_ticks(ax)
    ax.set_xlabel("MPI ranks")
    ax.set_ylabel(f"simulate s (dashed: ideal {'weak' if weak else 'strong'} scaling)")
    title = f"{about.get('experiment', 'kbrain')}: {'weak' if weak else 'strong'} scaling over MPI ranks"
    ax.set_title(title)
    ax.legend(fontsize=8)
    if about:
        footer(fig, [f"{about['backend']} {about['precision']}: {about['hardware']}",
                     f"kbrain {about.get('commit', '')}, {about.get('date', '')}"])
    save(fig, out_dir, "rank_scaling", record, "rank_scaling", title, data)
    plt.close(fig)


def plot_compare(plt, folder, out_dir, record):
    path = os.path.join(folder, "compare.json")
    if os.path.exists(path):
        with open(path) as f:
            table = json.load(f)
        speedup_bars(plt, table, out_dir, record)
        time_per_work(plt, table, out_dir, record)
    rank_scaling(plt, folder, out_dir, record)
