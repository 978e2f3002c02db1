"""Brian2 model of ModelDB 184487 `prepostSTDP_savings.py` (Costa et al. 2015; spec docs/specs/neofytou.md §2, §3):
the AdEx neuron and the Costa STP/STDP synapse as model strings, and the pieces of a network built from them, used
by brian2_savings.py (the savings protocol and its comparisons) and brian2_timing.py (the Table 6.1 benchmark).
Importing it exits with 77 when Brian2 is not importable (ctest SKIP_RETURN_CODE).

Port notes. Brian2 has no mean() in on_post and its on_pre assignment of a postsynaptic variable from several
synapses at once is order dependent (Brian2 warns so; the numpy target happens to keep the largest index). So
on_pre stores target_I in the synapse and on_post the m-bar summand; a network_operation after the synapses (same
step, before the next state update) sets I_j from the largest spiking input index and subtracts
0.5*eta_A*mean(summands over the synapses of the posts that fired) from A, then clips (finish_step).
"""
import math
import os
import sys
import warnings

try:
    import numpy as np
    warnings.filterwarnings("ignore")
    import brian2 as b2
    from brian2 import Hz, ms, mV, nS, pA, pF
except ImportError as e:  # pragma: no cover
    print(f"SKIP: Brian2 is not importable with {sys.executable} ({e}); install python3-brian", flush=True)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_model  # noqa: E402

N_INPUTS = 100
WATCH = (24, 74)  # inputs 25 and 75 (1-based in the ModelDB code)

EQS_NEURON = """
dvm/dt = (gL*(EL-vm) + gL*DeltaT*exp((vm-vt)/DeltaT) + I - x)/C : volt
dvt/dt = -(vt-vtrest)/tauvt : volt
dx/dt = (c*(vm-EL) - x)/tauw : amp
I : amp
"""
EQS_SYN = """
w : 1
U : 1
A : 1
dFFp/dt = -FFp/tau_FFp : 1 (event-driven)
dFBp/dt = -FBp/tau_FBp : 1 (event-driven)
dFBn/dt = -FBn/tau_FBn : 1 (event-driven)
dR/dt = (1-R)/tau_r : 1 (event-driven)
du/dt = (U-u)/tau_u : 1 (event-driven)
target_I : amp
prespk : 1
postspk : 1
summand : 1
"""
ON_PRE = """
target_I = s*A*R*u
U = clip(U + etaU*(-AFBn*FBn*FBp + AFBp*FBp*FFp), Umin, Umax)
w = U*A
FFp += 1
R -= R*u
u += U*(1-u)
prespk = 1
"""
ON_POST = """
summand = AFFp*FFp*FBn
A = A + etaA*summand
postspk = 1
FBp += 1
FBn += 1
"""


def namespace(p):
    return {
        "C": p["C"] * pF, "gL": p["gL"] * nS, "EL": p["EL"] * mV, "DeltaT": p["DeltaT"] * mV,
        "vtrest": p["VTrest"] * mV, "VTmax": p["VTmax"] * mV, "tauvt": p["tauVT"] * ms, "tauw": p["tauw"] * ms,
        "c": p["c"] * nS, "b": p["b"] * pA, "Vr": p["Vr"] * mV,
        "tau_FFp": p["tau_FFp"] * ms, "tau_FBp": p["tau_FBp"] * ms, "tau_FBn": p["tau_FBn"] * ms,
        "tau_r": p["tau_r"] * ms, "tau_u": p["tau_u"] * ms, "s": p["s"] * pA,
        "AFBn": p["AFBn"], "AFBp": p["AFBp"], "AFFp": p["AFFp"], "etaU": p["etaU"], "etaA": p["etaA"],
        "Umin": p["Umin"], "Umax": p["Umax"], "Amin": p["Amin"], "Amax": p["Amax"],
    }


def make_neurons(n, p, events=None):
    """n AdEx neurons at rest (V = EL, VT = VTrest, x = I = 0); events: extra custom events {name: condition}."""
    neurons = b2.NeuronGroup(n, EQS_NEURON, threshold="vm > vt", reset="vm = Vr; x += b; vt = VTmax",
                             method="euler", events=events, name="adex")
    neurons.vm = p["EL"] * mV
    neurons.vt = p["VTrest"] * mV
    return neurons


def make_synapses(source, neurons, conn, p, on_event="spike"):
    """Costa synapses on the connected slots of conn (n_source, n_post) bool, synapse k = the k-th connected slot in
    row-major i*n_post + j order, in the initial state of spec §3; on_event: the event of source and target that
    triggers on_pre and on_post."""
    syn = b2.Synapses(source, neurons, EQS_SYN, on_pre=ON_PRE, on_post=ON_POST,
                      on_event={"pre": on_event, "post": on_event}, name="syn")
    ci, cj = np.nonzero(conn)
    syn.connect(i=ci, j=cj)
    syn.R = 1.0
    syn.u = 0.0
    pre = np.asarray(syn.i[:])
    syn.U = np.array([reference_model.initial_U(i, p) for i in range(int(conn.shape[0]))])[pre]
    syn.A = np.array([reference_model.initial_A(i, p) for i in range(int(conn.shape[0]))])[pre]
    return syn


def make_finish_step(syn, neurons, p):
    """The network operation that ends a step after the synapses: the winner rule (I_j <- target_I of the spiking
    synapse with the largest presynaptic index onto j) and the m-bar subtraction over the synapses whose post fired
    (A <- clip(A - eta_A*0.5*mean(summand)), math.fsum: the correctly rounded sum)."""
    pre_index = np.asarray(syn.i[:])
    post_index = np.asarray(syn.j[:])
    by_post_pre = np.lexsort((pre_index, post_index))  # by post, then by ascending pre: a post's winner comes last
    etaA, Amin, Amax = p["etaA"], p["Amin"], p["Amax"]
    v = syn.variables

    @b2.network_operation(when="after_synapses")
    def finish_step():
        prespk = v["prespk"].get_value()
        if prespk.any():
            spiking = by_post_pre[prespk[by_post_pre] != 0]
            posts = post_index[spiking]
            winners = spiking[np.append(posts[1:] != posts[:-1], True)]  # the last (largest pre) of each post
            neurons.variables["I"].get_value()[post_index[winners]] = v["target_I"].get_value()[winners]
            prespk[:] = 0
        postspk = v["postspk"].get_value()
        if postspk.any():
            sel = postspk != 0
            mbar = math.fsum(v["summand"].get_value()[sel]) / int(sel.sum())
            A = v["A"].get_value()
            A[sel] = np.clip(A[sel] - etaA * 0.5 * mbar, Amin, Amax)
            postspk[:] = 0

    return finish_step


def run_brian2(phases, dt_ms=1.0, seed=None, input_flags=None, params=None, record_all=False, conn=None):
    """One Brian2 run. phases: [(pos, seconds)]; input_flags: (steps, n_inputs) 0/1 to replay instead of Poisson
    draws; conn: (n_inputs, n_post) bool (default: 100 x 1, all connected; only with input_flags otherwise).

    Returns {'post_steps': array of the post spike steps of target 0, 'post_flags': (steps, n_post) bool,
    'U', 'A': (steps, n_synapses or len(WATCH)) after each step (columns: synapses in row-major i*n_post+j order of
    the connected slots, or WATCH), 'V', 'VT', 'x', 'I': (steps, n_post) after each step (record_all only)}.
    """
    conn = np.ones((N_INPUTS, 1), dtype=bool) if conn is None else np.asarray(conn, dtype=bool)
    n_inputs, n_post = conn.shape
    assert input_flags is not None or n_inputs == N_INPUTS
    p = dict(reference_model.PARAMETERS, **(params or {}))
    b2.start_scope()
    b2.prefs.codegen.target = "numpy"
    b2.defaultclock.dt = dt_ms * ms
    if seed is not None:
        b2.seed(seed)
    neurons = make_neurons(n_post, p)
    if input_flags is not None:
        st, idx = np.nonzero(np.asarray(input_flags))
        inputs = b2.SpikeGeneratorGroup(n_inputs, idx, st * dt_ms * ms, name="inputs")
    else:
        inputs = b2.PoissonGroup(N_INPUTS, rates=reference_model.gaussian_rates_hz(N_INPUTS, phases[0][0]) * Hz,
                                 name="inputs")
    syn = make_synapses(inputs, neurons, conn, p)
    finish_step = make_finish_step(syn, neurons, p)
    watch = np.arange(int(conn.sum())) if record_all else np.array(WATCH)
    smon = b2.StateMonitor(syn, ["U", "A"], record=watch, when="end", order=10)
    nmon = b2.StateMonitor(neurons, ["vm", "vt", "x", "I"], record=True, when="end", order=10) if record_all else None
    spikes = b2.SpikeMonitor(neurons)
    net = b2.Network(neurons, inputs, syn, finish_step, smon, spikes)
    if nmon is not None:  # (a StateMonitor with nothing recorded yet is falsy)
        net.add(nmon)
    ns = namespace(p)
    for pos, dur in phases:
        if input_flags is None:
            inputs.rates = reference_model.gaussian_rates_hz(N_INPUTS, pos) * Hz
        net.run(dur * b2.second, namespace=ns)
    steps = sum(reference_model.phase_steps(phases, dt_ms))
    post_flags = np.zeros((steps, n_post), dtype=bool)
    post_flags[np.round(np.asarray(spikes.t / ms) / dt_ms).astype(int), np.asarray(spikes.i)] = True
    out = {"post_steps": np.flatnonzero(post_flags[:, 0]), "post_flags": post_flags,
           "U": np.asarray(smon.U).T, "A": np.asarray(smon.A).T, "watch": watch}
    if nmon is not None:
        out.update(V=np.asarray(nmon.vm / mV).T, VT=np.asarray(nmon.vt / mV).T, x=np.asarray(nmon.x / pA).T,
                   I=np.asarray(nmon.I / pA).T)
    return out
