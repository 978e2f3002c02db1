"""What every kbrain picture shares: saving as PNG and SVG, a footer naming the hardware, and the plots.json record
of what each picture shows (tests read it instead of pixels)."""
import json
import os


def save(fig, out_dir, name, record, kind, title, data):
    """Writes NAME.png and NAME.svg into out_dir and appends a plots.json entry with the plotted data."""
    os.makedirs(out_dir, exist_ok=True)
    files = []
    for ext in ("png", "svg"):
        path = os.path.join(out_dir, f"{name}.{ext}")
        fig.savefig(path, dpi=150 if ext == "png" else None, bbox_inches="tight")
        files.append(os.path.basename(path))
    record.append({"name": name, "kind": kind, "title": title, "files": files, "data": data})


def footer(fig, lines):
    """Small text below everything else (hardware, commit, date): the figure grows at the bottom to hold it."""
    fig.tight_layout()
    height = fig.get_size_inches()[1]
    extra = 0.16 * len(lines)  # inches: one 7-point line each
    fig.set_size_inches(fig.get_size_inches()[0], height + extra)
    fig.subplots_adjust(bottom=(fig.subplotpars.bottom * height + extra) / (height + extra),
                        top=1 - (1 - fig.subplotpars.top) * height / (height + extra))
    fig.text(0.01, 0.01, "\n".join(lines), fontsize=7, va="bottom", ha="left")


def plain_log_ticks(ax, which="both"):
    """Log axes labelled 0.5, 1, 2, 1000 rather than 5x10^-1 ...; an axis spanning less than a decade labels its
    minor ticks too, so it is never left without numbers."""
    from matplotlib.ticker import FuncFormatter, NullFormatter
    fmt = FuncFormatter(lambda v, _: f"{v:g}")
    axes = {"both": (ax.xaxis, ax.yaxis), "y": (ax.yaxis,), "x": (ax.xaxis,)}[which]
    for axis in axes:
        lo, hi = (ax.get_xlim() if axis is ax.xaxis else ax.get_ylim())
        axis.set_major_formatter(fmt)
        axis.set_minor_formatter(fmt if lo > 0 and hi / lo < 10 else NullFormatter())


def write_record(out_dir, record):
    with open(os.path.join(out_dir, "plots.json"), "w") as f:
        json.dump({"plots": record}, f, indent=1)
