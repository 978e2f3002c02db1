#!/usr/bin/env python3
"""Brian2 port of ModelDB 184487 `prepostSTDP_savings.py` (Costa et al. 2015; spec docs/specs/neofytou.md §2, §3,
§5): 100 Poisson inputs with a Gaussian rate profile (F_on 50 Hz, F_off 3 Hz, rad 5, centre 25 or 75) -> 1 AdEx,
dt 1 ms, run as a list of phases (default 1 s at 25, 20 s at 75, 20 s at 25; the original is 1 s at 25 then 50 s
each at 75, 25, 75). Compared with a kbrain dump of the same protocol (see README.md).
The model is in brian2_model.py, the comparisons in brian2_compare.py; this file is the CLI and the self-test.

usage: brian2_savings.py KBRAIN_DUMP_DIR [--phases 25:1,75:20,25:20] [--seeds 1,2,3,4,5] [--window 5]
                         [--no-same-input] [--no-stats]
       brian2_savings.py --selftest [--phases ...]      (checks itself on a dump written by reference.py)
Exit 0: pass, 1: fail, 77: Brian2 not importable.

Two comparisons:
 1. statistical (kbrain and Brian2 draw different Poisson spikes): for inputs 25 and 75 (synapses 24 and 74), U and A
    averaged over the last `window` seconds of every phase must lie within the band of the Brian2 seeds (see
    README.md for the bound), and the post spike count of every phase within a Poisson-type bound;
 2. same input (on by default): Brian2 driven by the dump's own input spikes (SpikeGeneratorGroup) must give the
    same post spike steps and, in a double dump, the same U and A of every dumped synapse (1e-9 relative) and the
    same V, VT, x, I (1e-6 absolute) at every step until the first post spike that differs.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from brian2_model import N_INPUTS, run_brian2  # noqa: E402  (exits 77 without Brian2)
import numpy as np  # noqa: E402
from brian2_compare import DEFAULT_PHASES, compare, tolerance_ratio  # noqa: E402
import reference_model  # noqa: E402


def cross_check_reference(n_inputs=150, n_post=4, density=0.6, phases=((25.0, 1.0), (75.0, 1.0)), seed=2024):
    """Brian2 and reference_model.py on the same input spikes, several targets and a random conn: post flags identical,
    U, A, V, VT, x, I within SAME_TOL at every step (checks the winner rule per column and the m-bar over S_t of
    several columns, which the 100 -> 1 protocol cannot). Returns the list of failures."""
    phases = list(phases)
    rng = np.random.default_rng(seed)
    conn = rng.random((n_inputs, n_post)) < density
    flags = reference_model.poisson_gaussian_flags(n_inputs, phases, 1.0, seed=seed)
    case = reference_model.make_case("nxm", n_inputs, n_post, flags.shape[0], 1.0, "poisson_gaussian", "model")
    t0 = time.time()
    ref = reference_model.run_case(case, conn, pre_flags=flags)
    t1 = time.time()
    o = run_brian2(phases, 1.0, input_flags=flags, record_all=True, conn=conn)
    print(f"  cross-check {n_inputs}x{n_post}, {int(conn.sum())} synapses, {flags.shape[0]} steps: reference "
          f"{t1 - t0:.0f} s, Brian2 {time.time() - t1:.0f} s; post spikes per target: reference "
          f"{ref['post_spike'].sum(axis=0).tolist()}, Brian2 {o['post_flags'].sum(axis=0).tolist()}")
    fails = []
    if not np.array_equal(ref["post_spike"].astype(bool), o["post_flags"]):
        fails.append("cross-check: post spikes differ from step "
                     f"{int(np.flatnonzero((ref['post_spike'].astype(bool) != o['post_flags']).any(axis=1))[0])}")
        return fails
    slots = np.flatnonzero(conn.reshape(-1))
    for v in ("U", "A", "V", "VT", "x", "I"):
        r = ref[v][:, slots] if v in ("U", "A") else ref[v]
        err, ratio = tolerance_ratio(v, r, o[v])
        worst = float(ratio.max())
        print(f"    {v:>3}: max |diff| {err.max():.3e}, {worst:.3g} x tolerance  {'ok' if worst <= 1 else 'FAIL'}")
        if worst > 1:
            fails.append(f"cross-check: {v} differs ({worst:.3g} x tolerance)")
    if ref["post_spike"].sum() == 0 or (ref["post_spike"].sum(axis=0) == 0).any():
        fails.append("cross-check: a target never fired (the case does not exercise the post updates)")
    return fails


def write_protocol_dump(dump_dir, phases, seed, **params):
    """A reference_model.py dump (double) of the savings protocol on Poisson-Gaussian inputs drawn with seed, with
    parameters params replacing the ModelDB ones; returns its case."""
    flags = reference_model.poisson_gaussian_flags(N_INPUTS, phases, 1.0, seed=seed)
    case = reference_model.make_case("nxm", N_INPUTS, 1, flags.shape[0], 1.0, "poisson_gaussian", "model",
                                     connectivity="all", phases=[[p, d] for p, d in phases])
    case["parameters"].update(params)
    reference_model.write_reference_dump(dump_dir, case, reference_model.connectivity("all", N_INPUTS, 1),
                                         pre_flags=flags, variables=["U", "A", "V", "VT", "x", "I"])
    return case


def selftest(phases, seeds, window_s):
    """A dump of reference_model.py (double) on the protocol must pass, both comparisons."""
    tmp = tempfile.mkdtemp(prefix="neofytou_b2_selftest_")
    try:
        t0 = time.time()
        write_protocol_dump(tmp, phases, 12345)
        print(f"selftest: reference dump written in {time.time() - t0:.0f} s", flush=True)
        rc = compare(tmp, phases, seeds, window_s)
        # A wrong model (eta_A = 0.35 instead of 0.15, case.json claiming the ModelDB values) must fail the
        # same-input comparison.
        short = [(25.0, 1.0), (75.0, 2.0)]
        bad = os.path.join(tmp, "wrong")
        case = write_protocol_dump(bad, short, 54321, etaA=0.35)
        case["parameters"]["etaA"] = reference_model.PARAMETERS["etaA"]
        with open(os.path.join(bad, "case.json"), "w") as f:
            json.dump(case, f)
        rc_bad = compare(bad, short, seeds[:1], window_s, do_stats=False)
        print("selftest: Brian2 vs reference.py on several targets:")
        cross = cross_check_reference()
        for f in cross:
            print(f"FAIL: {f}")
        print(f"selftest: protocol dump -> {rc} (expected 0); wrong-model dump -> {rc_bad} (expected 1); "
              f"multi-target cross-check {'ok' if not cross else 'FAIL'}")
        ok = rc == 0 and rc_bad == 1 and not cross
        print("SELFTEST " + ("PASSED" if ok else "FAILED"))
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump_dir", nargs="?")
    ap.add_argument("--phases", default=None, help=f"pos:seconds,... (default: the dump's, else {DEFAULT_PHASES})")
    ap.add_argument("--seeds", default="1,2,3,4,5", help="Brian2 seeds of the statistical comparison")
    ap.add_argument("--window", type=float, default=5.0, help="averaging window: last seconds of each phase")
    ap.add_argument("--no-same-input", action="store_true")
    ap.add_argument("--no-stats", action="store_true")
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args(argv)
    phases = reference_model.parse_phases(args.phases) if args.phases else None
    seeds = [int(s) for s in args.seeds.split(",") if s]
    if args.selftest:
        return selftest(phases or reference_model.parse_phases(DEFAULT_PHASES), seeds, args.window)
    if not args.dump_dir:
        ap.error("give KBRAIN_DUMP_DIR or --selftest")
    return compare(args.dump_dir, phases, seeds, args.window, do_same=not args.no_same_input,
                   do_stats=not args.no_stats)


if __name__ == "__main__":
    sys.exit(main())
