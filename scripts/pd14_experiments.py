#!/usr/bin/env python3
"""Writes experiments/pd14.toml, pd14_poisson.toml and pd14_small.toml: the Potjans & Diesmann 2014 cortical
microcircuit as kbrain populations and projections (docs/models/pd14.md).

Every number is derived here from the reference model's parameters (INM-6/microcircuit-PD14-model,
PyNEST/src/microcircuit/network_params.py and helpers.py, as quoted in the project's PD14 spec): population sizes,
connection probabilities, external in-degrees, initial potentials, full-scale rates; the synapse totals follow
K = ln(1 - C) / ln(1 - 1/(Nx Ny)) rounded half to even, the PSC per PSP from the iaf_psc_exp kernel's peak.
Run: /usr/bin/python3 scripts/pd14_experiments.py (standard library only)."""
import math
import os

NAMES = ["L23E", "L23I", "L4E", "L4I", "L5E", "L5I", "L6E", "L6I"]
N = [20683, 5834, 21915, 5479, 4850, 1065, 14395, 2948]
K_EXT = [1600, 1500, 2100, 1900, 2000, 1900, 2900, 2100]
V0_MEAN = [-68.28, -63.16, -63.33, -63.45, -63.11, -61.66, -66.72, -61.43]
V0_STD = [5.36, 4.57, 4.74, 4.94, 4.94, 4.55, 5.46, 4.48]
RATES = [0.903, 2.965, 4.414, 5.876, 7.569, 8.633, 1.105, 7.829]  # full_mean_rates (DC), Hz
C = [  # row: target, column: source
    [0.1009, 0.1689, 0.0437, 0.0818, 0.0323, 0.0, 0.0076, 0.0],
    [0.1346, 0.1371, 0.0316, 0.0515, 0.0755, 0.0, 0.0042, 0.0],
    [0.0077, 0.0059, 0.0497, 0.1350, 0.0067, 0.0003, 0.0453, 0.0],
    [0.0691, 0.0029, 0.0794, 0.1597, 0.0033, 0.0, 0.1057, 0.0],
    [0.1004, 0.0622, 0.0505, 0.0057, 0.0831, 0.3726, 0.0204, 0.0],
    [0.0548, 0.0269, 0.0257, 0.0022, 0.0600, 0.3158, 0.0086, 0.0],
    [0.0156, 0.0066, 0.0211, 0.0166, 0.0572, 0.0197, 0.0396, 0.2252],
    [0.0364, 0.0010, 0.0034, 0.0005, 0.0277, 0.0080, 0.0658, 0.1443],
]
TAU_M, TAU_S, C_M = 10.0, 0.5, 250.0  # ms, ms, pF
G_L = C_M / TAU_M                     # nS
PSP_E, G, BG_RATE = 0.15, -4.0, 8.0   # mV, relative inhibition, Hz


def psc_per_psp():
    """pA of PSC amplitude per mV of PSP peak from rest (helpers.py: postsynaptic_potential_to_current)."""
    t_max = TAU_S * TAU_M / (TAU_M - TAU_S) * math.log(TAU_M / TAU_S)
    r_m = TAU_M / C_M  # GOhm = mV / pA
    j_unit = r_m * TAU_S / (TAU_S - TAU_M) * (math.exp(-t_max / TAU_S) - math.exp(-t_max / TAU_M))
    return 1.0 / j_unit


def synapses(c, nx, ny):
    return 0 if c == 0 else int(round(math.log(1.0 - c) / math.log(1.0 - 1.0 / (nx * ny))))


def fmt(x):
    return repr(float(x)) if abs(x) >= 1e-3 or x == 0 else f"{x:.10g}"


def write(path, title, drive, scale, duration_ms, record, extra_desc):
    j_pa = PSP_E * psc_per_psp()
    j_mv = j_pa / G_L  # kbrain's current synapses: weights in mV (R_m times the current jump)
    lines = []
    add = lines.append
    add(f'name = "{os.path.splitext(os.path.basename(path))[0]}"')
    add('description = """' + title + " Potjans & Diesmann 2014 cortical microcircuit (INM-6/microcircuit-PD14-model, "
        "NEST 3.9 reference): 8 populations of NEST's iaf_psc_exp, fixed total numbers of synapses per projection "
        "(autapses and multapses kept), normal weights and delays redrawn as NEST does, optimized V0, dt 0.1 ms. "
        + extra_desc + " Decisions: docs/models/pd14.md. Written by scripts/pd14_experiments.py.\"\"\"")
    add("")
    add("[model]")
    add('kind = "lif"')
    add('parameter_set = "pd14"   # C_m 250 pF, tau_m 10 ms, tau_syn 0.5 ms, E_L -65, V_th -50, V_reset -65 mV, t_ref 2 ms')
    add("")
    add("[simulation]")
    add("dt = 0.1")
    add(f"warmup_steps = 5000      # 500 ms, outside the timed phase (spikes recorded from t = 0)")
    add(f"steps = {int(round(duration_ms / 0.1))}")
    add('precision = "double"')
    add("")
    add("[network]")
    add("seed = 123450")
    add(f"scale = {scale}   # n_scaling = k_scaling; counts rounded half to even, weights / sqrt(scale), DC compensation")
    add("")
    add("[record]")
    add(f"spikes = {'true' if record else 'false'}")
    add("")
    for i, name in enumerate(NAMES):
        add("[[population]]")
        add(f'name = "{name}"')
        add(f"size = {N[i]}")
        add(f'v0 = {{ dist = "normal", mean = {V0_MEAN[i]}, std = {V0_STD[i]} }}')
        if drive == "dc":
            i_dc = BG_RATE * K_EXT[i] * j_pa * TAU_S * 1e-3
            add(f"i_e = {i_dc:.10g}   # pA: {K_EXT[i]} x 8 Hz x {j_pa:.6g} pA x 0.5 ms")
        else:
            add(f"poisson = {{ rate = {BG_RATE}, indegree = {K_EXT[i]}, weight = {j_mv:.10g} }}")
        add(f"expected_rate = {RATES[i]}   # Hz at full scale, DC (the reference's full_mean_rates)")
        add("")
    for y in range(8):
        for x in range(8):
            k = synapses(C[y][x], N[x], N[y])
            if k == 0:
                continue
            exc = NAMES[x].endswith("E")
            mean = j_mv * (1.0 if exc else G) * (2.0 if (x == 2 and y == 0) else 1.0)
            d_mean, d_std = (1.5, 0.75) if exc else (0.75, 0.375)
            add("[[projection]]")
            add(f'source = "{NAMES[x]}"')
            add(f'target = "{NAMES[y]}"')
            add('rule = "fixed_total_number"')
            add(f"N = {k}   # C = {C[y][x]}")
            add(f'weight = {{ dist = "normal", mean = {mean:.10g}, std = {abs(mean) * 0.1:.10g}, clip = "redraw" }}')
            add(f'delay = {{ dist = "normal", mean = {d_mean}, std = {d_std}, min = 0.05, clip = "redraw" }}')
            add("")
    with open(path, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")


if __name__ == "__main__":
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "experiments")
    write(os.path.join(here, "pd14.toml"), "Full scale, DC drive (the reference code's default).", "dc", 1.0, 10000, False,
          "Performance protocol: 0.5 s warm-up, 10 s timed, spike recording off.")
    write(os.path.join(here, "pd14_poisson.toml"), "Full scale, Poisson drive (8 Hz per external source).", "poisson",
          1.0, 10000, False,
          "Poisson drive: one Poisson count per neuron and step with mean K_ext x 8 Hz x dt, added to the arrivals "
          "read in that step (NEST's 1.5 ms generator delay only shifts the first 1.5 ms).")
    write(os.path.join(here, "pd14_small.toml"), "Scale 0.2 (15,435 neurons), DC drive, for laptops and tests.", "dc",
          0.2, 1000, True, "Sub-rheobase DC in L2/3 at this scale (spec section 3.7); not the benchmark. At scale 0.1 "
          "six of the eight DCs are below rheobase and the network stays silent after its first spikes.")
