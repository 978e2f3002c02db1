#!/usr/bin/env python3
"""Single-neuron validation against Brian2: LIF (euler, exact, rk4), HH Traub-Miles (exponential_euler) and
Izhikevich (euler) under constant drive, same method and dt (0.1 ms) as Brian2, 1 s in double precision. The voltage
traces must agree within 1e-6 mV at every step, and the neuron must spike (so the test covers threshold and reset).

usage: validate_single_neurons.py KBRAIN_EXECUTABLE     Exit 0: pass, 1: fail, 77: Brian2 not importable.
"""
import os
import sys

try:
    import numpy as np
    import brian2 as b2
    from brian2 import ms, mV, nS, pA, pF
except ImportError as e:  # pragma: no cover
    print(f"SKIP: Brian2 is not importable with {sys.executable} ({e}); install python3-brian", flush=True)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import brian2_models  # noqa: E402
import kbrain_driver  # noqa: E402

TOL_MV = 1e-6
STEPS = 10000  # 1 s at 0.1 ms


def brian2_trace(eqs, threshold, reset, refractory, method, init, namespace=None, unit=mV):
    b2.start_scope()
    b2.prefs.codegen.target = "numpy"
    b2.defaultclock.dt = 0.1 * ms
    G = b2.NeuronGroup(1, eqs, threshold=threshold, reset=reset, refractory=refractory, method=method)
    for name_, value_ in init.items():
        setattr(G, name_, value_)
    mon = b2.StateMonitor(G, "v", record=0)
    spikes = b2.SpikeMonitor(G)
    b2.run(STEPS * 0.1 * ms, namespace=namespace or {})
    trace = mon.v[0] / unit if unit is not None else mon.v[0]
    return np.asarray(trace, dtype=float), int(spikes.num_spikes)


def kbrain_toml(kind, pset, integrator, current, initial_v, extra=""):
    return f"""name = "single_{kind}_{integrator}"
[model]
kind = "{kind}"
parameter_set = "{pset}"
integrator = "{integrator}"
initial_v = {initial_v}
{extra}
[simulation]
dt = 0.1
steps = {STEPS}
[network]
type = "none"
neurons = 1
excitatory = 1
[[input]]
kind = "current"
mean = {current}
[record]
variables = ["v"]
neurons = [0]
"""


def compare(label, b2_v, b2_spikes, kbrain, toml):
    out = kbrain_driver.run_toml(kbrain, toml, label)
    steps, kb_v = kbrain_driver.trace(out)
    # Brian2's StateMonitor records v at the start of step k (= after k updates); kbrain's row 'step' = updates done.
    n = min(len(b2_v), int(steps[-1]))
    diff = np.abs(kb_v[: n - 1] - b2_v[1:n])
    worst = float(diff.max())
    ok = worst <= TOL_MV and b2_spikes >= 3
    print(f"{label}: {b2_spikes} spikes, max |dv| = {worst:.3e} mV over {n - 1} steps  {'ok' if ok else 'FAIL'}",
          flush=True)
    return ok


def main():
    kbrain = sys.argv[1]
    ok = True
    lif_eqs = "dv/dt = (10*nS*(-60*mV - v) + I) / (200*pF) : volt (unless refractory)\nI : amp"
    for method, integrator in (("euler", "euler"), ("exact", "exact"), ("rk4", "rk4")):
        v, n = brian2_trace(lif_eqs, "v > -50*mV", "v = -60*mV", 5 * ms, method, {"v": -60 * mV, "I": 250 * pA})
        ok &= compare(f"lif_{integrator}", v, n, kbrain, kbrain_toml("lif", "lif", integrator, 250.0, -60.0))
    hh_eqs = b2.Equations(brian2_models.HH_EQS, VT=-63 * mV)
    v, n = brian2_trace(hh_eqs, "v > -20*mV", "", 3 * ms, "exponential_euler",
                        {"v": -65 * mV, "I": 200 * pA, "ge": 0 * nS, "gi": 0 * nS})
    ok &= compare("hh_exponential_euler", v, n, kbrain,
                  kbrain_toml("hh", "cobahh", "exponential_euler", 200.0, -65.0))
    izh_eqs = """dv/dt = (0.04*v**2 + 5*v + 140 - u + I) / ms : 1
                 du/dt = a*(b*v - u) / ms : 1
                 I : 1"""
    v, n = brian2_trace(izh_eqs, "v >= 30", "v = c; u += d", False, "euler", {"v": -65, "u": 0.2 * -65, "I": 10},
                        namespace={"a": 0.02, "b": 0.2, "c": -65, "d": 8}, unit=None)
    ok &= compare("izhikevich_euler", v, n, kbrain,
                  kbrain_toml("izhikevich", "izhikevich2003", "euler", 10.0, -65.0,
                              "[model.parameters]\na = 0.02\nb = 0.2\nc = -65\nd = 8\n"))
    print("all single-neuron traces agree with Brian2" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
