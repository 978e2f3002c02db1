"""Runs kbrain experiments from Python (writes a TOML, calls the `kbrain` CLI, reads spikes.csv / trace.csv)."""
import csv
import os
import re
import subprocess
import tempfile

import numpy as np


def run_toml(kbrain, toml_text, name, backend="serial"):
    """Runs `kbrain run` on toml_text; returns the output folder."""
    work = tempfile.mkdtemp(prefix=f"kbrain_{name}_")
    path = os.path.join(work, f"{name}.toml")
    with open(path, "w") as f:
        f.write(toml_text)
    out = os.path.join(work, "out")
    env = dict(os.environ, OMP_PROC_BIND="false", KBRAIN_NO_PROGRESS="1")
    proc = subprocess.run([kbrain, "run", path, "-b", backend, "-o", out], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"kbrain run {name} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return out


def with_seed(toml_text, seed):
    """The experiment text with [network] seed replaced."""
    text, n = re.subn(r"(?m)^seed\s*=\s*\d+", f"seed = {seed}", toml_text)
    if n != 1:
        raise ValueError("experiment has no single 'seed = N' line")
    return text


def spike_trains(out, n_exc, n_total, dt_ms):
    """{population: list of spike-time arrays (ms)}; time = (updates done - 1) * dt as Brian2 reports it."""
    times = [[] for _ in range(n_total)]
    with open(os.path.join(out, "spikes.csv")) as f:
        for row in csv.DictReader(f):
            times[int(row["cell"])].append((int(row["step"]) - 1) * dt_ms)
    arr = [np.asarray(t) for t in times]
    return {"exc": arr[:n_exc], "inh": arr[n_exc:]}


def trace(out, column="v_0"):
    """(steps, values) of one trace.csv column; step = updates done."""
    steps, values = [], []
    with open(os.path.join(out, "trace.csv")) as f:
        for row in csv.DictReader(f):
            steps.append(int(row["step"]))
            values.append(float(row[column]))
    return np.asarray(steps), np.asarray(values)
