#!/usr/bin/env python3
"""`kbrain compare --peer brian2` at a tiny size: the Brian2 rows exist (backend "brian2 (cpp_standalone, N
threads)", one per precision), ran the network kbrain generated (same synapse count) and their per-population rates
agree with kbrain's serial double run within the stated tolerance (10 %).

usage: compare_peer.py KBRAIN EXPERIMENT WORKDIR [extra compare arguments]
Exit 0: pass, 1: fail, 77: Brian2 not importable (ctest SKIP_RETURN_CODE).
"""
import csv
import os
import shutil
import subprocess
import sys

try:
    import numpy  # noqa: F401
    import brian2  # noqa: F401
except ImportError as e:  # pragma: no cover
    print(f"SKIP: Brian2 is not importable with {sys.executable} ({e}); install python3-brian", flush=True)
    sys.exit(77)

TOL = 0.10


def main():
    kbrain, experiment, work = sys.argv[1:4]
    extra = sys.argv[4:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    out = os.path.join(work, "out")
    cmd = [kbrain, "compare", experiment, "--peer", "brian2", "-o", out, "--no-plots"] + extra
    env = dict(os.environ, KBRAIN_PYTHON=sys.executable, KBRAIN_NO_PROGRESS="1")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    print(proc.stdout[-3000:])
    print(proc.stderr[-3000:])
    if proc.returncode != 0:
        print(f"FAIL: {' '.join(cmd)} exited {proc.returncode}")
        return 1
    with open(os.path.join(out, "compare.csv")) as f:
        rows = list(csv.DictReader(f))
    ref = [r for r in rows if r["backend"] == "serial" and r["precision"] == "double"]
    peer = [r for r in rows if r["backend"].startswith("brian2 (cpp_standalone, ")]
    failures = []
    if len(ref) != 1:
        failures.append(f"{len(ref)} serial double rows")
    if not peer:
        failures.append("no brian2 rows: " + "; ".join(f"{r['backend']}: {r['note']}" for r in rows))
    pops = [k[len("rate_hz_"):] for k in rows[0] if k.startswith("rate_hz_")]
    if not pops:
        failures.append("no rate columns")
    for r in peer:
        if r["synapses"] != ref[0]["synapses"] or r["neurons"] != ref[0]["neurons"]:
            failures.append(f"{r['backend']} {r['precision']}: not the reference's network "
                            f"({r['neurons']} / {r['synapses']} vs {ref[0]['neurons']} / {ref[0]['synapses']})")
        if not float(r["simulate_s"]) > 0:
            failures.append(f"{r['backend']} {r['precision']}: no simulation time")
        for p in pops:
            b2, kb = float(r[f"rate_hz_{p}"]), float(ref[0][f"rate_hz_{p}"])
            d = abs(b2 - kb) / kb
            print(f"{r['backend']} {r['precision']} {p}: Brian2 {b2:.3f} Hz, kbrain {kb:.3f} Hz ({100 * d:.1f} %)")
            if not d <= TOL:
                failures.append(f"{r['backend']} {r['precision']} {p}: rates differ by {100 * d:.1f} %")
        if "agree with" not in r["note"] or "within 10 %" not in r["note"]:
            failures.append(f"note lacks the verdict: {r['note']}")
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    print(f"ok: {len(peer)} Brian2 row(s), rates within {TOL:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
