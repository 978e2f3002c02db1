"""NumPy (float64) reference of the Neofytou 2019 model (AdEx + Costa 2015 STP/STDP on a dense plastic matrix),
written to follow docs/specs/neofytou.md sections 2-6 literally, one synapse at a time. It is meant to be read and
trusted, not to be fast (a few thousand synapse-steps per millisecond of Python). The CLI and the self-test are in
reference.py.

    import reference_model
    result = reference_model.run_case(case, conn, pre_flags=None, post_flags=None)

`case` is the dict of a dump's case.json (architecture, n_pre, n_post, steps, dt, post_events, pattern,
parameters); `conn` an (n_pre, n_post) bool matrix; pre_flags / post_flags (steps, n) 0/1 arrays for the patterns
the reference cannot compute itself (poisson_gaussian, file). The result holds, for every step n, the state after
the whole step n as the dump reports it (traces, R and u decayed to t_n = n*dt), see run_case.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dump_io  # noqa: E402

# ModelDB 184487 prepostSTDP_savings.py (spec sections 2 and 3), kbrain units: mV, ms, nS, pF, pA.
PARAMETERS = {
    # neuron
    "C": 281.0, "gL": 30.0, "EL": -70.6, "DeltaT": 2.0, "VTrest": -45.0, "VTmax": 18.0, "tauVT": 50.0,
    "tauw": 144.0, "c": 4.0, "b": 80.5, "Vr": -70.6,
    # synapse
    "tau_FFp": 66.6, "tau_FBp": 230.2, "tau_FBn": 32.7, "tau_r": 200.0, "tau_u": 50.0, "s": 10000.0,
    "AFBn": 0.1771, "AFBp": 0.1548, "AFFp": 0.0618, "etaU": 0.15, "etaA": 0.15,
    "Umin": 0.0, "Umax": 1.0, "Amin": 0.0, "Amax": 2.0,
}
# Poisson-Gaussian input of the original (spec section 5).
F_ON_HZ, F_OFF_HZ, RAD = 50.0, 3.0, 5.0


def initial_U(i, p):
    """U of a synapse of presynaptic row i (index modulo 100, spec section 3)."""
    return math.exp(-(((i % 100) + 1 - 25) ** 2) / (2.0 * 5.0 ** 2)) * (p["Umax"] - p["Umin"]) + p["Umin"]


def initial_A(i, p):
    return math.exp(-(((i % 100) + 1 - 25) ** 2) / (2.0 * 8.0 ** 2)) * (p["Amax"] - p["Amin"]) + p["Amin"]


def connectivity(rule, n_pre, n_post):
    """conn (n_pre, n_post) bool: all, post_even (conn(i,j) = j even), pre_even, both_even."""
    i = np.arange(n_pre)[:, None]
    j = np.arange(n_post)[None, :]
    rules = {
        "all": np.ones((n_pre, n_post), dtype=bool),
        "post_even": np.broadcast_to(j % 2 == 0, (n_pre, n_post)),
        "pre_even": np.broadcast_to(i % 2 == 0, (n_pre, n_post)),
        "both_even": (i % 2 == 0) & (j % 2 == 0),
    }
    return np.array(rules[rule], dtype=bool)


def pattern_flags(pattern, n):
    """Imposed flags of one step: all -> every index, even -> even indices."""
    if pattern == "all":
        return np.ones(n, dtype=bool)
    if pattern == "even":
        return np.arange(n) % 2 == 0
    raise ValueError(f"pattern {pattern!r} is not computed by the reference")


def gaussian_rates_hz(n_inputs, pos):
    i = np.arange(n_inputs)
    return np.exp(-(((i + 1) - pos) ** 2) / (2.0 * RAD ** 2)) * (F_ON_HZ - F_OFF_HZ) + F_OFF_HZ


def parse_phases(text):
    """'25:1,75:20' -> [(25.0, 1.0), (75.0, 20.0)] (Gaussian centre position, duration in seconds)."""
    phases = []
    for item in text.split(","):
        pos, dur = item.split(":")
        phases.append((float(pos), float(dur)))
    return phases


def phase_steps(phases, dt):
    """Number of steps of each phase."""
    return [int(round(dur * 1000.0 / dt)) for _, dur in phases]


def poisson_gaussian_flags(n_inputs, phases, dt, seed):
    """(steps, n_inputs) bool: input i fires at step n with probability F_i * dt (spec section 5)."""
    rng = np.random.default_rng(seed)
    blocks = []
    for (pos, _), n in zip(phases, phase_steps(phases, dt)):
        p = gaussian_rates_hz(n_inputs, pos) * dt * 1e-3
        blocks.append(rng.random((n, n_inputs)) < p)
    return np.concatenate(blocks, axis=0)


def run_case(case, conn, pre_flags=None, post_flags=None, record=None):
    """Runs a case; returns a dict:

    'init': {var: 1-D array} initial state (V, VT, x, I per neuron; synapse variables per slot i*n_post+j, NaN
            where not connected);
    'pre_spike', 'post_spike': (steps, n) int arrays, the flags that drove the pre/post updates of step n;
    'fired': (steps, n_neurons) int array, the AdEx threshold crossings of step n;
    var: (steps, size) arrays of the state after step n (synapse traces, R and u decayed to t_n = n*dt) for every
         var in record (default: all of V, VT, x, I, FFp, FBp, FBn, R, u, U, A).
    """
    p = dict(PARAMETERS)
    p.update(case.get("parameters", {}))
    arch, pattern, post_events = case["architecture"], case["pattern"], case["post_events"]
    n_pre, n_post, steps, dt = int(case["n_pre"]), int(case["n_post"]), int(case["steps"]), float(case["dt"])
    conn = np.asarray(conn, dtype=bool)
    if conn.shape != (n_pre, n_post):
        raise ValueError(f"conn has shape {conn.shape}, expected ({n_pre}, {n_post})")
    if arch == "mxm" and n_pre != n_post:
        raise ValueError("mxm needs n_pre == n_post (the same neurons)")
    if arch not in ("mxm", "nxm"):
        raise ValueError(f"architecture {arch!r}")
    if arch == "nxm" and pattern == "model":
        raise ValueError("pattern 'model' needs AdEx sources (mxm)")
    if pattern in ("poisson_gaussian", "file") and pre_flags is None:
        raise ValueError(f"pattern {pattern!r}: the input flags must be given")
    record = set(dump_io.NEURON_VARS + dump_io.SYNAPSE_VARS) if record is None else set(record)

    C, gL, EL, DeltaT = p["C"], p["gL"], p["EL"], p["DeltaT"]
    VTrest, VTmax, tauVT, tauw, c, b, Vr = p["VTrest"], p["VTmax"], p["tauVT"], p["tauw"], p["c"], p["b"], p["Vr"]
    tau_FFp, tau_FBp, tau_FBn, tau_r, tau_u = p["tau_FFp"], p["tau_FBp"], p["tau_FBn"], p["tau_r"], p["tau_u"]
    s, AFBn, AFBp, AFFp, etaU, etaA = p["s"], p["AFBn"], p["AFBp"], p["AFFp"], p["etaU"], p["etaA"]
    Umin, Umax, Amin, Amax = p["Umin"], p["Umax"], p["Amin"], p["Amax"]

    # Neurons (spec section 2): V = EL, VT = VTrest, x = 0, I = 0.
    n_neu = n_post
    V = np.full(n_neu, EL)
    VT = np.full(n_neu, VTrest)
    x = np.zeros(n_neu)
    I = np.zeros(n_neu)

    # Synapses (spec section 3): the 8 stored values of every slot k = i*n_post + j, plus conn.
    ns = n_pre * n_post
    conn_flat = conn.reshape(-1)
    FFp = np.zeros(ns)
    FBp = np.zeros(ns)
    FBn = np.zeros(ns)
    R = np.ones(ns)
    u = np.zeros(ns)
    U = np.array([initial_U(k // n_post, p) for k in range(ns)])
    A = np.array([initial_A(k // n_post, p) for k in range(ns)])
    lastupdate = np.zeros(ns)
    w = U * A  # output only
    target_I = np.zeros(ns)  # scratch

    def decay(k, t):
        """The five decays of a synapse from lastupdate to t (start of the pre and of the post update)."""
        delta = t - lastupdate[k]
        FFp[k] = FFp[k] * math.exp(-delta / tau_FFp)
        FBn[k] = FBn[k] * math.exp(-delta / tau_FBn)
        u[k] = U[k] + (u[k] - U[k]) * math.exp(-delta / tau_u)
        FBp[k] = FBp[k] * math.exp(-delta / tau_FBp)
        R[k] = (R[k] - 1.0) * math.exp(-delta / tau_r) + 1.0

    def presynaptic(k, t):
        """Presynaptic spike on synapse k at time t, in the order of spec section 3."""
        decay(k, t)
        target_I[k] = s * A[k] * R[k] * u[k]
        U[k] = min(max(U[k] + etaU * (-AFBn * FBn[k] * FBp[k] + AFBp * FBp[k] * FFp[k]), Umin), Umax)
        w[k] = U[k] * A[k]
        FFp[k] = FFp[k] + 1.0
        R[k] = R[k] - R[k] * u[k]
        u[k] = u[k] + U[k] * (1.0 - u[k])  # uses the new U
        lastupdate[k] = t

    def reported(t):
        """Synapse state at t as the dump reports it: traces, R and u decayed from lastupdate to t."""
        d = t - lastupdate
        out = {
            "FFp": FFp * np.exp(-d / tau_FFp),
            "FBp": FBp * np.exp(-d / tau_FBp),
            "FBn": FBn * np.exp(-d / tau_FBn),
            "R": (R - 1.0) * np.exp(-d / tau_r) + 1.0,
            "u": U + (u - U) * np.exp(-d / tau_u),
            "U": U.copy(),
            "A": A.copy(),
        }
        for v in out:
            out[v][~conn_flat] = np.nan
        return out

    result = {"pre_spike": np.zeros((steps, n_pre), dtype=int), "post_spike": np.zeros((steps, n_post), dtype=int),
              "fired": np.zeros((steps, n_neu), dtype=int)}
    for v in record:
        result[v] = np.full((steps, dump_io.var_size(case, v)), np.nan)
    init = {"V": V.copy(), "VT": VT.copy(), "x": x.copy(), "I": I.copy()}
    init.update(reported(0.0))
    result["init"] = init

    for n in range(steps):
        t = n * dt
        # 1. Neuron update (forward Euler from the old state, then threshold on the updated values).
        dV = (gL * (EL - V) + gL * DeltaT * np.exp((V - VT) / DeltaT) + I - x) / C
        dVT = -(VT - VTrest) / tauVT
        dx = (c * (V - EL) - x) / tauw
        V = V + dt * dV
        VT = VT + dt * dVT
        x = x + dt * dx
        fired = V > VT
        V = np.where(fired, Vr, V)
        x = np.where(fired, x + b, x)
        VT = np.where(fired, VTmax, VT)

        # 2. Spike flags.
        if arch == "nxm":
            if pattern in ("all", "even"):
                pre = pattern_flags(pattern, n_pre)
            else:
                pre = np.asarray(pre_flags[n], dtype=bool)
            if post_events == "model":
                post = fired.copy()
            elif post_events == "imposed":
                if pattern in ("all", "even"):
                    post = pattern_flags(pattern, n_post)
                elif post_flags is not None:
                    post = np.asarray(post_flags[n], dtype=bool)
                else:
                    raise ValueError(f"post_events imposed with pattern {pattern!r}: post flags must be given")
            elif post_events == "none":
                post = np.zeros(n_post, dtype=bool)
            else:
                raise ValueError(f"post_events {post_events!r}")
        else:  # mxm: rows and columns are the same neurons
            if pattern in ("all", "even"):
                pre = pattern_flags(pattern, n_pre)
            elif pattern == "model":
                pre = fired.copy()
            else:
                pre = np.asarray(pre_flags[n], dtype=bool)
            post = np.zeros(n_post, dtype=bool) if post_events == "none" else pre.copy()

        # 3. Presynaptic updates; rows in ascending order, so the I of a column is that of the largest spiking row.
        for i in range(n_pre):
            if not pre[i]:
                continue
            for j in range(n_post):
                if conn[i, j]:
                    k = i * n_post + j
                    presynaptic(k, t)
                    I[j] = target_I[k]

        # 4. Postsynaptic part 1 over S_t = connected synapses whose postsynaptic neuron fired at t.
        S_t = [i * n_post + j for j in range(n_post) if post[j] for i in range(n_pre) if conn[i, j]]
        summands = []
        for k in S_t:
            decay(k, t)
            m = AFFp * FFp[k] * FBn[k]
            A[k] = A[k] + etaA * m
            summands.append(m)
        # 5. Mean of the summands (math.fsum: the correctly rounded sum, i.e. order independent).
        mbar = math.fsum(summands) / len(summands) if summands else 0.0
        # 6. Postsynaptic part 2.
        for k in S_t:
            A[k] = min(max(A[k] - etaA * 0.5 * mbar, Amin), Amax)
            w[k] = U[k] * A[k]
            FBp[k] = FBp[k] + 1.0
            FBn[k] = FBn[k] + 1.0
            lastupdate[k] = t

        result["pre_spike"][n] = pre
        result["post_spike"][n] = post
        result["fired"][n] = fired
        state = {"V": V, "VT": VT, "x": x, "I": I}
        state.update(reported(t))
        for v in record:
            result[v][n] = state[v]
    return result


def check_invariants(result, conn, p=None):
    """List of violated invariants: U in [Umin,Umax], A in [Amin,Amax], traces >= 0, R and u in [0,1]."""
    p = dict(PARAMETERS, **(p or {}))
    bad = []
    sel = np.asarray(conn, dtype=bool).reshape(-1)

    def over(name, arr, ok):
        vals = arr[:, sel]
        if not ok(vals).all():
            bad.append(f"{name}: {int((~ok(vals)).sum())} values out of range (min {vals.min()}, max {vals.max()})")

    over("U", result["U"], lambda a: (a >= p["Umin"]) & (a <= p["Umax"]))
    over("A", result["A"], lambda a: (a >= p["Amin"]) & (a <= p["Amax"]))
    for v in ("FFp", "FBp", "FBn"):
        over(v, result[v], lambda a: a >= 0.0)
    # R reaches exactly 0 where u = 1 (U = Umax = 1: input 25's synapses): R <- R - R*u; so [0, 1], not (0, 1].
    over("R", result["R"], lambda a: (a >= 0.0) & (a <= 1.0))
    over("u", result["u"], lambda a: (a >= 0.0) & (a <= 1.0))
    if not np.isfinite(result["V"]).all():
        bad.append("V: non-finite values")
    return bad


def make_case(architecture, n_pre, n_post, steps, dt, pattern, post_events, precision="double", **extra):
    case = {"architecture": architecture, "n_pre": n_pre, "n_post": n_post, "steps": steps, "dt": dt,
            "post_events": post_events, "pattern": pattern, "precision": precision, "backend": "reference",
            "parameters": dict(PARAMETERS)}
    case.update(extra)
    return case


def write_reference_dump(dump_dir, case, conn, pre_flags=None, as_float=False, variables=None):
    """Runs the reference on a case and writes its dump (as_float: values rounded to float32)."""
    result = run_case(case, conn, pre_flags=pre_flags, post_flags=pre_flags if case["pattern"] == "file" else None,
                      record=variables)
    if as_float:
        for key, val in list(result.items()):
            if key == "init":
                result[key] = {v: a.astype(np.float32).astype(np.float64) for v, a in val.items()}
            elif val.dtype.kind == "f":
                result[key] = val.astype(np.float32).astype(np.float64)
    dump_io.write_dump(dump_dir, case, conn, result, variables=variables)
    return result
