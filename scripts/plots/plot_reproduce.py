"""Pictures of a `kbrain reproduce` folder (reproduce.json): per table of the study, the study's numbers beside
kbrain's. Tables with rows per size: the value against size (log-log), the study's columns dashed with hollow markers,
kbrain's solid, one panel per density. Tables of one row (the study quotes a maximum): bars, the study's and kbrain's."""
import json
import math
import os
import textwrap

from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

from plot_common import footer, plain_log_ticks, save


def _cells_text(v, _=None):
    """Cell counts as the studies write them: 65.5k, 1.05M, 1.01G."""
    if v >= 1e9:
        return f"{v / 1e9:.3g}G"
    if v >= 1e6:
        return f"{v / 1e6:.3g}M"
    if v >= 1e3:
        return f"{v / 1e3:.3g}k"
    return f"{v:g}"


def _labelled_log_y(ax):
    """A log y axis labelled at 1, 2 and 5 of each decade where it spans up to three decades (so that a short span
    has numbers), at each decade beyond."""
    lo, hi = ax.get_ylim()
    subs = (1.0, 2.0, 5.0) if lo > 0 and hi / lo <= 1000 else (1.0,)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _value_text(v):
    """A bar's value: three digits, without an exponent below a million (1003, not 1e+03)."""
    return f"{v:.0f}" if 1000 <= abs(v) < 1e6 else f"{v:.3g}"


def _size_ticks(panel, sizes):
    """A tick at each size where there are few of them or they lie within one decade (a log axis would label only
    the decades between them, or its minor ticks, run into one another); many sizes over wider spans keep the plain
    log ticks."""
    distinct = sorted(set(sizes))
    if distinct and (len(distinct) <= 6 or max(distinct) / min(distinct) < 10):
        panel.xaxis.set_major_locator(FixedLocator(distinct))
        panel.xaxis.set_minor_formatter(NullFormatter())


def _finite(v):
    return isinstance(v, (int, float)) and math.isfinite(v)


def _footer_lines(report, width=110):
    """The study's source and hardware, kbrain's backends, commit and scale; wrapped so the figure keeps its width."""
    lines = [f"study: {report['reference']}; its hardware: {report['published_hardware']}"]
    lines += [f"kbrain {h['backend']}: {h['description']}" for h in report.get("hardware", [])
              if not h["backend"].startswith("energy on ")]
    lines.append(f"kbrain {report.get('commit', '')}, {report.get('date', '')}, scale {report.get('scale', '')}")
    return [part for line in lines for part in textwrap.wrap(line, width)]


def _title(report, table):
    return "\n".join(textwrap.wrap(report["title"], 90) + textwrap.wrap(table["title"], 90))


def _size_table(plt, report, table, out_dir, record):
    header = table["published"]["header"]
    size_col = header.index(table["size_key"])
    density_col = header.index(table["density_key"]) if table["density_key"] else None
    densities = sorted({r["density"] for r in table["kbrain"]} |
                       ({row[density_col] for row in table["published"]["rows"]} if density_col is not None else set()))
    if density_col is None:
        densities = [None]
    fig, axes = plt.subplots(1, len(densities), figsize=(4.8 * len(densities) + 2.5, 4.4), squeeze=False)
    data = {"study": {}, "kbrain": {}}
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    names = [c["name"] for c in table["columns"]]
    for panel, density in zip(axes[0], densities):
        for k, column in enumerate(table["columns"]):
            colour = colours[k % len(colours)]
            tag = f"{column['name']}" + (f" d={density:g}" if density is not None else "")
            if column["published"]:
                i = header.index(column["name"])
                pts = [(row[size_col], row[i]) for row in table["published"]["rows"]
                       if _finite(row[i]) and (density is None or row[density_col] == density)]
                if pts:
                    panel.plot(*zip(*pts), "--o", color=colour, mfc="none", label=f"study: {column['name']}")
                    data["study"][tag] = pts
            j = names.index(column["name"])
            pts = [(r["cells"], r["values"][j]) for r in table["kbrain"]
                   if _finite(r["values"][j]) and (density is None or r["density"] == density)]
            if pts:
                panel.plot(*zip(*pts), "-s", color=colour,
                           label=f"kbrain: {column['name']} ({column['backend']} {column['precision']})")
                data["kbrain"][tag] = pts
        panel.set_xscale("log")
        panel.set_yscale("log")
        key = table["size_key"]
        panel.set_xlabel("network size (cells)" if key == "cells" else f"network size ({key}, cells)")
        panel.set_ylabel("\n".join(textwrap.wrap(table["unit"], 40)))
        if density is not None:
            panel.set_title(f"{table['density_key']} = {density:g}", fontsize=9)
        if panel.has_data():
            plain_log_ticks(panel)
            panel.xaxis.set_major_formatter(FuncFormatter(_cells_text))
            _size_ticks(panel, [x for line in panel.get_lines() for x in line.get_xdata()])
            _labelled_log_y(panel)
        panel.grid(True, which="both", lw=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    for panel in axes[0][1:]:
        for h, l in zip(*panel.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    axes[0][-1].legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.suptitle(_title(report, table), fontsize=9)
    footer(fig, _footer_lines(report))
    save(fig, out_dir, table["id"], record, "reproduce_sizes", table["title"], data)
    plt.close(fig)


def _one_row_table(plt, report, table, out_dir, record):
    header = table["published"]["header"]
    study = [(h, v) for h, v in zip(header, table["published"]["rows"][0]) if _finite(v)]
    kbrain = []
    for j, column in enumerate(table["columns"]):
        values = [r["values"][j] for r in table["kbrain"] if _finite(r["values"][j])]
        if values:
            kbrain.append((f"kbrain {column['name']}", max(values)))
    bars = [(f"study {h}", v) for h, v in study] + kbrain
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(bars)), 4.2))
    colours = ["#9e9e9e"] * len(study) + ["#1f77b4"] * len(kbrain)
    drawn = ax.bar(range(len(bars)), [v for _, v in bars], color=colours)
    counts = table["unit"] == "cells"
    ax.bar_label(drawn, labels=[_cells_text(v) if counts else _value_text(v) for _, v in bars], fontsize=7)
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels([n for n, _ in bars], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("\n".join(textwrap.wrap(table["unit"], 40)))
    values = [v for _, v in bars]
    if values and min(values) > 0 and max(values) / min(values) > 20:
        ax.set_yscale("log")
        # counts start a decade below the smallest bar (from 1 they would be squeezed into the top); the top leaves
        # room for the bars' labels
        bottom = 10 ** math.floor(math.log10(min(values) / 1.5)) if counts else min(1.0, min(values) / 1.5)
        ax.set_ylim(bottom=bottom, top=max(values) * 2)
        plain_log_ticks(ax, "y")
        _labelled_log_y(ax)
    if counts:  # after the log axis' own labels
        ax.yaxis.set_major_formatter(FuncFormatter(_cells_text))
    ax.set_title(_title(report, table), fontsize=9)
    footer(fig, _footer_lines(report))
    save(fig, out_dir, table["id"], record, "reproduce_bars", table["title"], {"bars": bars})
    plt.close(fig)


def plot_reproduce(plt, folder, out_dir, record):
    path = os.path.join(folder, "reproduce.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        report = json.load(f)
    for table in report["tables"]:
        if table["max_over_sizes"]:
            _one_row_table(plt, report, table, out_dir, record)
        else:
            _size_table(plt, report, table, out_dir, record)
