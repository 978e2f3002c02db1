#!/usr/bin/env python3
"""kbrain beside Brian2 on the same network: the Brette et al. 2007 benchmarks (COBA, CUBA, COBAHH) in Brian2's C++
standalone device, built from the synapses kbrain generated (`[record] synapses = true`, synapses_*.npy), with the
same thread count, run interleaved with kbrain (bench/README.md, "Brian2 beside kbrain").

    brian2_peer.py bench --kbrain build/host/experiments/program/kbrain [--workloads coba:4000,coba:16000,cuba:4000]
                         [--threads 1,2] [--precisions double,float] [--repeats 3] [--duration-ms 1000] [--out DIR]
        Prints the ratio table (Markdown) and writes DIR/brian2_peer.md and DIR/brian2_peer.csv.
    brian2_peer.py point EXPERIMENT --kbrain KBRAIN --threads T --precision P --work DIR --out FILE [--size N]
                         [--steps S]
        One Brian2 run for `kbrain compare --peer brian2`: FILE gets key=value lines (experiments/program/compare_peer.cpp).

What is timed: kbrain's "simulate_s" of run.json (the step loop without output), and Brian2's own measure of its run
loop (results/last_run_info.txt, which Brian2 reads into device._last_run_time: omp_get_wtime around Network::run,
without code generation, compilation, loading the synapses or initialisation). Threads: kbrain Serial for 1 thread
and OpenMP with OMP_NUM_THREADS=T otherwise; Brian2 with prefs.devices.cpp_standalone.openmp_threads = T (1 included,
so that Brian2 times wall clock). Precision: kbrain -p float|double; Brian2 double by default, float with
prefs.core.default_float_dtype = float32. Brian2 compiles with its default flags (-O3 -ffast-math -march=native).
Same synapses (indices, weights, delays); the initial values and random draws are each simulator's own (same
distributions), so the rates agree statistically, not spike for spike.

Exit 77 when numpy or Brian2 is not importable (the last line says why).
"""
import argparse
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import brian2  # noqa: F401
except ImportError as e:  # pragma: no cover
    print(f"Brian2 is not importable with {sys.executable} ({e}); install python3-brian", flush=True)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "brian2"))
from population_stats import isi_cv  # noqa: E402

ARRAYS = ("sources", "targets", "weights", "delays", "receptors")
RATE_TOL = 0.10  # relative difference of each population's rate that counts as agreement


# ---------------------------------------------------------------- kbrain side
def experiment_with_synapses(path, work):
    """A copy of the experiment file with [record] synapses = true (the export)."""
    with open(path) as f:
        text = f.read()
    if re.search(r"(?m)^\s*synapses\s*=", text):
        text = re.sub(r"(?m)^(\s*synapses\s*=\s*).*$", r"\1true", text)
    elif re.search(r"(?m)^\[record\]\s*$", text):
        text = re.sub(r"(?m)^\[record\]\s*$", "[record]\nsynapses = true", text, count=1)
    else:
        text += "\n[record]\nsynapses = true\n"
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, os.path.basename(path))
    with open(out, "w") as f:
        f.write(text)
    return out


def kbrain_run(kbrain, experiment, out, backend="serial", precision="double", threads=1, size=0, steps=0):
    """`kbrain run`; returns run.json as a dict."""
    cmd = [kbrain, "run", experiment, "-b", backend, "-p", precision, "-o", out, "--no-plots"]
    if size:
        cmd += ["--size", str(size)]
    if steps:
        cmd += ["--steps", str(steps)]
    env = dict(os.environ, KBRAIN_NO_PROGRESS="1", OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="false")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    with open(os.path.join(out, "run.json")) as f:
        return json.load(f)


def export_network(kbrain, experiment, work, size=0):
    """kbrain generates the network (one step, serial) and writes synapses_*.npy; returns (folder, run.json)."""
    toml = experiment_with_synapses(experiment, work)
    out = os.path.join(work, "export")
    shutil.rmtree(out, ignore_errors=True)
    run = kbrain_run(kbrain, toml, out, size=size, steps=1)
    return out, run


def populations_of(experiment, run, size):
    """[(name, first, count)]: as kbrain's plan makes them (the first `excitatory` neurons "exc"; with --size or
    without network.excitatory, 4/5 of the neurons)."""
    import tomllib
    with open(experiment, "rb") as f:
        cfg = tomllib.load(f)
    n = int(run["neurons"])
    exc = cfg.get("network", {}).get("excitatory", -1)
    if size or exc < 0:
        exc = n * 4 // 5
    return [("exc", 0, exc), ("inh", exc, n - exc)]


# ---------------------------------------------------------------- Brian2 side
def build_brian2(export, project, model, neurons, dt_ms, steps, threads, precision, seed):
    """Builds (compiles, does not run) the Brian2 standalone project in a child process (each build needs a fresh
    device); returns its layout: where the binary writes the spikes. Compilation runs at nice 10."""
    args = [sys.executable, os.path.abspath(__file__), "_build", "--export", export, "--project", project,
            "--model", model, "--neurons", str(neurons), "--dt-ms", repr(dt_ms), "--steps", str(steps),
            "--threads", str(threads), "--precision", precision, "--seed", str(seed)]
    t0 = time.time()
    proc = subprocess.run(["nice", "-n", "10"] + args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"Brian2 build failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    with open(os.path.join(project, "kbrain_layout.json")) as f:
        layout = json.load(f)
    layout["build_s"] = time.time() - t0
    return layout


def _build(a):
    """The child of build_brian2."""
    import brian2 as b2
    sys.path.insert(0, os.path.join(ROOT, "tests", "brian2"))
    import brian2_models
    b2.set_device("cpp_standalone", directory=a.project, build_on_run=False)
    b2.prefs.devices.cpp_standalone.openmp_threads = a.threads
    b2.prefs.devices.cpp_standalone.extra_make_args_unix = ["-j2"]
    if a.precision == "float":
        b2.prefs.core.default_float_dtype = np.float32
    b2.defaultclock.dt = a.dt_ms * b2.ms
    b2.seed(a.seed)
    spec = brian2_models.brette_model(a.model)
    P = brian2_models.neuron_group(spec, a.neurons)
    arr = {k: np.load(os.path.join(a.export, f"synapses_{k}.npy")) for k in ARRAYS}
    if arr["sources"].size and arr["sources"].max() >= a.neurons:
        raise SystemExit("the network has Poisson sources: not modelled here")
    unit = spec["weight_unit"]
    unit_name = "siemens" if unit.dim == b2.nS.dim else "volt"
    objects = [P]  # an explicit Network: every object built in the loop takes part
    for receptor, var in enumerate(spec["receptors"]):
        m = arr["receptors"] == receptor
        if not m.any():
            continue
        w, d = arr["weights"][m], arr["delays"][m]
        if np.all(w == w[0]):  # one weight: a constant in the code, as the published benchmark has it
            S = b2.Synapses(P, P, on_pre=f"{var} += w_syn", namespace={"w_syn": float(w[0]) * unit},
                            name=f"synapses_receptor{receptor}")
            S.connect(i=arr["sources"][m], j=arr["targets"][m])
        else:
            S = b2.Synapses(P, P, model=f"w : {unit_name}", on_pre=f"{var} += w", name=f"synapses_receptor{receptor}")
            S.connect(i=arr["sources"][m], j=arr["targets"][m])
            S.w = w * unit
        if np.all(d == d[0]):
            if d[0] > 0:
                S.delay = int(d[0]) * a.dt_ms * b2.ms
        else:
            S.delay = d * a.dt_ms * b2.ms
        objects.append(S)
    mon = b2.SpikeMonitor(P)
    b2.Network(*objects, mon).run(a.steps * a.dt_ms * b2.ms)
    b2.device.build(directory=a.project, compile=True, run=False, with_output=False)
    dev = b2.device
    layout = {"i": dev.get_array_filename(mon.variables["i"]), "i_dtype": np.dtype(mon.variables["i"].dtype).str,
              "t": dev.get_array_filename(mon.variables["t"]), "t_dtype": np.dtype(mon.variables["t"].dtype).str,
              "version": b2.__version__}
    with open(os.path.join(a.project, "kbrain_layout.json"), "w") as f:
        json.dump(layout, f)


def run_brian2(project, layout, populations, duration_ms):
    """Runs the built binary once; returns (Brian2's run-loop seconds, {pop: (rate Hz, ISI CV, spikes, neurons)})."""
    proc = subprocess.run(["./main"], cwd=project, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"Brian2 binary failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    with open(os.path.join(project, "results", "last_run_info.txt")) as f:
        run_time, fraction = (float(x) for x in f.read().split())
    if fraction != 1.0:
        raise RuntimeError(f"Brian2 ran {fraction} of the duration")
    i = np.fromfile(os.path.join(project, layout["i"]), dtype=layout["i_dtype"])
    t = np.fromfile(os.path.join(project, layout["t"]), dtype=layout["t_dtype"]) * 1000.0  # ms
    return run_time, population_stats(i, t, populations, duration_ms)


def population_stats(i, t, populations, duration_ms):
    out = {}
    order = np.argsort(i, kind="stable")
    i, t = i[order], t[order]
    for name, first, count in populations:
        lo, hi = np.searchsorted(i, first), np.searchsorted(i, first + count)
        bounds = np.searchsorted(i[lo:hi], np.arange(first, first + count + 1)) + lo
        trains = [t[bounds[k]:bounds[k + 1]] for k in range(count)]
        spikes = int(hi - lo)
        out[name] = (spikes / (count * duration_ms / 1000.0), isi_cv(trains), spikes, count)
    return out


# ---------------------------------------------------------------- modes
def cmd_point(a):
    work = a.work
    os.makedirs(work, exist_ok=True)
    export, run = export_network(a.kbrain, a.experiment, work, a.size)
    model = run.get("parameter_set", "")
    if run.get("model") not in ("lif", "hh") or model not in ("coba", "cuba", "cobahh"):
        raise SystemExit(f"peer brian2 models the Brette et al. 2007 benchmarks only (parameter_set coba, cuba, "
                         f"cobahh); this experiment is {run.get('model')} / {model}")
    dt = float(run["dt_ms"])
    with open(a.experiment, "rb") as f:
        import tomllib
        cfg = tomllib.load(f)
    steps = a.steps or int(cfg.get("simulation", {}).get("steps", 0))
    seed = int(cfg.get("network", {}).get("seed", 1))
    pops = populations_of(a.experiment, run, a.size)
    check_populations(export, pops)
    project = os.path.join(work, "brian2")
    layout = build_brian2(export, project, model, int(run["neurons"]), dt, steps, a.threads, a.precision, seed)
    sim_s, stats = run_brian2(project, layout, pops, steps * dt)
    lines = {"status": "ok", "label": f"brian2 (cpp_standalone, {a.threads} thread{'s' if a.threads != 1 else ''})",
             "version": layout["version"], "simulate_s": repr(sim_s), "build_s": repr(layout["build_s"]),
             "neurons": run["neurons"], "synapses": int(run["synapses"]), "steps": steps,
             "populations": ",".join(p for p, _, _ in pops)}
    for p, (rate, cv, spikes, count) in stats.items():
        lines.update({f"rate_hz_{p}": repr(rate), f"isi_cv_{p}": repr(cv), f"spikes_{p}": spikes,
                      f"neurons_{p}": count})
    with open(a.out, "w") as f:
        f.writelines(f"{k}={v}\n" for k, v in lines.items())
    print(f"brian2 {sim_s:.4g} s; " + ", ".join(f"{p} {s[0]:.3f} Hz" for p, s in stats.items()))
    return 0


def check_populations(export, pops):
    """Every synapse of an "exc" neuron acts on receptor 0 and of an "inh" one on receptor 1."""
    src = np.load(os.path.join(export, "synapses_sources.npy"))
    rec = np.load(os.path.join(export, "synapses_receptors.npy"))
    for k, (name, first, count) in enumerate(pops):
        m = (src >= first) & (src < first + count)
        if np.any(rec[m] != k):
            raise SystemExit(f"population {name} [{first}, {first + count}) does not match the exported receptors")


def cmd_bench(a):
    kbrain = os.path.abspath(a.kbrain)
    experiments = a.experiments
    out_dir = a.out
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="kbrain_brian2_peer_")
    rows = []
    steps = int(round(a.duration_ms / 0.1))
    try:
        for point in a.workloads.split(","):
            name, size = point.split(":")
            size = int(size)
            experiment = os.path.join(experiments, f"{name}.toml")
            wdir = os.path.join(work, f"{name}_{size}")
            export, run = export_network(kbrain, experiment, wdir, size)
            dt = float(run["dt_ms"])
            steps = int(round(a.duration_ms / dt))
            pops = populations_of(experiment, run, size)
            check_populations(export, pops)
            import tomllib
            with open(experiment, "rb") as f:
                seed = int(tomllib.load(f).get("network", {}).get("seed", 1))
            for threads in (int(t) for t in a.threads.split(",")):
                for precision in a.precisions.split(","):
                    project = os.path.join(wdir, f"brian2_{threads}_{precision}")
                    print(f"[peer] {name} {size}: {threads} thread(s), {precision}: building Brian2 ...", flush=True)
                    layout = build_brian2(export, project, name, int(run["neurons"]), dt, steps, threads, precision,
                                          seed)
                    backend = "serial" if threads == 1 else "openmp"
                    kb_times, b2_times, kb_stats, b2_stats = [], [], None, None
                    load_before = os.getloadavg()[0]
                    for r in range(a.repeats):
                        order = ("kbrain", "brian2") if r % 2 == 0 else ("brian2", "kbrain")
                        for who in order:
                            if who == "kbrain":
                                res = kbrain_run(kbrain, experiment, os.path.join(wdir, "kbrain_out"), backend,
                                                 precision, threads, size, steps)
                                kb_times.append(float(res["simulate_s"]))
                                kb_stats = {p: float(res[f"rate_hz_{p}"]) for p, _, _ in pops}
                            else:
                                t, s = run_brian2(project, layout, pops, steps * dt)
                                b2_times.append(t)
                                b2_stats = s
                        print(f"[peer]   repeat {r + 1}: kbrain {kb_times[-1]:.3f} s, Brian2 {b2_times[-1]:.3f} s",
                              flush=True)
                    kb, b2t = statistics.median(kb_times), statistics.median(b2_times)
                    load_after = os.getloadavg()[0]
                    row = {"workload": name, "neurons": int(run["neurons"]), "synapses": int(run["synapses"]),
                           "threads": threads, "precision": precision, "bio_s": steps * dt / 1000.0,
                           "repeats": a.repeats, "brian2_s": b2t, "kbrain_backend": backend, "kbrain_s": kb,
                           "ratio": b2t / kb, "brian2_min_s": min(b2_times), "kbrain_min_s": min(kb_times),
                           "ratio_of_minima": min(b2_times) / min(kb_times),
                           "brian2_all_s": ";".join(f"{t:.4g}" for t in b2_times),
                           "kbrain_all_s": ";".join(f"{t:.4g}" for t in kb_times),
                           "load_1min": f"{load_before:.1f}-{load_after:.1f}",
                           "brian2_build_s": layout["build_s"], "brian2_version": layout["version"]}
                    for p, _, _ in pops:
                        row[f"kbrain_rate_{p}"] = kb_stats[p]
                        row[f"brian2_rate_{p}"] = b2_stats[p][0]
                    row["rates_agree"] = all(
                        abs(b2_stats[p][0] - kb_stats[p]) <= RATE_TOL * kb_stats[p] for p, _, _ in pops)
                    rows.append(row)
                    shutil.rmtree(project, ignore_errors=True)
                    write_tables(rows, out_dir, a)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(markdown(rows, a))
    return 0


COLUMNS = ["workload", "neurons", "synapses", "threads", "precision", "bio_s", "repeats", "brian2_s", "kbrain_backend",
           "kbrain_s", "ratio", "brian2_min_s", "kbrain_min_s", "ratio_of_minima", "kbrain_rate_exc", "brian2_rate_exc",
           "kbrain_rate_inh", "brian2_rate_inh", "rates_agree", "brian2_all_s", "kbrain_all_s", "load_1min",
           "brian2_build_s", "brian2_version"]


def markdown(rows, a):
    lines = [f"Brian2 (C++ standalone) beside kbrain on the same synapses: medians of {a.repeats} interleaved runs, "
             f"{a.duration_ms / 1000:g} s of biology; simulation time only (Brian2: its run loop, "
             f"results/last_run_info.txt; kbrain: run.json simulate_s); ratio = Brian2 / kbrain (> 1: kbrain is "
             f"faster); min: the fastest repeat (a shared machine only adds time); rates agree: every population within "
             f"{RATE_TOL:.0%}; load: the 1-minute load average before and after the point.", "",
             "| workload | neurons | synapses | threads | precision | Brian2 s | kbrain | kbrain s | ratio | "
             "Brian2 min s | kbrain min s | ratio of minima | "
             "rate exc kbrain / Brian2 (Hz) | rate inh kbrain / Brian2 (Hz) | rates agree | load |",
             "|---|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        lines.append(f"| {r['workload']} | {r['neurons']} | {r['synapses']} | {r['threads']} | {r['precision']} | "
                     f"{r['brian2_s']:.3f} | {r['kbrain_backend']} | {r['kbrain_s']:.3f} | {r['ratio']:.2f} | "
                     f"{r['brian2_min_s']:.3f} | {r['kbrain_min_s']:.3f} | {r['ratio_of_minima']:.2f} | "
                     f"{r['kbrain_rate_exc']:.2f} / {r['brian2_rate_exc']:.2f} | "
                     f"{r['kbrain_rate_inh']:.2f} / {r['brian2_rate_inh']:.2f} | "
                     f"{'yes' if r['rates_agree'] else 'no'} | {r['load_1min']} |")
    return "\n".join(lines) + "\n"


def write_tables(rows, out_dir, a):
    with open(os.path.join(out_dir, "brian2_peer.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    with open(os.path.join(out_dir, "brian2_peer.md"), "w") as f:
        f.write(markdown(rows, a))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    b = sub.add_parser("bench", help="the interleaved side-by-side benchmark and its table")
    b.add_argument("--kbrain", default=os.path.join(ROOT, "build", "host", "experiments", "program", "kbrain"))
    b.add_argument("--experiments", default=os.path.join(ROOT, "experiments"))
    b.add_argument("--workloads", default="coba:4000,coba:16000,cuba:4000,cobahh:4000",
                   help="name:neurons, comma-separated (name: experiments/<name>.toml)")
    b.add_argument("--threads", default="1,2")
    b.add_argument("--precisions", default="double,float")
    b.add_argument("--repeats", type=int, default=3)
    b.add_argument("--duration-ms", type=float, default=1000.0)
    b.add_argument("--out", default=os.path.join(HERE, "results"))
    p = sub.add_parser("point", help="one Brian2 run for `kbrain compare --peer brian2`")
    p.add_argument("experiment")
    p.add_argument("--kbrain", required=True)
    p.add_argument("--size", type=int, default=0)
    p.add_argument("--steps", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--precision", choices=("float", "double"), default="double")
    p.add_argument("--work", required=True)
    p.add_argument("--out", required=True)
    c = sub.add_parser("_build")
    for k in ("--export", "--project", "--model", "--precision"):
        c.add_argument(k, required=True)
    for k in ("--neurons", "--steps", "--threads", "--seed"):
        c.add_argument(k, type=int, required=True)
    c.add_argument("--dt-ms", type=float, required=True)
    a = ap.parse_args()
    if a.mode == "_build":
        return _build(a)
    if a.mode == "point":
        return cmd_point(a)
    return cmd_bench(a)


if __name__ == "__main__":
    sys.exit(main())
