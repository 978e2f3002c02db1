"""Population statistics, defined as kbrain's spiking/spike_statistics.cpp defines them."""
import numpy as np


def rate_hz(trains, duration_ms):
    return sum(len(t) for t in trains) / (len(trains) * duration_ms / 1000.0)


def isi_cv(trains):
    """Mean over neurons with >= 3 spikes of std(ISI) / mean(ISI) (population std)."""
    cvs = []
    for t in trains:
        if len(t) < 3:
            continue
        isi = np.diff(np.sort(t))
        cvs.append(isi.std() / isi.mean())
    return float(np.mean(cvs)) if cvs else float("nan")
