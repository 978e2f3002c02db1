"""Comparison of a kbrain dump of the savings protocol (ModelDB 184487, spec docs/specs/neofytou.md §5) with the
Brian2 port (brian2_model.py); brian2_savings.py is its CLI. Two comparisons (README.md gives the bounds):
 1. statistical: U and A of synapses 24 and 74 averaged over the last `window` seconds of every phase, and the post
    spike count of every phase, against the band of several Brian2 seeds;
 2. same input: Brian2 replaying the dump's own input spikes, step for step.
"""
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from brian2_model import N_INPUTS, WATCH, run_brian2  # noqa: E402  (exits 77 without Brian2)
import numpy as np  # noqa: E402
import dump_io  # noqa: E402
import reference_model  # noqa: E402

DEFAULT_PHASES = "25:1,75:20,25:20"

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
    ends = np.cumsum(reference_model.phase_steps(phases, dt_ms))
    return [(int(e - n), int(e)) for e, n in zip(ends, reference_model.phase_steps(phases, dt_ms))]


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
        p = reference_model.gaussian_rates_hz(N_INPUTS, pos) * dt_ms * 1e-3
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
    studied = (phases == reference_model.parse_phases(STUDY_PROTOCOL) and window_s == STUDY_WINDOW and dt_ms == 1.0
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


def tolerance_ratio(v, a, b):
    """|a - b| and its ratio to the same-input tolerance of variable v (<= 1 passes)."""
    rel, ab = SAME_TOL[v]
    err = np.abs(a - b)
    return err, err / (rel * np.maximum(np.abs(a), np.abs(b)) + ab)


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
          f"{int(kb_post.sum())}; " + ("identical post spike steps" if not diff.size else
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
        err, ratio = tolerance_ratio(v, d, ref)
        r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
        asserted = precision == "double"
        ok = ratio[r, c] <= 1.0
        print(f"  {v:>3} ({cols.size} columns): max |diff| {err.max():.3e}, worst at step {r} column {cols[c]}: "
              f"{ratio[r, c]:.3g} x tolerance  {('ok' if ok else 'FAIL') if asserted else '(info: float dump)'}")
        if asserted and not ok:
            fails.append(f"same input: {v}[{cols[c]}] at step {r}: kbrain {d[r, c]!r}, Brian2 {ref[r, c]!r}")
    return fails


def compare(dump_dir, phases, seeds, window_s, do_same=True, do_stats=True):
    case = dump_io.read_case(dump_dir)
    if "phases" in case:
        case_phases = [(float(a), float(b)) for a, b in case["phases"]]
        if phases is not None and case_phases != phases:
            print(f"FAIL: --phases {phases} differ from the dump's {case_phases}")
            return 1
        phases = case_phases
    phases = phases or reference_model.parse_phases(DEFAULT_PHASES)
    dt_ms = float(case["dt"])
    expect = {"architecture": "nxm", "n_pre": N_INPUTS, "n_post": 1, "pattern": "poisson_gaussian",
              "post_events": "model", "steps": sum(reference_model.phase_steps(phases, dt_ms))}
    wrong = {k: (case.get(k), v) for k, v in expect.items() if case.get(k) != v}
    if wrong:
        print(f"FAIL: the dump is not the savings protocol {phases}: (dump, expected) {wrong}")
        return 1
    differ = {k: (v, reference_model.PARAMETERS.get(k)) for k, v in case.get("parameters", {}).items()
              if reference_model.PARAMETERS.get(k) != v}
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
