#!/usr/bin/env python3
"""Compares a kbrain Neofytou dump with the NumPy reference (reference_model.py) at every step, every variable.

usage: check_reference.py KBRAIN_DUMP_DIR [--precision double|float]
  (default precision: the dump's case.json "precision").

The reference runs the same case (case.json), on the dump's conn matrix, with the dump's input flags where the
reference cannot compute them (pattern poisson_gaussian / file). The spike flags of the dump must equal the
reference's (imposed patterns, and the AdEx crossings where flags come from the model).

double: every variable (V, VT, x, I, FFp, FBp, FBn, R, u, U, A; initial state included) within
        |a - b| <= max(1e-12 * max(|a|, |b|), floor), floor = 1e-9 (mV for V, VT; pA for x, I) and 1e-300 for the
        synapse variables; any flag mismatch fails.
float:  U, A, FFp, FBp, FBn within 1e-5 relative with an absolute floor of 1e-7; R, u, V, VT, x, I reported,
        not asserted; if the flags diverge (a float AdEx crossing a step earlier or later than the double
        reference), the values are compared only at the steps before the first divergence, which is reported.
Exit 0: pass, 1: fail.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dump_io  # noqa: E402
import reference_model  # noqa: E402

DOUBLE_REL = 1e-12
DOUBLE_FLOOR = {"V": 1e-9, "VT": 1e-9, "x": 1e-9, "I": 1e-9}  # others: TINY
TINY = 1e-300
FLOAT_REL = 1e-5
FLOAT_FLOOR = 1e-7
FLOAT_ASSERTED = ("U", "A", "FFp", "FBp", "FBn")
ALL_VARS = dump_io.NEURON_VARS + dump_io.SYNAPSE_VARS


def first_divergence(dump_flags, ref_flags):
    """First step where the flags differ (or are missing in the dump), or None."""
    bad = np.isnan(dump_flags) | (dump_flags != ref_flags)
    rows = np.flatnonzero(bad.any(axis=1))
    return int(rows[0]) if rows.size else None


def where(case, var, row, col):
    step = row - 1
    if var in dump_io.SYNAPSE_VARS:
        n_post = int(case["n_post"])
        return f"step {step:>5} syn ({col // n_post},{col % n_post})"
    return f"step {step:>5} neuron {col}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump_dir")
    ap.add_argument("--precision", choices=["double", "float"], default=None)
    args = ap.parse_args(argv)

    case, data = dump_io.read_dump(args.dump_dir)
    precision = args.precision or case.get("precision", "double")
    steps, n_pre, n_post = int(case["steps"]), int(case["n_pre"]), int(case["n_post"])
    print(f"== {args.dump_dir}: {case['architecture']} {n_pre}x{n_post}, {steps} steps, dt {case['dt']} ms, pattern "
          f"{case['pattern']}, post_events {case['post_events']}, backend {case.get('backend', '?')}, "
          f"dumped in {case.get('precision', '?')}, checked as {precision}", flush=True)
    ok = True
    failures = []

    params = case.get("parameters", {})
    unknown = sorted(set(params) - set(reference_model.PARAMETERS))
    if unknown:
        failures.append(f"case.json parameters unknown to the reference: {unknown}")
    missing = sorted(set(reference_model.PARAMETERS) - set(params))
    if missing:
        print(f"note: case.json lacks {missing}; the reference uses the ModelDB values")
    differ = {k: (v, reference_model.PARAMETERS[k]) for k, v in params.items()
              if k in reference_model.PARAMETERS and v != reference_model.PARAMETERS[k]}
    if differ:
        print(f"note: parameters differing from ModelDB 184487 (case, ModelDB): {differ}")

    conn = dump_io.conn_matrix(case, data)
    print(f"conn: {int(conn.sum())} of {conn.size} slots connected")
    if "connectivity" in case:
        expect = reference_model.connectivity(case["connectivity"], n_pre, n_post)
        if not np.array_equal(expect, conn):
            failures.append(f"conn differs from the rule {case['connectivity']!r} in "
                            f"{int((expect != conn).sum())} slots")

    pattern, post_events = case["pattern"], case["post_events"]
    pre_flags = post_flags = None
    if pattern in ("poisson_gaussian", "file"):
        pre_flags = data["pre_spike"][1:]
        if np.isnan(pre_flags).any():
            failures.append("pre_spike rows missing; the reference cannot run")
            return report_fail(failures)
        if post_events == "imposed" and case["architecture"] == "nxm":
            post_flags = data["post_spike"][1:]
            if np.isnan(post_flags).any():
                failures.append("post_spike rows missing")
                return report_fail(failures)
    res = reference_model.run_case(case, conn, pre_flags=pre_flags, post_flags=post_flags)

    # Flags.
    limit = steps  # compare values at steps < limit
    for v in dump_io.FLAG_VARS:
        d = data[v][1:]
        div = first_divergence(d, res[v])
        nd, nr = int(np.nansum(d)), int(res[v].sum())
        if div is None:
            print(f"{v:>10}: identical at every step ({nr} spikes)")
            continue
        diff_idx = np.flatnonzero(np.isnan(d[div]) | (d[div] != res[v][div]))
        print(f"{v:>10}: DIVERGE from step {div} (indices {diff_idx[:8].tolist()}); spikes dump {nd}, reference {nr}")
        limit = min(limit, div)
        if precision == "double":
            failures.append(f"{v} differs from the reference from step {div}")
    if limit < steps:
        print(f"values compared at steps < {limit} only (the state after step {limit} follows different flags)")
        if precision == "float" and limit == 0:
            print("note: flags diverge at step 0; only the initial state is compared")

    # Values.
    sel = conn.reshape(-1)
    rows = limit + 1  # row 0 = step -1
    print(f"{'var':>5} {'max rel err':>12}  {'worst |a-b|/tol at':<32} {'err/tol':>9}  {'status':<8}")
    for v in ALL_VARS:
        ref = np.vstack([res["init"][v][None, :], res[v]])[:rows]
        dmp = data[v][:rows]
        cols = np.flatnonzero(sel) if v in dump_io.SYNAPSE_VARS else np.arange(ref.shape[1])
        ref, dmp = ref[:, cols], dmp[:, cols]
        if v in dump_io.SYNAPSE_VARS:
            extra = np.isfinite(data[v][:, ~sel]).sum()
            if extra:
                print(f"note: {v} has {int(extra)} rows for unconnected slots (ignored)")
        miss = np.isnan(dmp)
        if miss.any():
            r, c = np.argwhere(miss)[0]
            failures.append(f"{v}: {int(miss.sum())} values missing, first at {where(case, v, r, cols[c])}")
            status = "MISSING"
        if precision == "double":
            rel_tol, floor, asserted = DOUBLE_REL, DOUBLE_FLOOR.get(v, TINY), True
        else:
            rel_tol, floor, asserted = FLOAT_REL, FLOAT_FLOOR, v in FLOAT_ASSERTED
        err = np.abs(dmp - ref)
        scale = np.maximum(np.abs(dmp), np.abs(ref))
        with np.errstate(invalid="ignore", divide="ignore"):
            rel = np.where(err == 0, 0.0, err / scale)
            ratio = err / np.maximum(rel_tol * scale, floor)
        rel = np.where(miss, 0.0, rel)
        ratio = np.where(miss, 0.0, ratio)
        if ratio.size == 0:
            print(f"{v:>5} {'-':>12}  {'(nothing to compare)':<32} {'-':>9}  {'-':<8}")
            continue
        r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
        worst = float(ratio[r, c])
        if not miss.any():
            status = ("ok" if worst <= 1.0 else "FAIL") if asserted else "(info)"
        if asserted and worst > 1.0:
            failures.append(f"{v}: err/tol {worst:.3g} at {where(case, v, r, cols[c])}: dump {dmp[r, c]!r}, "
                            f"reference {ref[r, c]!r}")
        at = where(case, v, r, cols[c]) if worst > 0 else "-"
        print(f"{v:>5} {float(rel.max()):>12.3e}  {at:<32} {worst:>9.3g}  {status:<8}")

    print(f"tolerances ({precision}): " + (f"rel {DOUBLE_REL:g}, floor 1e-9 for V/VT/x/I, {TINY:g} otherwise"
                                          if precision == "double" else
                                          f"rel {FLOAT_REL:g}, floor {FLOAT_FLOOR:g} on {', '.join(FLOAT_ASSERTED)}"))
    if failures:
        return report_fail(failures)
    print("PASS", flush=True)
    return 0


def report_fail(failures):
    for f in failures:
        print(f"FAIL: {f}")
    print("FAIL", flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
