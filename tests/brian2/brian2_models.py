"""The reference networks and single neurons in Brian2, with the parameter sets of docs/models/point-neurons.md.

Each network function returns {population: list of spike-time arrays (ms)} for one seed. Units: mV, ms, nS, pF.
"""
import numpy as np

import brian2 as b2
from brian2 import ms, mV, nS, pF, second

BRETTE_N, BRETTE_NE, BRETTE_P = 4000, 3200, 0.02


def _setup(seed, target="numpy"):
    b2.start_scope()
    b2.prefs.codegen.target = target
    b2.seed(seed)
    b2.defaultclock.dt = 0.1 * ms


def _spike_trains(monitor, n_exc, n_total, t_offset_ms=0.0):
    trains = monitor.spike_trains()
    exc = [np.asarray(trains[i] / ms) + t_offset_ms for i in range(n_exc)]
    inh = [np.asarray(trains[i] / ms) + t_offset_ms for i in range(n_exc, n_total)]
    return {"exc": exc, "inh": inh}


def _coba_init(P):
    P.v = "-60*mV + (5*randn() - 5)*mV"
    P.ge = "(1.5*randn() + 4) * 10*nS"
    P.gi = "(12*randn() + 20) * 10*nS"


def _cuba_init(P):
    P.v = "-60*mV + rand() * 10*mV"
    P.ge = 0 * mV
    P.gi = 0 * mV


COBA_EQS = """
dv/dt = (10*nS*(-60*mV - v) + ge*(0*mV - v) + gi*(-80*mV - v)) / (200*pF) : volt (unless refractory)
dge/dt = -ge / (5*ms) : siemens
dgi/dt = -gi / (10*ms) : siemens
"""

CUBA_EQS = """
dv/dt = (ge + gi - (v - (-49*mV))) / (20*ms) : volt (unless refractory)
dge/dt = -ge / (5*ms) : volt
dgi/dt = -gi / (10*ms) : volt
"""

HH_EQS = """
dv/dt = (10*nS*(-60*mV - v) + ge*(0*mV - v) + gi*(-80*mV - v)
         - 20000*nS*(m*m*m)*h*(v - 50*mV) - 6000*nS*(n*n*n*n)*(v - (-90*mV)) + I) / (200*pF) : volt
dm/dt = alpha_m*(1 - m) - beta_m*m : 1
dn/dt = alpha_n*(1 - n) - beta_n*n : 1
dh/dt = alpha_h*(1 - h) - beta_h*h : 1
dge/dt = -ge / (5*ms) : siemens
dgi/dt = -gi / (10*ms) : siemens
alpha_m = 0.32*4 / exprel((13*mV - v + VT) / (4*mV)) / ms : Hz
beta_m = 0.28*5 / exprel((v - VT - 40*mV) / (5*mV)) / ms : Hz
alpha_h = 0.128*exp((17*mV - v + VT) / (18*mV)) / ms : Hz
beta_h = 4. / (1 + exp((40*mV - v + VT) / (5*mV))) / ms : Hz
alpha_n = 0.032*5 / exprel((15*mV - v + VT) / (5*mV)) / ms : Hz
beta_n = .5*exp((10*mV - v + VT) / (40*mV)) / ms : Hz
I : amp
"""


def brette_model(name):
    """The neuron group of a Brette et al. 2007 benchmark (coba, cuba, cobahh) as keyword arguments of NeuronGroup
    ("model", "threshold", "reset", "refractory", "method"), with "init" (sets a group's initial values), "receptors"
    (the variables that receptor 0 / 1 synapses add to), "weight_unit" (the unit of kbrain's weights) and "weights"
    (the published excitatory / inhibitory weights, as Brian2 expressions)."""
    if name == "coba":
        return dict(model=COBA_EQS, threshold="v > -50*mV", reset="v = -60*mV", refractory=5 * ms, method="euler",
                    init=_coba_init, receptors=("ge", "gi"), weight_unit=nS, weights=("6*nS", "67*nS"))
    if name == "cuba":
        return dict(model=CUBA_EQS, threshold="v > -50*mV", reset="v = -60*mV", refractory=5 * ms, method="exact",
                    init=_cuba_init, receptors=("ge", "gi"), weight_unit=mV, weights=("1.62*mV", "-9*mV"))
    if name == "cobahh":
        return dict(model=b2.Equations(HH_EQS, VT=-63 * mV), threshold="v > -20*mV", reset="", refractory=3 * ms,
                    method="exponential_euler", init=_coba_init, receptors=("ge", "gi"), weight_unit=nS,
                    weights=("6*nS", "67*nS"))
    raise ValueError(f"no Brian2 model of a Brette et al. 2007 benchmark named {name!r} (coba, cuba, cobahh)")


def neuron_group(spec, n):
    """A NeuronGroup of n neurons of a brette_model spec, initialised."""
    P = b2.NeuronGroup(n, spec["model"], threshold=spec["threshold"], reset=spec["reset"],
                       refractory=spec["refractory"], method=spec["method"])
    spec["init"](P)
    return P


def _brette_network(name, seed, duration_ms, target):
    _setup(seed, target)
    spec = brette_model(name)
    P = neuron_group(spec, BRETTE_N)
    w_e, w_i = spec["weights"]
    ge, gi = spec["receptors"]
    Ce = b2.Synapses(P[:BRETTE_NE], P, on_pre=f"{ge} += {w_e}")
    Ci = b2.Synapses(P[BRETTE_NE:], P, on_pre=f"{gi} += {w_i}")
    Ce.connect(p=BRETTE_P)
    Ci.connect(p=BRETTE_P)
    mon = b2.SpikeMonitor(P)
    b2.run(duration_ms * ms)
    return _spike_trains(mon, BRETTE_NE, BRETTE_N)


def coba(seed, duration_ms=1000.0, target="numpy"):
    return _brette_network("coba", seed, duration_ms, target)


def cuba(seed, duration_ms=1000.0, target="numpy"):
    return _brette_network("cuba", seed, duration_ms, target)


def cobahh(seed, duration_ms=1000.0, target="numpy"):
    return _brette_network("cobahh", seed, duration_ms, target)


def izhikevich2003(seed, duration_ms=1000.0, target="numpy"):
    """net.m of Izhikevich (2003) step for step: dt = 1 ms; threshold/reset, then I = noise + fired columns, then
    two half steps of v and one of u (run_regularly at the end of the step)."""
    b2.start_scope()
    b2.prefs.codegen.target = target
    b2.seed(seed)
    b2.defaultclock.dt = 1 * ms
    ne, ni = 800, 200
    G = b2.NeuronGroup(ne + ni, """v : 1
                                  u : 1
                                  a : 1
                                  b : 1
                                  c : 1
                                  d : 1
                                  I : 1
                                  noise_sd : 1""", threshold="v >= 30", reset="v = c; u = u + d")
    r = np.random.RandomState(seed).rand(ne + ni)
    G.a = np.r_[0.02 * np.ones(ne), 0.02 + 0.08 * r[ne:]]
    G.b = np.r_[0.2 * np.ones(ne), 0.25 - 0.05 * r[ne:]]
    G.c = np.r_[-65 + 15 * r[:ne] ** 2, -65 * np.ones(ni)]
    G.d = np.r_[8 - 6 * r[:ne] ** 2, 2 * np.ones(ni)]
    G.noise_sd = np.r_[5 * np.ones(ne), 2 * np.ones(ni)]
    G.v = -65
    G.u = "b * v"
    G.run_regularly("I = noise_sd * randn()", when="start")
    G.run_regularly("""v += 0.5*(0.04*v**2 + 5*v + 140 - u + I)
                       v += 0.5*(0.04*v**2 + 5*v + 140 - u + I)
                       u += a*(b*v - u)""", when="end")
    S = b2.Synapses(G, G, "w : 1", on_pre="I_post += w")
    S.connect()  # every pair, self included
    S.w["i < 800"] = "0.5*rand()"
    S.w["i >= 800"] = "-rand()"
    mon = b2.SpikeMonitor(G)
    b2.run(duration_ms * ms)
    # net.m reports a spike one step later (at the start of the next ms); the rates do not care.
    return _spike_trains(mon, ne, ne + ni)
