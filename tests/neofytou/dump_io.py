"""Reader and writer of the kbrain Neofytou dump (see README.md, "Dump contract").

A dump directory holds `case.json` and `dump.csv` (header `step,var,index,value`, values with 17 significant
digits). Rows with step -1 give `conn` (index i*n_post+j, every slot) and the initial state; rows with step n give
the state after the whole step n. The reader returns, per variable, an array of shape (steps + 1, size) filled with
NaN where the dump has no row: row 0 is step -1, row n + 1 is step n.
"""
import json
import os

import numpy as np

NEURON_VARS = ("V", "VT", "x", "I")
SYNAPSE_VARS = ("FFp", "FBp", "FBn", "R", "u", "U", "A")
FLAG_VARS = ("pre_spike", "post_spike")


def n_neurons(case):
    """Number of AdEx neurons: n (= n_pre = n_post) in mxm, the n_post targets in nxm."""
    return int(case["n_post"])


def var_size(case, var):
    n_pre, n_post = int(case["n_pre"]), int(case["n_post"])
    if var in SYNAPSE_VARS or var == "conn":
        return n_pre * n_post
    if var == "pre_spike":
        return n_pre
    if var == "post_spike":
        return n_post
    if var in NEURON_VARS:
        return n_neurons(case)
    raise ValueError(f"unknown dump variable {var!r}")


def read_case(dump_dir):
    with open(os.path.join(dump_dir, "case.json")) as f:
        return json.load(f)


def read_dump(dump_dir, variables=None, indices=None):
    """(case, {var: array (steps + 1, size)}) from a dump directory.

    variables: names to keep (None: all known); indices: optional {var: set of indices} to keep (others are NaN,
    which keeps memory small for long dumps of which only a few synapses are compared). Rows of unknown variables
    are an error; so are duplicate rows and steps outside [-1, steps).
    """
    case = read_case(dump_dir)
    steps = int(case["steps"])
    wanted = set(variables) if variables is not None else set(FLAG_VARS + NEURON_VARS + SYNAPSE_VARS + ("conn",))
    known = set(FLAG_VARS + NEURON_VARS + SYNAPSE_VARS + ("conn",))
    out = {v: np.full((steps + 1, var_size(case, v)), np.nan) for v in wanted}
    seen = {v: np.zeros((steps + 1, var_size(case, v)), dtype=bool) for v in wanted}
    path = os.path.join(dump_dir, "dump.csv")
    with open(path) as f:
        header = f.readline().strip()
        if header != "step,var,index,value":
            raise ValueError(f"{path}: header {header!r}, expected 'step,var,index,value'")
        for lineno, line in enumerate(f, start=2):
            parts = line.rstrip("\n").split(",")
            if len(parts) != 4:
                if not line.strip():
                    continue
                raise ValueError(f"{path}:{lineno}: {line.strip()!r} is not step,var,index,value")
            var = parts[1]
            if var not in wanted:
                if var not in known:
                    raise ValueError(f"{path}:{lineno}: unknown variable {var!r}")
                continue
            idx = int(parts[2])
            if indices is not None and var in indices and idx not in indices[var]:
                continue
            row = int(parts[0]) + 1
            if not 0 <= row <= steps:
                raise ValueError(f"{path}:{lineno}: step {parts[0]} outside [-1, {steps})")
            if not 0 <= idx < out[var].shape[1]:
                raise ValueError(f"{path}:{lineno}: index {idx} of {var} outside [0, {out[var].shape[1]})")
            if seen[var][row, idx]:
                raise ValueError(f"{path}:{lineno}: duplicate row for step {parts[0]} {var}[{idx}]")
            seen[var][row, idx] = True
            out[var][row, idx] = float(parts[3])
    return case, out


def conn_matrix(case, data):
    """conn (n_pre, n_post) bool from the step -1 rows; every slot must be present and 0/1."""
    n_pre, n_post = int(case["n_pre"]), int(case["n_post"])
    flat = data["conn"][0]
    if np.isnan(flat).any():
        missing = int(np.isnan(flat).sum())
        raise ValueError(f"dump: {missing} of {flat.size} conn slots missing at step -1")
    if not np.isin(flat, (0.0, 1.0)).all():
        raise ValueError("dump: conn values other than 0/1")
    return flat.reshape(n_pre, n_post).astype(bool)


def _fmt(value):
    return f"{float(value):.17g}"


def write_dump(dump_dir, case, conn, result, variables=None):
    """Writes case.json and dump.csv per the contract from a reference.run_case result (used by the self-tests).

    variables: optional subset of the per-step variables to write (flags are always written); the step -1 rows
    always hold conn and the initial state of the written variables.
    """
    os.makedirs(dump_dir, exist_ok=True)
    with open(os.path.join(dump_dir, "case.json"), "w") as f:
        json.dump(case, f, indent=1, sort_keys=True)
        f.write("\n")
    n_pre, n_post = conn.shape
    conn_flat = conn.reshape(-1)
    connected = np.flatnonzero(conn_flat)
    per_step = [v for v in NEURON_VARS + SYNAPSE_VARS if variables is None or v in variables]
    steps = int(case["steps"])
    with open(os.path.join(dump_dir, "dump.csv"), "w") as f:
        w = f.write
        w("step,var,index,value\n")
        for k in range(n_pre * n_post):
            w(f"-1,conn,{k},{int(conn_flat[k])}\n")
        init = result["init"]
        for v in per_step:
            idx = connected if v in SYNAPSE_VARS else range(init[v].size)
            for k in idx:
                w(f"-1,{v},{k},{_fmt(init[v][k])}\n")
        for n in range(steps):
            for v in FLAG_VARS:
                row = result[v][n]
                for k in range(row.size):
                    w(f"{n},{v},{k},{int(row[k])}\n")
            for v in per_step:
                row = result[v][n]
                idx = connected if v in SYNAPSE_VARS else range(row.size)
                w("".join(f"{n},{v},{k},{_fmt(row[k])}\n" for k in idx))
