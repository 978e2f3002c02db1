#!/usr/bin/env python3
"""Population-level validation against Brian2: COBA, CUBA, COBAHH (4000 neurons) and the Izhikevich 2003 network, in
Brian2 and in kbrain (`kbrain run`, serial backend) over several seeds. The seed-averaged mean rate of each
population must agree within 10 % and the ISI CV within 15 %.

usage: validate_populations.py KBRAIN_EXECUTABLE EXPERIMENTS_DIR [--seeds 1,2,3] [--models coba,cuba,...]
Exit 0: pass, 1: fail, 77: Brian2 not importable (ctest SKIP_RETURN_CODE).
"""
import argparse
import os
import sys
import time

try:
    import numpy as np
    import brian2  # noqa: F401
except ImportError as e:  # pragma: no cover
    print(f"SKIP: Brian2 is not importable with {sys.executable} ({e}); install python3-brian", flush=True)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import brian2_models  # noqa: E402
import kbrain_driver  # noqa: E402
from population_stats import isi_cv, rate_hz  # noqa: E402

RATE_TOL, CV_TOL = 0.10, 0.15
MODELS = {  # name: (brian2 function, experiment file, n_exc, n_total, dt_ms, duration_ms)
    "coba": (brian2_models.coba, "coba.toml", 3200, 4000, 0.1, 1000.0),
    "cuba": (brian2_models.cuba, "cuba.toml", 3200, 4000, 0.1, 1000.0),
    "cobahh": (brian2_models.cobahh, "cobahh.toml", 3200, 4000, 0.1, 1000.0),
    "izhikevich2003": (brian2_models.izhikevich2003, "izhikevich2003.toml", 800, 1000, 1.0, 1000.0),
}


def stats(pops, duration_ms):
    return {p: (rate_hz(t, duration_ms), isi_cv(t)) for p, t in pops.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kbrain")
    ap.add_argument("experiments")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--target", default="numpy", help="Brian2 code generation target (numpy | cython)")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    failures = []
    for name in args.models.split(","):
        b2_fn, toml_name, n_exc, n_total, dt, duration = MODELS[name]
        with open(os.path.join(args.experiments, toml_name)) as f:
            toml_text = f.read()
        b2_stats, kb_stats = [], []
        t_b2 = t_kb = 0.0
        for seed in seeds:
            t0 = time.time()
            b2_stats.append(stats(b2_fn(seed, duration, target=args.target), duration))
            t1 = time.time()
            out = kbrain_driver.run_toml(args.kbrain, kbrain_driver.with_seed(toml_text, seed), f"{name}_{seed}")
            kb_stats.append(stats(kbrain_driver.spike_trains(out, n_exc, n_total, dt), duration))
            t_b2 += t1 - t0
            t_kb += time.time() - t1
        print(f"{name}: {len(seeds)} seeds, Brian2 {t_b2:.1f} s, kbrain {t_kb:.1f} s")
        for pop in ("exc", "inh"):
            b2_rate = np.mean([s[pop][0] for s in b2_stats])
            kb_rate = np.mean([s[pop][0] for s in kb_stats])
            b2_cv = np.mean([s[pop][1] for s in b2_stats])
            kb_cv = np.mean([s[pop][1] for s in kb_stats])
            d_rate = abs(kb_rate - b2_rate) / b2_rate
            d_cv = abs(kb_cv - b2_cv) / b2_cv
            ok = d_rate <= RATE_TOL and d_cv <= CV_TOL
            print(f"  {pop}: rate Brian2 {b2_rate:.3f} Hz, kbrain {kb_rate:.3f} Hz ({100 * d_rate:.1f} %); "
                  f"ISI CV Brian2 {b2_cv:.3f}, kbrain {kb_cv:.3f} ({100 * d_cv:.1f} %)  {'ok' if ok else 'FAIL'}")
            per_seed = ", ".join(f"{b[pop][0]:.2f}/{k[pop][0]:.2f}" for b, k in zip(b2_stats, kb_stats))
            print(f"        per seed rate Brian2/kbrain: {per_seed}")
            if not ok:
                failures.append(f"{name}/{pop}")
        sys.stdout.flush()
    if failures:
        print("FAILED: " + ", ".join(failures))
        return 1
    print("all populations agree with Brian2")
    return 0


if __name__ == "__main__":
    sys.exit(main())
