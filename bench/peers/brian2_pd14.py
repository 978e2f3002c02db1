#!/usr/bin/env python3
"""An external reference for kbrain's population networks of NEST's iaf_psc_exp (parameter_set = "pd14"): Brian2's
C++ standalone device simulates the network kbrain generated and exported (`[record] synapses = true`: the synapses,
every neuron's initial v, constant current and Poisson drive), and writes its spikes as a kbrain run folder
(spikes.csv, run.json with the populations' layout), so that `kbrain stats KBRAIN_RUN BRIAN2_RUN` compares the two
(rates, ISI CVs, correlation coefficients, KS distances; docs/models/pd14.md).

    brian2_pd14.py KBRAIN_RUN OUT [--steps S] [--seed K] [--threads T]

KBRAIN_RUN: a finished `kbrain run` of a population network with `[record] synapses = true` (pd14_small.toml with
that key). The model, written in kbrain's units (current synapses in mV = R_m I, currents in pA through g_L):
    dv/dt = (E_L - v + ge + gi + I_e / g_L) / tau_m,  dge/dt = -ge / tau_s,  dgi/dt = -gi / tau_s   (exact)
    threshold v >= V_th, reset v = V_reset, refractory 2.1 ms (Brian2 holds timestep(t - lastspike) < 21 steps: the
    20 steps NEST holds after the spike step), on_pre ge += w after D steps (the same arrival step as kbrain's).
The Poisson drive is Brian2's PoissonInput (a binomial count per neuron and step with the same mean). Brian2 draws
its own random numbers: the two agree statistically, not spike for spike.
Exit 77 when numpy or Brian2 is not importable.
"""
import argparse
import json
import os
import sys

try:
    import numpy as np
    import brian2 as b2
except ImportError as e:  # pragma: no cover
    print(f"Brian2 is not importable with {sys.executable} ({e}); install python3-brian", flush=True)
    sys.exit(77)

ARRAYS = ("sources", "targets", "weights", "delays", "receptors")


def load_run(run):
    with open(os.path.join(run, "run.json")) as f:
        info = json.load(f)
    if not info.get("complete"):
        raise SystemExit(f"{run}: run.json does not say complete")
    if info.get("parameter_set") != "pd14":
        raise SystemExit(f"{run}: parameter_set is {info.get('parameter_set')!r}; this port models pd14")
    names = info["populations"].split(",")
    pops = [(n, int(info[f"first_{n}"]), int(info[f"neurons_{n}"])) for n in names]
    return info, pops


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run")
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=0, help="steps to simulate (default: the kbrain run's, warm-up too)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    info, pops = load_run(a.run)
    dt_ms = float(info["dt_ms"])
    steps = a.steps or int(info["steps"]) + int(info.get("warmup_steps", 0))
    n = int(info["neurons"])
    arr = {k: np.load(os.path.join(a.run, f"synapses_{k}.npy")) for k in ARRAYS}
    v0 = np.load(os.path.join(a.run, "neurons_v0.npy"))
    i_ext = np.load(os.path.join(a.run, "neurons_i_ext.npy"))
    lam_file = os.path.join(a.run, "neurons_poisson_lambda.npy")
    lam = np.load(lam_file) if os.path.exists(lam_file) else None
    w_drive = np.load(os.path.join(a.run, "neurons_poisson_weight.npy")) if lam is not None else None

    project = os.path.join(a.out, "brian2_project")
    os.makedirs(a.out, exist_ok=True)
    b2.set_device("cpp_standalone", directory=project, build_on_run=False)
    b2.prefs.devices.cpp_standalone.openmp_threads = a.threads
    b2.prefs.devices.cpp_standalone.extra_make_args_unix = ["-j2"]
    b2.defaultclock.dt = dt_ms * b2.ms
    b2.seed(a.seed)
    ms, mV = b2.ms, b2.mV
    tau_m, tau_s, e_l, v_th, v_reset, g_l = 10 * ms, 0.5 * ms, -65 * mV, -50 * mV, -65 * mV, 25.0  # g_L in nS
    eqs = """dv/dt = (e_l - v + ge + gi + ie) / tau_m : volt (unless refractory)
             dge/dt = -ge / tau_s : volt
             dgi/dt = -gi / tau_s : volt
             ie : volt (constant)"""
    P = b2.NeuronGroup(n, eqs, threshold="v >= v_th", reset="v = v_reset", refractory=(21 * dt_ms) * ms,
                       method="exact", namespace=dict(tau_m=tau_m, tau_s=tau_s, e_l=e_l, v_th=v_th, v_reset=v_reset))
    P.v = v0 * mV
    P.ie = (i_ext / g_l) * mV
    objects = [P]
    for receptor, var in enumerate(("ge", "gi")):
        m = arr["receptors"] == receptor
        if not m.any():
            continue
        S = b2.Synapses(P, P, model="w : volt", on_pre=f"{var} += w", name=f"synapses_{var}")
        S.connect(i=arr["sources"][m], j=arr["targets"][m])
        S.w = arr["weights"][m] * mV
        S.delay = arr["delays"][m] * dt_ms * ms
        objects.append(S)
    if lam is not None:  # one PoissonInput per population (the drive is uniform within a population)
        for name, first, size in pops:
            l, w = lam[first], w_drive[first]
            if l <= 0:
                continue
            sub = P[first:first + size]
            # a count per neuron and step of mean l: Brian2's binomial of N sources at rate r (N large, r dt small)
            sources = 10000
            objects.append(b2.PoissonInput(sub, "ge", sources, (l / sources / (dt_ms * 1e-3)) * b2.Hz, w * mV))
    mon = b2.SpikeMonitor(P)
    b2.Network(*objects, mon).run(steps * dt_ms * ms)
    b2.device.build(directory=project, compile=True, run=True, with_output=False)
    i = np.asarray(mon.i[:], dtype=np.int64)
    step = np.rint(np.asarray(mon.t[:] / ms) / dt_ms).astype(np.int64) + 1  # kbrain's step: updates done
    order = np.lexsort((i, step))
    with open(os.path.join(a.out, "spikes.csv"), "w") as f:
        f.write("step,cell\n")
        for s, c in zip(step[order], i[order]):
            f.write(f"{s},{c}\n")
    out = {"complete": True, "experiment": info.get("experiment", "") + "_brian2", "simulator": f"brian2 {b2.__version__}",
           "dt_ms": dt_ms, "steps": steps, "neurons": n, "populations": info["populations"]}
    for name, first, size in pops:
        out[f"first_{name}"] = first
        out[f"neurons_{name}"] = size
        k = np.count_nonzero((i >= first) & (i < first + size))
        out[f"rate_hz_{name}"] = k / size / (steps * dt_ms * 1e-3)
    with open(os.path.join(a.out, "run.json"), "w") as f:
        json.dump(out, f, indent=2)
    print(" ".join(f"{name} {out[f'rate_hz_{name}']:.3g} Hz" for name, _, _ in pops))


if __name__ == "__main__":
    main()
