"""Pictures of a galbraith_decoder run (Galbraith 2010 Fig. 5.6): decoder_signals.csv (the test signal and its SU and
MU estimates, written by the run) -> x, y, magnitude and angle against time, true signal and both estimates."""
import csv
import math
import os

from plot_common import footer, save


def _columns(path):
    with open(path) as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = [list(map(float, r)) for r in reader if r]
    return {h: [r[k] for r in rows] for k, h in enumerate(header)}


def _nrmse(truth, est):
    rng = max(truth) - min(truth)
    return math.sqrt(sum((e - t) ** 2 for t, e in zip(truth, est)) / len(truth)) / rng if rng > 0 else float("nan")


def plot_decoder(plt, folder, m, out_dir, record):
    path = os.path.join(folder, "decoder_signals.csv")
    if not os.path.exists(path):
        return
    c = _columns(path)
    t = c["t_s"]
    mag = lambda x, y: [math.hypot(a, b) for a, b in zip(x, y)]
    ang = lambda x, y: [math.atan2(b, a) for a, b in zip(x, y)]
    series = {
        "x": (c["x"], c["su_x"], c["mu_x"]),
        "y": (c["y"], c["su_y"], c["mu_y"]),
        "magnitude": (mag(c["x"], c["y"]), mag(c["su_x"], c["su_y"]), mag(c["mu_x"], c["mu_y"])),
        "angle (rad)": (ang(c["x"], c["y"]), ang(c["su_x"], c["su_y"]), ang(c["mu_x"], c["mu_y"])),
    }
    nrmse = {
        "su": 0.5 * (_nrmse(c["x"], c["su_x"]) + _nrmse(c["y"], c["su_y"])),
        "mu": 0.5 * (_nrmse(c["x"], c["mu_x"]) + _nrmse(c["y"], c["mu_y"])),
    }
    fig, axes = plt.subplots(4, 1, figsize=(9, 9), sharex=True)
    for ax, (name, (truth, su, mu)) in zip(axes, series.items()):
        ax.plot(t, truth, color="black", lw=1.2, label="x (true)")
        ax.plot(t, su, color="tab:blue", lw=0.8, label=f"SU estimate (NRMSE {nrmse['su']:.3f})")
        ax.plot(t, mu, color="tab:red", lw=0.8, alpha=0.8, label=f"MU estimate (NRMSE {nrmse['mu']:.3f})")
        ax.set_ylabel(name)
    axes[0].legend(fontsize=7, ncol=3, loc="upper right")
    axes[-1].set_xlabel("time (s)")
    units = m.get("units", "")
    title = (f"{m.get('experiment', '')} (galbraith_decoder): test signal and decoded estimates "
             f"(NRMSE = RMSE / range, mean of X and Y){'' if units == '' else f', {int(units)} units decoded'}")
    axes[0].set_title(title, fontsize=9)
    footer(fig, [f"{m.get('backend', '')} {m.get('precision', '')}: {m.get('hardware', '')}",
                 f"kbrain {m.get('commit', '')}, {m.get('date', '')}"])
    save(fig, out_dir, "decoder_estimates", record, "decoder_estimates", title,
         {"samples": len(t), "nrmse_su": nrmse["su"], "nrmse_mu": nrmse["mu"]})
    plt.close(fig)
