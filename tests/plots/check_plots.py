#!/usr/bin/env python3
"""Pictures from a small run and a small comparison (ctest `plots`): kbrain run and kbrain compare draw them at the
end; each picture must exist as PNG and SVG of a plausible size, and plots.json must show the data of the files it
was drawn from (traces: first and last value; raster: the spikes in its window; speedups: compare.json's). Also:
`kbrain plot` on a folder that is not an output folder exits 2.
usage: check_plots.py KBRAIN WORK_DIR   (exit 0 pass, 1 fail, 77 matplotlib missing)"""
import csv
import json
import os
import subprocess
import sys

EXPERIMENT = """name = "plots_check"
[model]
kind = "lif"
parameter_set = "cuba"
[simulation]
steps = 1500
[network]
neurons = 400
[record]
variables = ["v"]
neurons = [0, 5, 399]
[compare]
sizes = [200, 400]
"""


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def plots_of(folder):
    path = os.path.join(folder, "plots", "plots.json")
    if not os.path.exists(path):
        fail(f"no {path}")
    entries = {p["name"]: p for p in json.load(open(path))["plots"]}
    for p in entries.values():
        for f in p["files"]:
            size = os.path.getsize(os.path.join(folder, "plots", f))
            if size < 2000:
                fail(f"{f} has only {size} bytes")
    return entries


def main(kbrain, work):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is not importable: skipped")
        return 77
    os.makedirs(work, exist_ok=True)
    exp = os.path.join(work, "plots_check.toml")
    open(exp, "w").write(EXPERIMENT)
    env = dict(os.environ, KBRAIN_PYTHON=sys.executable, KBRAIN_NO_PROGRESS="1")
    run_dir, cmp_dir = os.path.join(work, "run"), os.path.join(work, "compare")
    subprocess.run([kbrain, "run", exp, "-b", "serial", "-o", run_dir], check=True, env=env)
    subprocess.run([kbrain, "compare", exp, "--steps", "200", "-o", cmp_dir], check=True, env=env)

    run = plots_of(run_dir)
    for name in ("traces", "raster", "population_rate"):
        if name not in run:
            fail(f"run picture {name} missing (have {sorted(run)})")
    with open(os.path.join(run_dir, "trace.csv")) as f:
        rows = list(csv.reader(f))
    header, first, last = rows[0], rows[1], rows[-1]
    for key, (v0, v1, n) in run["traces"]["data"].items():
        k = header.index(key)
        if abs(float(first[k]) - v0) > 1e-9 or abs(float(last[k]) - v1) > 1e-9 or n != len(rows) - 1:
            fail(f"traces: {key} plotted {v0}..{v1} ({n} samples), file {first[k]}..{last[k]} ({len(rows) - 1})")
    with open(os.path.join(run_dir, "spikes.csv")) as f:
        spikes = [(int(a), int(b)) for a, b in list(csv.reader(f))[1:]]
    window = run["raster"]["data"]
    shown = sum(1 for s, c in spikes if s > window["first_step"] and c < 500)
    if shown != window["spikes_shown"] or shown == 0:
        fail(f"raster shows {window['spikes_shown']} spikes, the file has {shown} in its window")
    if run["population_rate"]["data"]["spikes"] != len(spikes):
        fail("population rate: spike count differs from spikes.csv")

    cmp = plots_of(cmp_dir)
    table = json.load(open(os.path.join(cmp_dir, "compare.json")))
    if "speedup_vs_serial" not in cmp or "time_per_work" not in cmp:
        fail(f"compare pictures missing (have {sorted(cmp)})")
    for label, points in cmp["speedup_vs_serial"]["data"].items():
        backend, precision = label.split("/")
        for size, value in points.items():
            row = [r for r in table["rows"] if (r["backend"], r["precision"], r["size_label"]) == (backend, precision, size)]
            if not row or abs(row[0]["speedup_vs_serial"] - value) > 1e-12:
                fail(f"speedup {label} {size}: plotted {value}, compare.json {row[0]['speedup_vs_serial'] if row else None}")
    if "serial/double" in cmp["speedup_vs_serial"]["data"]:
        fail("speedup x Serial plots Serial against itself")

    rc = subprocess.run([kbrain, "plot", work], env=env).returncode
    if rc != 2:
        fail(f"kbrain plot on a folder without outputs exited {rc}, not 2")
    print(f"ok: {len(run)} run pictures, {len(cmp)} compare pictures, data as in the files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
