#!/usr/bin/env python3
"""Brian2 port of ModelDB 184487 `prepostSTDP_savings.py` (Costa et al. 2015; spec docs/specs/neofytou.md §2, §3,
§5): 100 Poisson inputs with a Gaussian rate profile (F_on 50 Hz, F_off 3 Hz, rad 5, centre 25 or 75) -> 1 AdEx,
dt 1 ms, run as a list of phases (default 1 s at 25, 20 s at 75, 20 s at 25; the original is 1 s at 25 then 50 s
each at 75, 25, 75). Compared with a kbrain dump of the same protocol (see README.md).

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

Port notes. Brian2 has no mean() in on_post and its on_pre assignment of a postsynaptic variable from several
synapses at once is order dependent (Brian2 warns so; the numpy target happens to keep the largest index). So
on_pre stores target_I in the synapse and on_post the m-bar summand; a network_operation after the synapses (same
step, before the next state update) sets I_j from the largest spiking input index and subtracts
0.5*eta_A*mean(summands over the synapses of the posts that fired) from A, then clips.
"""
import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time
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
import dump_io  # noqa: E402
import reference  # noqa: E402

N_INPUTS = 100
WATCH = (24, 74)  # inputs 25 and 75 (1-based in the ModelDB code)
DEFAULT_PHASES = "25:1,75:20,25:20"

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


def run_brian2(phases, dt_ms=1.0, seed=None, input_flags=None, params=None, record_all=False, conn=None):
    """One Brian2 run. phases: [(pos, seconds)]; input_flags: (steps, n_inputs) 0/1 to replay instead of Poisson
    draws; conn: (n_inputs, n_post) bool (default: 100 x 1, all connected; only with input_flags otherwise).

    Returns {'post_steps': array of the post spike steps of target 0, 'post_flags': (steps, n_post) bool,
    'U', 'A': (steps, n_synapses or len(WATCH)) after each step (columns: synapses in row-major i*n_post+j order of
    the connected slots, or WATCH), 'V', 'VT', 'x', 'I': (steps, n_post) after each step (record_all only)}.
    """
    conn = np.ones((N_INPUTS, 1), dtype=bool) if conn is None else np.asarray(conn, dtype=bool)
    n_inputs, n_post = conn.shape
    p = dict(reference.PARAMETERS, **(params or {}))
    b2.start_scope()
    b2.prefs.codegen.target = "numpy"
    b2.defaultclock.dt = dt_ms * ms
    if seed is not None:
        b2.seed(seed)
    neurons = b2.NeuronGroup(n_post, EQS_NEURON, threshold="vm > vt", reset="vm = Vr; x += b; vt = VTmax",
                             method="euler", name="adex")
    neurons.vm = p["EL"] * mV
    neurons.vt = p["VTrest"] * mV
    if input_flags is not None:
        st, idx = np.nonzero(np.asarray(input_flags))
        inputs = b2.SpikeGeneratorGroup(n_inputs, idx, st * dt_ms * ms, name="inputs")
    else:
        inputs = b2.PoissonGroup(N_INPUTS, rates=reference.gaussian_rates_hz(N_INPUTS, phases[0][0]) * Hz,
                                 name="inputs")
    syn = b2.Synapses(inputs, neurons, EQS_SYN, on_pre=ON_PRE, on_post=ON_POST, name="syn")
    ci, cj = np.nonzero(conn)  # row-major: synapse k = k-th connected slot in i*n_post + j order
    syn.connect(i=ci, j=cj)
    syn.R = 1.0
    syn.u = 0.0
    syn.U = np.array([reference.initial_U(i, p) for i in syn.i[:]])
    syn.A = np.array([reference.initial_A(i, p) for i in syn.i[:]])
    pre_index = np.asarray(syn.i[:])
    post_index = np.asarray(syn.j[:])
    by_pre = np.argsort(pre_index, kind="stable")
    etaA, Amin, Amax = p["etaA"], p["Amin"], p["Amax"]
    v = syn.variables

    @b2.network_operation(when="after_synapses")
    def finish_step():
        prespk = v["prespk"].get_value()
        if prespk.any():
            target_I = v["target_I"].get_value()
            I = neurons.variables["I"].get_value()
            spiking = by_pre[prespk[by_pre] != 0]  # in ascending presynaptic index: the largest one wins
            I[post_index[spiking]] = target_I[spiking]  # numpy fancy assignment: the last of repeated indices stays
            for j in np.unique(post_index[spiking]):  # (asserted, not assumed)
                assert I[j] == target_I[spiking[post_index[spiking] == j][-1]]
            prespk[:] = 0
        postspk = v["postspk"].get_value()
        if postspk.any():
            sel = postspk != 0
            summand = v["summand"].get_value()
            mbar = math.fsum(summand[sel]) / int(sel.sum())
            A = v["A"].get_value()
            A[sel] = np.clip(A[sel] - etaA * 0.5 * mbar, Amin, Amax)
            postspk[:] = 0

    watch = np.arange(len(ci)) if record_all else np.array(WATCH)
    rec_vars = ["U", "A"]
    smon = b2.StateMonitor(syn, rec_vars, record=watch, when="end", order=10)
    nmon = b2.StateMonitor(neurons, ["vm", "vt", "x", "I"], record=True, when="end", order=10) if record_all else None
    spikes = b2.SpikeMonitor(neurons)
    assert input_flags is not None or n_inputs == N_INPUTS
    net = b2.Network(neurons, inputs, syn, finish_step, smon, spikes)
    if nmon is not None:  # (a StateMonitor with nothing recorded yet is falsy)
        net.add(nmon)
    ns = namespace(p)
    for pos, dur in phases:
        if input_flags is None:
            inputs.rates = reference.gaussian_rates_hz(N_INPUTS, pos) * Hz
        net.run(dur * b2.second, namespace=ns)
    steps = sum(reference.phase_steps(phases, dt_ms))
    post_flags = np.zeros((steps, n_post), dtype=bool)
    post_flags[np.round(np.asarray(spikes.t / ms) / dt_ms).astype(int), np.asarray(spikes.i)] = True
    out = {"post_steps": np.flatnonzero(post_flags[:, 0]), "post_flags": post_flags,
           "U": np.asarray(smon.U).T, "A": np.asarray(smon.A).T, "watch": watch}
    if nmon is not None:
        out.update(V=np.asarray(nmon.vm / mV).T, VT=np.asarray(nmon.vt / mV).T, x=np.asarray(nmon.x / pA).T,
                   I=np.asarray(nmon.I / pA).T)
    return out


# ---------------------------------------------------------------------------------------------------------------
# Comparison with a kbrain dump.

Z_STUDY = 5.0  # band half-width in sigma when sigma comes from the study below
ABS_BAND = {"U": 0.02, "A": 0.04}  # minimum half-widths of the U / A bands (2 % of their ranges, README.md)
# Spread (sd) of each quantity over 20 Brian2 seeds (101..120) of the default protocol with the default window:
# key (quantity, phase, synapse), synapse -1 = post spike count of the phase. Used only for that protocol/window.
SIGMA_STUDY = {
    ("U", 0, 24): 0.000813, ("A", 0, 24): 0.0, ("U", 0, 74): 0.0267, ("A", 0, 74): 0.00652, ("post", 0, -1): 1.85,
    ("U", 1, 24): 0.144, ("A", 1, 24): 0.02, ("U", 1, 74): 0.000171, ("A", 1, 74): 0.149, ("post", 1, -1): 12.8,
    ("U", 2, 24): 0.00466, ("A", 2, 24): 3.95e-06, ("U", 2, 74): 0.00468, ("A", 2, 74): 0.183, ("post", 2, -1): 7.38,
}  # study means: U24 1.00/0.188/0.995, A24 2/1.978/2, U74 0.006/1.000/0.003, A74 0.004/1.189/1.067, post 25/215/508
STUDY_PROTOCOL, STUDY_WINDOW = DEFAULT_PHASES, 5.0
# Two-sided 0.1 % quantiles of Student's t by degrees of freedom (K seeds - 1), for other protocols.
T_999 = {1: 636.6, 2: 31.60, 3: 12.92, 4: 8.610, 5: 6.869, 6: 5.959, 7: 5.408, 8: 5.041, 9: 4.781, 10: 4.587,
         12: 4.318, 15: 4.073, 20: 3.850, 30: 3.646}
SAME_TOL = {"U": (1e-9, 1e-12), "A": (1e-9, 1e-12), "V": (1e-9, 1e-6), "VT": (1e-9, 1e-6), "x": (1e-9, 1e-6),
            "I": (1e-9, 1e-6)}  # (relative, absolute): |a - b| <= rel * max(|a|, |b|) + abs


def phase_bounds(phases, dt_ms):
    ends = np.cumsum(reference.phase_steps(phases, dt_ms))
    return [(int(e - n), int(e)) for e, n in zip(ends, reference.phase_steps(phases, dt_ms))]


def windows(phases, dt_ms, window_s):
    """(start, end) step of the averaging window of each phase: its last window_s seconds (at most half of it)."""
    out = []
    for a, b in phase_bounds(phases, dt_ms):
        w = min(int(round(window_s * 1000.0 / dt_ms)), (b - a) // 2)
        out.append((b - w, b))
    return out


def phase_metrics(U, A, post_steps, phases, dt_ms, window_s):
    """{(name, phase, synapse): value}: window means of U and A of the watched synapses, post spikes per phase."""
    m = {}
    for ph, ((a, b), (wa, wb)) in enumerate(zip(phase_bounds(phases, dt_ms), windows(phases, dt_ms, window_s))):
        for col, k in enumerate(WATCH):
            m[("U", ph, k)] = float(U[wa:wb, col].mean())
            m[("A", ph, k)] = float(A[wa:wb, col].mean())
        m[("post", ph, -1)] = float(((post_steps >= a) & (post_steps < b)).sum())
    return m


def check_input_protocol(pre, phases, dt_ms):
    """The dump's input spikes must follow the phases: per phase, every input's count within 5 sigma of F_i*T."""
    problems = []
    for ph, ((a, b), (pos, dur)) in enumerate(zip(phase_bounds(phases, dt_ms), phases)):
        counts = pre[a:b].sum(axis=0)
        p = reference.gaussian_rates_hz(N_INPUTS, pos) * dt_ms * 1e-3
        mean, sd = (b - a) * p, np.sqrt((b - a) * p * (1 - p))
        z = (counts - mean) / sd
        centre = float((counts * (np.arange(N_INPUTS) + 1)).sum() / max(counts.sum(), 1))
        print(f"  phase {ph} (pos {pos:g}, {dur:g} s): {int(counts.sum())} input spikes (expected {mean.sum():.0f}), "
              f"max |z| per input {np.abs(z).max():.2f}, centre of mass {centre:.1f}")
        if np.abs(z).max() > 5.0:
            problems.append(f"phase {ph}: input {int(np.abs(z).argmax())} fired {int(counts[np.abs(z).argmax()])} "
                            f"times, expected {mean[np.abs(z).argmax()]:.1f}")
    return problems


def t_999(dof):
    if dof < 1:
        return float("inf")
    best = max(k for k in T_999 if k <= dof)
    return T_999[best] if dof <= 30 else 3.291


def statistical(dump_U, dump_A, dump_post, phases, dt_ms, seeds, window_s):
    kb = phase_metrics(dump_U, dump_A, dump_post, phases, dt_ms, window_s)
    runs = []
    for seed in seeds:
        t0 = time.time()
        o = run_brian2(phases, dt_ms, seed=seed)
        runs.append(phase_metrics(o["U"], o["A"], o["post_steps"], phases, dt_ms, window_s))
        print(f"  Brian2 seed {seed}: {len(o['post_steps'])} post spikes ({time.time() - t0:.0f} s)", flush=True)
    K = len(runs)
    studied = (phases == reference.parse_phases(STUDY_PROTOCOL) and window_s == STUDY_WINDOW and dt_ms == 1.0
               and bool(SIGMA_STUDY))
    z = Z_STUDY if studied else t_999(K - 1)
    print(f"  bands: {z:g} sigma, sigma = " + ("max(sd of the seeds, sd of the 20-seed study)" if studied else
                                               f"sd of the {K} seeds (no study for this protocol/window)"))
    fails = []
    print(f"  {'quantity':<16} {'kbrain':>10} {'Brian2 mean':>12} {'sigma':>9} {'bound':>9}  status")
    for key in kb:
        vals = np.array([r[key] for r in runs])
        mu, sd = float(vals.mean()), float(vals.std(ddof=1)) if K > 1 else 0.0
        sigma = max(sd, SIGMA_STUDY.get(key, 0.0)) if studied else sd
        name, ph, k = key
        if name == "post":
            bound = z * math.sqrt(max(mu, sigma * sigma, 1.0) * (1.0 + 1.0 / K)) + 1.0
            label = f"post spikes ph{ph}"
        else:
            bound = max(z * sigma * math.sqrt(1.0 + 1.0 / K), ABS_BAND[name])
            label = f"{name}[{k}] ph{ph}"
        ok = abs(kb[key] - mu) <= bound
        if not ok:
            fails.append(f"{label}: kbrain {kb[key]:.4g}, Brian2 {mu:.4g} +- {bound:.3g}")
        print(f"  {label:<16} {kb[key]:>10.4g} {mu:>12.4g} {sigma:>9.3g} {bound:>9.3g}  {'ok' if ok else 'FAIL'}")
    return fails


def same_input(pre, data, dump_post, phases, dt_ms, precision):
    """Brian2 replaying the dump's input spikes; returns the list of failures."""
    t0 = time.time()
    o = run_brian2(phases, dt_ms, input_flags=pre, record_all=True)
    steps = pre.shape[0]
    b2_post = np.zeros(steps, dtype=bool)
    b2_post[o["post_steps"]] = True
    kb_post = np.zeros(steps, dtype=bool)
    kb_post[dump_post] = True
    diff = np.flatnonzero(b2_post != kb_post)
    limit = int(diff[0]) if diff.size else steps
    print(f"  Brian2 on the dump's inputs ({time.time() - t0:.0f} s): {int(b2_post.sum())} post spikes, kbrain "
          f"{int(kb_post.sum())}; " + (f"identical post spike steps" if not diff.size else
                                       f"first differing post spike at step {limit}; compared before it"))
    fails = []
    if diff.size and precision == "double":
        fails.append(f"same input: post spikes differ from step {limit}")
    for v in ("U", "A", "V", "VT", "x", "I"):
        if v not in data:
            continue
        d = data[v][1:limit + 1]
        ref = o[v][:limit]
        cols = np.flatnonzero(np.isfinite(d).all(axis=0))
        if cols.size == 0:
            continue
        d, ref = d[:, cols], ref[:, cols]
        rel, ab = SAME_TOL[v]
        err = np.abs(d - ref)
        ratio = err / (rel * np.maximum(np.abs(d), np.abs(ref)) + ab)
        r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
        asserted = precision == "double"
        ok = ratio[r, c] <= 1.0
        print(f"  {v:>3} ({cols.size} columns): max |diff| {err.max():.3e}, worst at step {r} column {cols[c]}: "
              f"{ratio[r, c]:.3g} x tolerance  {('ok' if ok else 'FAIL') if asserted else '(info: float dump)'}")
        if asserted and not ok:
            fails.append(f"same input: {v}[{cols[c]}] at step {r}: kbrain {d[r, c]!r}, Brian2 {ref[r, c]!r}")
    return fails


def cross_check_reference(n_inputs=150, n_post=4, density=0.6, phases=((25.0, 1.0), (75.0, 1.0)), seed=2024):
    """Brian2 and reference.py on the same input spikes, several targets and a random conn: post flags identical,
    U, A, V, VT, x, I within SAME_TOL at every step (checks the winner rule per column and the m-bar over S_t of
    several columns, which the 100 -> 1 protocol cannot). Returns the list of failures."""
    phases = list(phases)
    rng = np.random.default_rng(seed)
    conn = rng.random((n_inputs, n_post)) < density
    flags = reference.poisson_gaussian_flags(n_inputs, phases, 1.0, seed=seed)
    case = reference.make_case("nxm", n_inputs, n_post, flags.shape[0], 1.0, "poisson_gaussian", "model")
    t0 = time.time()
    ref = reference.run_case(case, conn, pre_flags=flags)
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
        rel, ab = SAME_TOL[v]
        err = np.abs(r - o[v])
        worst = float((err / (rel * np.maximum(np.abs(r), np.abs(o[v])) + ab)).max())
        print(f"    {v:>3}: max |diff| {err.max():.3e}, {worst:.3g} x tolerance  {'ok' if worst <= 1 else 'FAIL'}")
        if worst > 1:
            fails.append(f"cross-check: {v} differs ({worst:.3g} x tolerance)")
    if ref["post_spike"].sum() == 0 or (ref["post_spike"].sum(axis=0) == 0).any():
        fails.append("cross-check: a target never fired (the case does not exercise the post updates)")
    return fails


def compare(dump_dir, phases, seeds, window_s, do_same=True, do_stats=True):
    case = dump_io.read_case(dump_dir)
    if "phases" in case:
        case_phases = [(float(a), float(b)) for a, b in case["phases"]]
        if phases is not None and case_phases != phases:
            print(f"FAIL: --phases {phases} differ from the dump's {case_phases}")
            return 1
        phases = case_phases
    phases = phases or reference.parse_phases(DEFAULT_PHASES)
    dt_ms = float(case["dt"])
    expect = {"architecture": "nxm", "n_pre": N_INPUTS, "n_post": 1, "pattern": "poisson_gaussian",
              "post_events": "model", "steps": sum(reference.phase_steps(phases, dt_ms))}
    wrong = {k: (case.get(k), v) for k, v in expect.items() if case.get(k) != v}
    if wrong:
        print(f"FAIL: the dump is not the savings protocol {phases}: (dump, expected) {wrong}")
        return 1
    differ = {k: (v, reference.PARAMETERS.get(k)) for k, v in case.get("parameters", {}).items()
              if reference.PARAMETERS.get(k) != v}
    if differ:
        print(f"FAIL: parameters differ from ModelDB 184487 (dump, ModelDB): {differ}")
        return 1
    precision = case.get("precision", "double")
    print(f"== {dump_dir}: savings protocol {phases} (pos, s), dt {dt_ms} ms, backend {case.get('backend', '?')}, "
          f"{precision}", flush=True)
    t0 = time.time()
    variables = ["pre_spike", "post_spike", "U", "A"] + (["V", "VT", "x", "I"] if do_same else [])
    _, data = dump_io.read_dump(dump_dir, variables=variables,
                                indices=None if do_same else {"U": set(WATCH), "A": set(WATCH)})
    print(f"  read the dump in {time.time() - t0:.0f} s", flush=True)
    pre, post = data["pre_spike"][1:], data["post_spike"][1:, 0]
    for name, arr in (("pre_spike", pre), ("post_spike", post), ("U", data["U"][1:, list(WATCH)]),
                      ("A", data["A"][1:, list(WATCH)])):
        if np.isnan(arr).any():
            print(f"FAIL: the dump lacks {name} rows (needed: pre_spike, post_spike, U and A of synapses 24, 74)")
            return 1
    pre = pre.astype(bool)
    dump_post = np.flatnonzero(post)
    fails = check_input_protocol(pre, phases, dt_ms)
    if do_stats:
        print(f"statistical comparison (window: last {window_s:g} s of each phase, Brian2 seeds {seeds}):")
        fails += statistical(data["U"][1:, list(WATCH)], data["A"][1:, list(WATCH)], dump_post, phases,
                             dt_ms, seeds, window_s)
    if do_same:
        print("same-input comparison:")
        fails += same_input(pre, data, dump_post, phases, dt_ms, precision)
    for f in fails:
        print(f"FAIL: {f}")
    print("FAIL" if fails else "PASS", flush=True)
    return 1 if fails else 0


def selftest(phases, seeds, window_s):
    """A dump of reference.py (double) on the protocol must pass, both comparisons."""
    tmp = tempfile.mkdtemp(prefix="neofytou_b2_selftest_")
    try:
        flags = reference.poisson_gaussian_flags(N_INPUTS, phases, 1.0, seed=12345)
        case = reference.make_case("nxm", N_INPUTS, 1, flags.shape[0], 1.0, "poisson_gaussian", "model",
                                   connectivity="all", phases=[[p, d] for p, d in phases])
        t0 = time.time()
        reference.write_reference_dump(tmp, case, reference.connectivity("all", N_INPUTS, 1), pre_flags=flags,
                                       variables=["U", "A", "V", "VT", "x", "I"])
        print(f"selftest: reference dump written in {time.time() - t0:.0f} s", flush=True)
        rc = compare(tmp, phases, seeds, window_s)
        # A wrong model (eta_A = 0.35 instead of 0.15, case.json claiming the ModelDB values) must fail the
        # same-input comparison.
        short = [(25.0, 1.0), (75.0, 2.0)]
        flags = reference.poisson_gaussian_flags(N_INPUTS, short, 1.0, seed=54321)
        bad = os.path.join(tmp, "wrong")
        case = reference.make_case("nxm", N_INPUTS, 1, flags.shape[0], 1.0, "poisson_gaussian", "model",
                                   connectivity="all", phases=[[p, d] for p, d in short])
        case["parameters"]["etaA"] = 0.35
        reference.write_reference_dump(bad, case, reference.connectivity("all", N_INPUTS, 1), pre_flags=flags,
                                       variables=["U", "A", "V", "VT", "x", "I"])
        case["parameters"]["etaA"] = reference.PARAMETERS["etaA"]
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
    phases = reference.parse_phases(args.phases) if args.phases else None
    seeds = [int(s) for s in args.seeds.split(",") if s]
    if args.selftest:
        return selftest(phases or reference.parse_phases(DEFAULT_PHASES), seeds, args.window)
    if not args.dump_dir:
        ap.error("give KBRAIN_DUMP_DIR or --selftest")
    return compare(args.dump_dir, phases, seeds, args.window, do_same=not args.no_same_input,
                   do_stats=not args.no_stats)


if __name__ == "__main__":
    sys.exit(main())
