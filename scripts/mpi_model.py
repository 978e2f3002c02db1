#!/usr/bin/env python3
"""Exchange model of multi-rank Gaussian IO runs (docs/mpi.md): extrapolates the step time to 8..64 GPUs.

  T_step(K) = max(T_cell * interior(K), T_exch(K)) + T_cell * border(K)
  T_exch(K) = m(K) * alpha + B(K) / beta          (m: neighbour messages, B: halo bytes of one rank)

alpha, beta: least-squares fit of t = alpha + bytes / beta to a kbrain_mpi_pingpong CSV (column `staged` by
default: device -> host -> MPI -> host -> device, kbrain's path without CUDA-aware MPI), or given directly.
T_cell: seconds per cell-step of one GPU (from a 1-GPU run.json: simulate_s / (cells * steps), or given).
Halo and border of a brick: per face, area x sum_d (1 - exp(-lambda(d))), lambda(d) = expected number of junctions
between a cell at depth d and the other side (half-space approximation of the generator's law
p = c exp(-r^2 / 2 w^2), w = sigma * scale; edges and corners of bricks are ignored).
The partition is kbrain's: the px*py*pz = K with the smallest brick surface.

Usage: scripts/mpi_model.py --pingpong pp.csv [--single run.json | --t-cell 2.55e-9] [--cells 4194304]
       [--density 1000] [--w 5] [--alpha 2e-6 --beta 6e9] [--measured-halo H2]
"""
import argparse
import csv
import json
import math

STUDY = {  # van der Vlag 2019, Gaussian, density 1000, 4M cells: total s (incl. generation), ../shared/docs/experiments.md
    1: 23706.35, 8: 2057.25, 16: 1075.62, 32: 577.87, 48: 465.69}


def fit(path, column):
    """alpha: the smallest one-way time of messages <= 512 B; beta: least-squares slope of (t - alpha) against
    bytes over messages >= 64 KiB (through the origin)."""
    pts = []
    with open(path) as f:  # other lines (e.g. Kokkos warnings on stdout) are skipped
        lines = [l for l in f if l.startswith("bytes,") or l[:1].isdigit()]
    for row in csv.DictReader(lines):
        pts.append((float(row["bytes"]), float(row[column + "_us"]) * 1e-6))
    small = [t for n, t in pts if n <= 512]
    alpha = min(small) if small else min(t for _, t in pts)
    big = [(n, t - alpha) for n, t in pts if n >= 65536]
    slope = sum(n * t for n, t in big) / sum(n * n for n, _ in big)
    return alpha, 1.0 / slope


def side_of(cells):
    b = round(cells ** (1 / 3))
    while b ** 3 < cells:
        b += 1
    while b > 1 and (b - 1) ** 3 >= cells:
        b -= 1
    return b


def bricks(k, b):
    best = None
    for px in range(1, k + 1):
        if k % px:
            continue
        for py in range(1, k // px + 1):
            if (k // px) % py:
                continue
            pz = k // px // py
            if max(px, py, pz) > b:
                continue
            ax, ay, az = b / px, b / py, b / pz
            cost = ax * ay + ay * az + ax * az
            if best is None or cost < best[0] - 1e-9 or (abs(cost - best[0]) < 1e-9 and (px, py) > best[1][:2]):
                best = (cost, (px, py, pz))
    return best[1]


def depth_profile(density, w):
    reach = int(math.ceil(7.07 * w))
    g = sum(math.exp(-y * y / (2 * w * w)) for y in range(-reach, reach + 1))
    c = density / (g ** 3 - 1)
    lam = []
    for d in range(reach + 1):
        s = sum(math.exp(-(x + d) ** 2 / (2 * w * w)) for x in range(1, reach + 1))
        lam.append(c * g * g * s)
    return sum(1 - math.exp(-l) for l in lam)  # cells per unit face area that are halo (= border) cells


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pingpong")
    ap.add_argument("--column", default="staged", choices=["host", "staged"])
    ap.add_argument("--alpha", type=float)
    ap.add_argument("--beta", type=float)
    ap.add_argument("--single")
    ap.add_argument("--t-cell", type=float, default=10.7e-3 / 4194304,
                    help="s per cell-step on one GPU (default: H200, Gaussian 4M x 1000, docs/performance.md)")
    ap.add_argument("--cells", type=int, default=4194304)
    ap.add_argument("--density", type=float, default=1000)
    ap.add_argument("--w", type=float, default=5.0, help="sigma * scale in lattice units")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--real-bytes", type=int, default=8)
    ap.add_argument("--measured-halo", type=float, help="halo values/step of one rank at K=2 (ranks.csv), to compare")
    a = ap.parse_args()
    alpha, beta = a.alpha, a.beta
    if a.pingpong:
        fa, fb = fit(a.pingpong, a.column)
        alpha = fa if alpha is None else alpha
        beta = fb if beta is None else beta
    if alpha is None or beta is None:
        ap.error("give --pingpong or both --alpha and --beta")
    t_cell = a.t_cell
    if a.single:
        m = json.load(open(a.single))
        t_cell = m["simulate_s"] / (m["cells"] * m["steps"])
    b = side_of(a.cells)
    per_area = depth_profile(a.density, a.w)
    print(f"alpha = {alpha * 1e6:.2f} us, beta = {beta / 1e9:.2f} GB/s ({a.column}), T_cell = {t_cell * 1e9:.3f} ns, "
          f"lattice side {b}, halo cells per unit face area {per_area:.1f}\n")
    print("| GPUs | bricks | cells/rank | halo/rank | MB/step/rank | T_exch ms | T_step ms | interior % | "
          f"{a.steps} steps s | speedup | study total s (incl. generation) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    t1 = None
    for k in [1, 2, 8, 16, 32, 48, 64]:
        px, py, pz = bricks(k, b)
        ax, ay, az = b / px, b / py, b / pz
        cells = a.cells / k
        # per brick on average: 2 (p - 1) / p internal faces along an axis split in p
        faces = [(area, 2 * (p - 1) / p) for area, p in ((ay * az, px), (ax * az, py), (ax * ay, pz)) if p > 1]
        halo = sum(area * n * per_area for area, n in faces)
        border = min(cells, halo)
        msgs = min(px, 3) * min(py, 3) * min(pz, 3) - 1  # neighbour bricks of an inner brick (faces, edges, corners)
        t_exch = 0.0 if k == 1 else msgs * alpha + halo * a.real_bytes / beta
        t_step = max(t_cell * (cells - border), t_exch) + t_cell * border
        t1 = t1 or t_step
        total = t_step * a.steps
        study = STUDY.get(k)
        print(f"| {k} | {px}x{py}x{pz} | {cells:,.0f} | {halo:,.0f} | {halo * a.real_bytes / 1e6:.2f} | "
              f"{t_exch * 1e3:.3f} | {t_step * 1e3:.3f} | {100 * (cells - border) / cells:.0f} | {total:.1f} | "
              f"{t1 / t_step:.2f} | {study if study else '—'} |")
    if a.measured_halo:
        px, py, pz = bricks(2, b)
        print(f"\nK=2 halo: model {b * b * per_area:,.0f} values/rank, measured {a.measured_halo:,.0f}")


if __name__ == "__main__":
    main()
