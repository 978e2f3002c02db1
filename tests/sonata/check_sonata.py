"""SONATA spike files (spikes.h5) read back with h5py and checked against spikes.csv of the same run.

For a spiking network (COBA, 4000 neurons) and an IO mesh (16 x 16): `kbrain run` with `[record] sonata = true` writes
spikes.h5 beside spikes.csv; the file must have the SONATA layout (/spikes magic and version, one population named
after the experiment, sorting = "by_time", timestamps in ms) and hold exactly the CSV's spikes, in the same order,
with time = step * dt. Exit 77 (skipped) without h5py or in a kbrain built without libhdf5.
Usage: check_sonata.py KBRAIN EXPERIMENTS_DIR WORKDIR
"""
import csv
import pathlib
import shutil
import subprocess
import sys

try:
    import h5py
    import numpy as np
except ImportError:
    print("h5py or numpy not importable: skipped")
    sys.exit(77)

kb, experiments, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)


def with_sonata(source, name):
    text = source.read_text()
    assert "[record]" in text, f"{source} has no [record] table"
    text = text.replace("[record]", "[record]\nsonata = true", 1)
    target = work / name
    target.write_text(text)
    return target


def run(experiment, out, *args):
    p = subprocess.run([kb, "run", str(experiment), "-b", "serial", "-o", str(out), "--no-plots", *args],
                       capture_output=True, text=True)
    if p.returncode == 2 and "without it" in p.stderr:
        print("kbrain built without libhdf5: skipped")
        sys.exit(77)
    assert p.returncode == 0, f"kbrain run {experiment} failed ({p.returncode}): {p.stderr}"


def check(out, population, dt_ms, minimum=100):
    rows = list(csv.reader(open(out / "spikes.csv")))
    assert rows[0] == ["step", "cell"], rows[0]
    steps = np.array([int(r[0]) for r in rows[1:]], dtype=np.int64)
    cells = np.array([int(r[1]) for r in rows[1:]], dtype=np.int64)
    assert len(steps) >= minimum, f"{out}: too few spikes ({len(steps)}) to check anything"
    with h5py.File(out / "spikes.h5", "r") as f:
        assert int(f["spikes"].attrs["magic"]) == 0x0A7A
        assert list(f["spikes"].attrs["version"]) == [0, 1]
        assert list(f["spikes"].keys()) == [population], list(f["spikes"].keys())
        group = f["spikes"][population]
        sorting = group.attrs["sorting"]
        assert (sorting.decode() if isinstance(sorting, bytes) else sorting) == "by_time"
        units = group["timestamps"].attrs["units"]
        assert (units.decode() if isinstance(units, bytes) else units) == "ms"
        t = group["timestamps"][:]
        ids = group["node_ids"][:]
        assert group["timestamps"].dtype == np.float64 and group["node_ids"].dtype == np.uint64
    assert len(t) == len(steps), f"{out}: {len(t)} spikes in spikes.h5, {len(steps)} in spikes.csv"
    assert np.array_equal(ids.astype(np.int64), cells), f"{out}: node ids differ from the CSV's cells"
    assert np.array_equal(t, steps * dt_ms), f"{out}: timestamps are not step * dt"
    assert np.all(np.diff(t) >= 0), f"{out}: not sorted by time"
    print(f"{out.name}: {len(t)} spikes, SONATA file = CSV")


coba = with_sonata(experiments / "coba.toml", "coba_sonata.toml")
run(coba, work / "coba", "--steps", "1500")
check(work / "coba", "coba", 0.1)

mesh = with_sonata(experiments / "io_mesh_sweep.toml", "mesh_sonata.toml")
run(mesh, work / "mesh", "--size", "16")
check(work / "mesh", "io_mesh_sweep", 0.05, minimum=10)
