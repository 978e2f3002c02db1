#!/usr/bin/env python3
"""`kbrain stats` against an independent NumPy implementation of the PD14 accuracy metrics (docs/specs pd14.md §7):
made-up run folders (random spike trains with shared events, silent neurons, neurons with 1-2 spikes, spikes on
both window ends and outside the window, a neuron of no population, a population of one neuron; one run's spikes in
spikes.kbs, one in spikes.h5 where h5py and kbrain's libhdf5 are there) go through `kbrain stats`, and every value of stats.json and of the .npy files is recomputed here with
numpy.histogram, numpy.corrcoef, numpy.std, numpy.quantile and empirical CDFs.

usage: stats_reference.py KBRAIN WORKDIR      (exit 77: NumPy missing; exit 1: a value differs)
"""
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import warnings

try:
    import numpy as np
except ImportError:  # ctest counts exit 77 as skipped (the GPU machine has no NumPy)
    print(f"numpy is not importable by {sys.executable}")
    sys.exit(77)

DT = 0.25                      # ms, a binary fraction: spikes fall exactly on the window's ends
POPS = [("E", 0, 40), ("I", 40, 12), ("one", 55, 1)]  # neurons 52-54 and 56-59 are in no population
NEURONS = 60
T_MIN, BIN, SAMPLE, SEED = 200.0, 2.0, 30, 777
QUANTILES = [0.05, 0.25, 0.5, 0.75, 0.95]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def make_spikes(rng, steps):
    """(step, cell) pairs sorted by step then cell: independent spikes, shared events, edge cases."""
    events = set()
    kinds = rng.integers(0, 6, size=NEURONS)  # 0: silent, 1: one or two spikes (a rate, no CV), else Poisson
    kinds[[2, 42, 50]] = 0                    # silent in the window: their CC pairs are NaN and dropped
    kinds[[1, 3, 41, 55]] = 2
    t_min_step = int(T_MIN / DT)
    for cell in range(NEURONS):
        if kinds[cell] == 1:
            for s in rng.integers(0, steps + 1, size=rng.integers(1, 3)):
                events.add((int(s), cell))
        elif kinds[cell] >= 2:
            n = rng.poisson(rng.uniform(5, 60) * steps * DT / 1000)
            for s in rng.integers(0, steps + 1, size=n):
                events.add((int(s), cell))
    active = np.flatnonzero(kinds >= 2)
    for s in rng.integers(0, steps + 1, size=30):  # common input: positive correlations
        for cell in rng.choice(active, size=15, replace=False):
            events.add((int(s), int(cell)))
    # Spikes on both ends of the window, one just before it, two in one bin.
    events.update({(t_min_step, 1), (steps, 1), (t_min_step - 1, 2), (steps, 41), (t_min_step, 55)})
    events.update({(t_min_step + 100, 3), (t_min_step + 101, 3)})
    return sorted(events)


def write_sonata(folder, events):
    """spikes.h5 as core/recorders/sonata_spikes.cpp writes it (timestamps = step * dt); False without h5py."""
    try:
        import h5py
    except ImportError:
        print("skipped spikes.h5: h5py is not importable")
        return False
    ev = np.array(events, dtype=np.int64).reshape(-1, 2)
    with h5py.File(os.path.join(folder, "spikes.h5"), "w") as f:
        pop = f.create_group("spikes").create_group("made_up")
        pop.attrs["sorting"] = "by_time"
        pop.create_dataset("timestamps", data=ev[:, 0].astype(np.float64) * DT)
        pop.create_dataset("node_ids", data=ev[:, 1].astype(np.uint64))
    return True


def write_run(folder, steps, events, binary=False, populations=True):
    os.makedirs(folder)
    manifest = {"complete": True, "experiment": "made_up", "dt_ms": DT, "neurons": NEURONS, "steps": steps}
    if populations:
        manifest["populations"] = ",".join(p[0] for p in POPS)
        for name, first, size in POPS:
            manifest[f"first_{name}"] = first
            manifest[f"neurons_{name}"] = size
    with open(os.path.join(folder, "run.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    if binary == "h5":
        return write_sonata(folder, events)
    if binary:
        with open(os.path.join(folder, "spikes.kbs"), "wb") as f:
            f.write(b"KBSPIKE1" + struct.pack("<Q", len(events)))
            f.write(np.array(events, dtype="<i4").tobytes())
    else:
        with open(os.path.join(folder, "spikes.csv"), "w") as f:
            f.write("step,cell\n" + "".join(f"{s},{c}\n" for s, c in events))
    return True


def reference_metrics(events, steps, first, size, sample, t_min, t_max):
    """rates, CVs and CCs of one population as numpy computes them from the event list."""
    ev = np.array(events, dtype=np.int64).reshape(-1, 2)
    times = ev[:, 0].astype(np.float64) * DT
    cells = ev[:, 1]
    inside = (times >= t_min) & (times <= t_max)
    trains = [np.sort(times[inside & (cells == first + i)]) for i in range(size)]
    rates = np.array([len(t) for t in trains], dtype=np.float64) / ((t_max - t_min) / 1000.0)
    cvs = np.array([np.std(np.diff(t)) / np.mean(np.diff(t)) for t in trains if len(t) > 2])
    k = int(math.ceil((t_max - t_min) / BIN))
    while t_min + BIN * k < t_max:
        k += 1
    edges = t_min + BIN * np.arange(k + 1, dtype=np.float64)
    counts = np.array([np.histogram(trains[c - first], bins=edges)[0] for c in sample], dtype=np.float64)
    if len(sample) >= 2:
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore")
            cc = np.corrcoef(counts)[np.triu_indices(len(sample), k=1)]
        ccs = cc[~np.isnan(cc)]
    else:
        ccs = np.array([])
    return {"rates": rates, "cvs": cvs, "ccs": ccs}, k


def ks(a, b):
    if len(a) == 0 or len(b) == 0:
        return None
    x = np.concatenate([a, b])
    fa = np.searchsorted(np.sort(a), x, side="right") / len(a)
    fb = np.searchsorted(np.sort(b), x, side="right") / len(b)
    return float(np.max(np.abs(fa - fb)))


def close(a, b, tol=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= tol * max(1.0, abs(b))


def check_summary(where, got, values, file_values):
    check(len(file_values) == len(values) and np.allclose(file_values, values, rtol=1e-10, atol=1e-12),
          f"{where}: the .npy values differ from numpy's ({len(file_values)} against {len(values)})")
    check(got["count"] == len(values), f"{where}: count {got['count']} != {len(values)}")
    if len(values) == 0:
        check(all(got[k] is None for k in ("mean", "std", "p50")), f"{where}: summary of nothing not null")
        return
    want = {"mean": float(np.mean(values)), "std": float(np.std(values))}
    for q in QUANTILES:
        want[f"p{round(q * 100)}"] = float(np.quantile(values, q))
    for key, value in want.items():
        check(close(got[key], value), f"{where}: {key} {got[key]} != numpy {value}")


def run_stats(kbrain, args, may_lack=None):
    """Runs kbrain stats; False where it refused for want of `may_lack` (a library it was built without)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false", KBRAIN_NO_PROGRESS="1")
    p = subprocess.run([kbrain, "stats", *args], env=env, capture_output=True, text=True)
    if p.returncode == 2 and may_lack and may_lack in p.stderr:
        print(f"skipped: {p.stderr.strip()}")
        return False
    if p.returncode != 0:
        print(f"kbrain stats {' '.join(args)} exited {p.returncode}:\n{p.stdout}{p.stderr}")
        sys.exit(1)
    print(p.stdout, end="")
    return True


def check_output(out, runs, populations, t_max_given=None):
    with open(os.path.join(out, "stats.json")) as f:
        js = json.load(f)
    check(len(js["runs"]) == len(runs), "run count")
    per_run = []
    for i, (events, steps) in enumerate(runs):
        r = js["runs"][i]
        t_max = t_max_given if t_max_given is not None else steps * DT
        check(r["t_min_ms"] == T_MIN and r["t_max_ms"] == t_max, f"run {i}: window {r['t_min_ms']}..{r['t_max_ms']}")
        check([p["name"] for p in r["populations"]] == [p[0] for p in populations], f"run {i}: population names")
        metrics = {}
        for (name, first, size), p in zip(populations, r["populations"]):
            where = f"run {i} {name}"
            check(p["first"] == first and p["neurons"] == size, f"{where}: first/neurons")
            sample = np.load(os.path.join(out, p["sample_file"]))
            check(len(sample) == min(SAMPLE, size) and len(set(sample.tolist())) == len(sample)
                  and all(first <= c < first + size for c in sample), f"{where}: sample {sample}")
            want, k = reference_metrics(events, steps, first, size, sample, T_MIN, t_max)
            check(r["bins"] == k, f"run {i}: bins {r['bins']} != {k}")
            for metric in ("rates", "cvs", "ccs"):
                file_values = np.load(os.path.join(out, p[metric]["file"]))
                check_summary(f"{where} {metric}", p[metric], want[metric], file_values)
            metrics[name] = want
        per_run.append(metrics)
    check(len(js["ks"]) == (len(populations) if len(runs) > 1 else 0), "ks entries")
    for entry in js["ks"]:
        name = entry["population"]
        for metric in ("rates", "cvs", "ccs"):
            want = [(i, j, ks(per_run[i][name][metric], per_run[j][name][metric]))
                    for i in range(len(runs)) for j in range(i + 1, len(runs))]
            got = entry[metric]["pairs"]
            check([(g["i"], g["j"]) for g in got] == [(i, j) for i, j, _ in want], f"ks {name} {metric}: pairs")
            for g, (_, _, d) in zip(got, want):
                check(close(g["d"], d), f"ks {name} {metric} {g['i']},{g['j']}: {g['d']} != numpy {d}")
            ds = [d for _, _, d in want if d is not None]
            check(close(entry[metric]["mean"], float(np.mean(ds)) if ds else None), f"ks {name} {metric}: mean")
            check(close(entry[metric]["std"], float(np.std(ds)) if ds else None), f"ks {name} {metric}: std")
    return js


def main():
    kbrain, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rng = np.random.default_rng(20141)
    runs = [(make_spikes(rng, 4000), 4000), (make_spikes(rng, 3600), 3600), (make_spikes(rng, 4000), 4000)]
    folders = [os.path.join(work, f"run{i}") for i in range(len(runs))]
    for i, (folder, (events, steps)) in enumerate(zip(folders, runs)):
        write_run(folder, steps, events, binary=(i == 2))
    out = os.path.join(work, "stats")
    run_stats(kbrain, [*folders, "--t-min-ms", str(T_MIN), "--sample", str(SAMPLE), "--seed", str(SEED),
                       "--bin-ms", str(BIN), "-o", out])
    js = check_output(out, runs, POPS)
    check(js["runs"][2]["spikes"] == "spikes.kbs", "run 2 was not read from spikes.kbs")
    # Every population drew at least one pair with a positive CC (the shared events) and one silent neuron's pairs
    # were dropped somewhere, else the case tests less than it should.
    check(any(p["ccs"]["count"] < p["neurons"] * (p["neurons"] - 1) // 2 for r in js["runs"] for p in r["populations"]
              if p["neurons"] <= SAMPLE), "no NaN pair was dropped")

    # One run without populations in its run.json (one population "all"), an explicit end of the window, the
    # output in the run's folder (the default).
    single = os.path.join(work, "single")
    write_run(single, 4000, runs[0][0], populations=False)
    run_stats(kbrain, [single, "--t-min-ms", str(T_MIN), "--t-max-ms", "800", "--sample", str(SAMPLE),
                       "--seed", str(SEED)])
    check_output(single, [runs[0]], [("all", 0, NEURONS)], t_max_given=800.0)

    # The first run's spikes as a SONATA file (where h5py and kbrain's libhdf5 are there).
    sonata = os.path.join(work, "sonata")
    if write_run(sonata, 4000, runs[0][0], binary="h5") and run_stats(
            kbrain, [sonata, "--t-min-ms", str(T_MIN), "--sample", str(SAMPLE), "--seed", str(SEED)], "libhdf5"):
        js = check_output(sonata, [runs[0]], POPS)
        check(js["runs"][0]["spikes"] == "spikes.h5", "the SONATA run was not read from spikes.h5")

    if failures:
        print(f"{len(failures)} differences from the NumPy reference:")
        for f in failures[:40]:
            print("  " + f)
        return 1
    print("kbrain stats agrees with the NumPy reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
