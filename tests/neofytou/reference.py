#!/usr/bin/env python3
"""CLI and self-test of the NumPy (float64) reference of the Neofytou 2019 model (AdEx + Costa 2015 STP/STDP on a
dense plastic matrix); the model itself, written to follow docs/specs/neofytou.md sections 2-6 literally, one
synapse at a time, is in reference_model.py (run_case).

usage:
  reference.py --selftest
  reference.py --write-dump DIR [--architecture mxm|nxm] [--n-pre N] [--n-post M] [--steps S] [--dt MS]
               [--pattern all|even|model|poisson_gaussian] [--post-events model|imposed|none]
               [--connectivity all|post_even|pre_even|both_even] [--phases 25:1,75:20] [--seed K]
               [--float] [--variables U,A]
  (--write-dump writes a dump of the reference itself, in the kbrain dump format, for testing the checkers;
   --float rounds every written value to float32 and records precision "float".)
"""
import argparse
import os
import shutil
import sys
import tempfile

try:
    import numpy as np
except ImportError:  # ctest counts exit 77 as skipped (the GPU machine has no NumPy)
    print(f"numpy is not importable by {sys.executable}")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_model import (check_invariants, connectivity, make_case, parse_phases, phase_steps,  # noqa: E402
                             poisson_gaussian_flags, run_case, write_reference_dump)


def selftest():
    """The 10x10 mxm even-pattern, 50 % connectivity (conn(i,j) = j even) case for 20 steps: invariants, then our own
    dump must pass check_reference.py and perturbed dumps must fail it."""
    import check_reference
    ok = True
    case = make_case("mxm", 10, 10, 20, 1.0, "even", "model", connectivity="post_even")
    conn = connectivity("post_even", 10, 10)
    res = run_case(case, conn)
    bad = check_invariants(res, conn)
    print(f"selftest mxm 10x10 even: invariants {'ok' if not bad else 'FAIL ' + '; '.join(bad)}")
    ok &= not bad
    sel = conn.reshape(-1)
    print(f"  U range [{np.nanmin(res['U'][:, sel]):.4g}, {np.nanmax(res['U'][:, sel]):.4g}], "
          f"A range [{np.nanmin(res['A'][:, sel]):.4g}, {np.nanmax(res['A'][:, sel]):.4g}], "
          f"neuron crossings {int(res['fired'].sum())}")
    tmp = tempfile.mkdtemp(prefix="neofytou_selftest_")
    try:
        d = os.path.join(tmp, "mxm")
        write_reference_dump(d, case, conn)
        rc = check_reference.main([d])
        print(f"selftest: own mxm dump -> check_reference exit {rc} (expected 0)")
        ok &= rc == 0
        # Perturb one synapse value by 1e-10 relative: must fail.
        _perturb(os.path.join(d, "dump.csv"), "13,A,", 1.0 + 1e-10)
        rc = check_reference.main([d])
        print(f"selftest: perturbed A (1e-10 rel.) -> exit {rc} (expected 1)")
        ok &= rc == 1
        # Float-rounded dump: passes --precision float, fails double.
        f = os.path.join(tmp, "mxm_float")
        write_reference_dump(f, dict(case, precision="float"), conn, as_float=True)
        rc_f = check_reference.main([f])
        rc_d = check_reference.main([f, "--precision", "double"])
        print(f"selftest: float-rounded dump -> float exit {rc_f} (expected 0), double exit {rc_d} (expected 1)")
        ok &= rc_f == 0 and rc_d == 1
        # The original: 100 inputs -> 1 AdEx, Poisson-Gaussian at position 25, 1 s, model post events.
        case2 = make_case("nxm", 100, 1, 1000, 1.0, "poisson_gaussian", "model", connectivity="all")
        conn2 = connectivity("all", 100, 1)
        flags = poisson_gaussian_flags(100, [(25.0, 1.0)], 1.0, seed=7)
        d2 = os.path.join(tmp, "nxm")
        res2 = write_reference_dump(d2, case2, conn2, pre_flags=flags)
        bad = check_invariants(res2, conn2)
        print(f"selftest nxm 100x1 Poisson-Gaussian 1 s: {int(flags.sum())} input spikes, "
              f"{int(res2['post_spike'].sum())} post spikes; invariants {'ok' if not bad else 'FAIL ' + str(bad)}")
        ok &= not bad and res2["post_spike"].sum() > 0
        rc = check_reference.main([d2])
        print(f"selftest: own nxm dump -> exit {rc} (expected 0)")
        ok &= rc == 0
        # Flip one post spike flag: must fail.
        _flip_flag(os.path.join(d2, "dump.csv"), "post_spike")
        rc = check_reference.main([d2])
        print(f"selftest: flipped post_spike flag -> exit {rc} (expected 1)")
        ok &= rc == 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("SELFTEST " + ("PASSED" if ok else "FAILED"))
    return 0 if ok else 1


def _perturb(path, prefix, factor):
    lines = open(path).read().splitlines(True)
    for n, line in enumerate(lines):
        if line.startswith(prefix):
            st, var, idx, val = line.strip().split(",")
            lines[n] = f"{st},{var},{idx},{float(val) * factor:.17g}\n"
            break
    else:
        raise RuntimeError(f"no row starting {prefix!r}")
    open(path, "w").writelines(lines)


def _flip_flag(path, var):
    """Flips the first 1 of var (0 -> 1 if there is none) after step 100."""
    lines = open(path).read().splitlines(True)
    cand = [n for n, l in enumerate(lines[1:], 1) if f",{var}," in l and int(l.split(",")[0]) >= 100]
    pick = next((n for n in cand if lines[n].strip().endswith(",1")), cand[0])
    st, v, idx, val = lines[pick].strip().split(",")
    lines[pick] = f"{st},{v},{idx},{1 - int(val)}\n"
    open(path, "w").writelines(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("--write-dump", metavar="DIR")
    ap.add_argument("--architecture", default="mxm", choices=["mxm", "nxm"])
    ap.add_argument("--n-pre", type=int, default=10)
    ap.add_argument("--n-post", type=int, default=10)
    ap.add_argument("--steps", type=int, default=None, help="default: 20, or the phases' total")
    ap.add_argument("--dt", type=float, default=1.0)
    ap.add_argument("--pattern", default="even", choices=["all", "even", "model", "poisson_gaussian"])
    ap.add_argument("--post-events", default="model", choices=["model", "imposed", "none"])
    ap.add_argument("--connectivity", default="post_even", choices=["all", "post_even", "pre_even", "both_even"])
    ap.add_argument("--phases", default="25:1", help="poisson_gaussian: pos:seconds,...")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--float", action="store_true")
    ap.add_argument("--variables", default=None, help="comma list of per-step variables to write (default all)")
    args = ap.parse_args(argv)
    if args.selftest:
        return selftest()
    if not args.write_dump:
        ap.error("nothing to do: give --selftest or --write-dump DIR")
    flags = None
    extra = {"connectivity": args.connectivity}
    steps = args.steps if args.steps is not None else 20
    if args.pattern == "poisson_gaussian":
        phases = parse_phases(args.phases)
        steps = sum(phase_steps(phases, args.dt))
        flags = poisson_gaussian_flags(args.n_pre, phases, args.dt, args.seed)
        extra.update(phases=[[pos, dur] for pos, dur in phases], seed=args.seed)
    case = make_case(args.architecture, args.n_pre, args.n_post, steps, args.dt, args.pattern, args.post_events,
                     precision="float" if args.float else "double", **extra)
    conn = connectivity(args.connectivity, args.n_pre, args.n_post)
    variables = args.variables.split(",") if args.variables else None
    write_reference_dump(args.write_dump, case, conn, pre_flags=flags, as_float=args.float, variables=variables)
    print(f"wrote {args.write_dump}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
