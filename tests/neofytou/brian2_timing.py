#!/usr/bin/env python3
"""Brian2 version of the Neofytou 2019 Table 6.1 benchmark (its Brian column, Brian 1.x: 6.88 s, 305.81 s,
2459.35 s for n = 100, 500, 1000): MxM, n AdEx neurons, Costa synapses on all n x n pairs, every neuron firing at
every step (imposed), 1000 steps of 1 ms. The model is the savings port's (brian2_model.py): the AdEx equations,
the Costa on_pre / on_post code, and the network operation after the synapses that applies the winner rule to I and
the m-bar subtraction to A. The imposed pattern is a custom event `imposed` (condition True) of the AdEx group that
drives both pathways, so the neurons still integrate, cross and reset on their own, as in the spec's mxm `all`.

usage: brian2_timing.py --n N [--steps S]
Prints one JSON line {"n", "steps", "seconds", "target", "build_seconds"}: seconds is the wall time of the timed
run() only; build_seconds the construction of the network and a run of 0 steps (code generation and compilation);
target the code generation target Brian2 used (the default runtime target, 'auto': cython when it can compile,
else numpy). Exit 0, or 1 when the final synaptic traces show that some step was not all-firing; 77 without Brian2.
"""
import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import brian2_model  # noqa: E402  (exits 77 without Brian2)
import reference_model  # noqa: E402
import brian2 as b2  # noqa: E402
import numpy as np  # noqa: E402

TARGET_NAMES = {"CythonCodeObject": "cython", "NumpyCodeObject": "numpy"}


def targets_used(net):
    """The code generation targets of the network's code objects, e.g. 'cython' (or 'cython+numpy')."""
    runners = [c for obj in net.objects for c in [obj] + list(getattr(obj, "contained_objects", []))]
    names = {type(c.codeobj).__name__ for c in runners if getattr(c, "codeobj", None) is not None}
    return "+".join(sorted(TARGET_NAMES.get(n, n) for n in names)) or "none"


def trace_after_all_firing(steps, dt_ms, tau_ms):
    """A trace incremented by 1 at every one of `steps` steps, right after the last increment."""
    return (1.0 - math.exp(-steps * dt_ms / tau_ms)) / (1.0 - math.exp(-dt_ms / tau_ms))


def benchmark(n, steps, dt_ms=1.0):
    p = dict(reference_model.PARAMETERS)
    t0 = time.perf_counter()
    b2.start_scope()
    b2.defaultclock.dt = dt_ms * b2.ms
    neurons = brian2_model.make_neurons(n, p, events={"imposed": "True"})
    syn = brian2_model.make_synapses(neurons, neurons, np.ones((n, n), dtype=bool), p, on_event="imposed")
    net = b2.Network(neurons, syn, brian2_model.make_finish_step(syn, neurons, p))
    ns = brian2_model.namespace(p)
    net.run(0 * b2.ms, namespace=ns)
    build = time.perf_counter() - t0
    t1 = time.perf_counter()
    net.run(steps * dt_ms * b2.ms, namespace=ns)
    seconds = time.perf_counter() - t1
    # Every step all-firing: every synapse's FFp and FBp were incremented at every step.
    ok = True
    for var, tau in (("FFp", p["tau_FFp"]), ("FBp", p["tau_FBp"])):
        want = trace_after_all_firing(steps, dt_ms, tau)
        got = np.asarray(getattr(syn, var)[:])
        if not np.allclose(got, want, rtol=1e-9, atol=0.0):
            print(f"FAIL: {var} ranges over [{got.min()!r}, {got.max()!r}], expected {want!r} after {steps} "
                  "all-firing steps", file=sys.stderr)
            ok = False
    out = {"n": n, "steps": steps, "seconds": round(seconds, 3), "target": targets_used(net),
           "build_seconds": round(build, 3)}
    return out, ok


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, required=True, help="neurons (n x n synapses)")
    ap.add_argument("--steps", type=int, default=1000, help="steps of 1 ms (default 1000)")
    args = ap.parse_args(argv)
    out, ok = benchmark(args.n, args.steps)
    print(json.dumps(out), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
