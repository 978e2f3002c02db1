"""SONATA files (spikes.h5, voltage.h5) read back with h5py and checked against the CSV files of the same run.

Spikes, for a spiking network (COBA, 4000 neurons) and an IO mesh (16 x 16): `kbrain run` with `[record] sonata =
true` writes spikes.h5 beside spikes.csv; the file must have the SONATA layout (/spikes magic and version, one
population named after the experiment, sorting = "by_time", timestamps in ms) and hold exactly the CSV's spikes, in
the same order, with time = step * dt.
Voltage reports, for every model whose potential is in mV (point neurons: COBA; the IO cell's three compartments;
AdEx): voltage.h5 beside trace.csv must have the SONATA report layout (/report/<population>/data float32 in mV,
mapping/node_ids, index_pointers, element_ids, time [start, stop, dt] in ms) and hold the CSV's membrane potentials,
to float32 precision, at the CSV's times; other recorded variables stay out of it. A run that records no potential
(COBA's ge only) or one without a unit (galbraith_lif's V) writes no voltage.h5.
Exit 77 (skipped) without h5py or in a kbrain built without libhdf5.
Usage: check_sonata.py KBRAIN EXPERIMENTS_DIR WORKDIR
"""
import re
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


def with_sonata(source, name, record=None):
    """A copy of `source` with sonata = true in [record]; `record` (lines) replaces the rest of the table."""
    text = source.read_text()
    assert "[record]" in text, f"{source} has no [record] table"
    if record is not None:
        text = re.sub(r"\[record\]\n(?:[^\[\n].*\n|\n)*", "[record]\n" + "\n".join(record) + "\n\n", text, count=1)
    text = text.replace("[record]", "[record]\nsonata = true", 1)
    # The copy lives elsewhere: its files (network, g_CaL) are named from the source's folder.
    text = re.sub(r'^(file\s*=\s*")(?!/)', lambda m: m.group(1) + str(source.parent.resolve()) + "/", text, flags=re.M)
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


coba = with_sonata(experiments / "coba.toml", "coba_sonata.toml",
                   ["spikes = true", 'variables = ["ge", "v"]', "neurons = [3, 0, 3999]", "every = 7"])
run(coba, work / "coba", "--steps", "1500")
check(work / "coba", "coba", 0.1)

mesh = with_sonata(experiments / "io_mesh_sweep.toml", "mesh_sonata.toml")
run(mesh, work / "mesh", "--size", "16")
check(work / "mesh", "io_mesh_sweep", 0.05, minimum=10)


def text(value):
    return value.decode() if isinstance(value, bytes) else value


def check_voltage(out, population, dt_ms, elements):
    """elements: {trace variable: element id} of the potentials the report must hold, in the CSV's variable order."""
    rows = list(csv.reader(open(out / "trace.csv")))
    header, body = rows[0], np.array([[float(x) for x in r] for r in rows[1:]])
    assert header[:2] == ["step", "time_ms"], header[:2]
    assert len(body) >= 10, f"{out}: too few trace samples ({len(body)}) to check anything"
    columns = [c.rsplit("_", 1) for c in header[2:]]
    cells = list(dict.fromkeys(int(cell) for _, cell in columns))
    reported = [v for v in dict.fromkeys(var for var, _ in columns) if v in elements]
    with h5py.File(out / "voltage.h5", "r") as f:
        assert list(f["report"].keys()) == [population], list(f["report"].keys())
        group = f["report"][population]
        data, mapping = group["data"], group["mapping"]
        assert data.dtype == np.float32 and text(data.attrs["units"]) == "mV"
        assert mapping["node_ids"].dtype == np.uint64 and mapping["index_pointers"].dtype == np.uint64
        assert mapping["element_ids"].dtype == np.uint32 and mapping["time"].dtype == np.float64
        assert text(mapping["time"].attrs["units"]) == "ms"
        values, node_ids = data[:], mapping["node_ids"][:]
        pointers, element_ids, time = mapping["index_pointers"][:], mapping["element_ids"][:], mapping["time"][:]
    assert list(node_ids) == cells, f"{out}: node ids {list(node_ids)}, the CSV's cells {cells}"
    assert list(pointers) == [i * len(reported) for i in range(len(cells) + 1)], f"{out}: index_pointers {pointers}"
    assert list(element_ids) == [elements[v] for v in reported] * len(cells), f"{out}: element_ids {element_ids}"
    assert values.shape == (len(body), len(cells) * len(reported)), f"{out}: data {values.shape}"
    start, stop, dt = time
    assert np.isclose(dt, body[1, 1] - body[0, 1]) and np.isclose(start, body[0, 1]), f"{out}: time {time}"
    assert np.isclose(stop, start + len(body) * dt), f"{out}: stop {stop} is not start + frames * dt"
    assert np.allclose(start + np.arange(len(body)) * dt, body[:, 1]), f"{out}: the frames' times are not the CSV's"
    assert np.allclose(body[:, 1], body[:, 0] * dt_ms), f"{out}: time_ms is not step * dt"
    for i, cell in enumerate(cells):
        for k, var in enumerate(reported):
            csv_values = body[:, header.index(f"{var}_{cell}")].astype(np.float32)
            column = values[:, int(pointers[i]) + k]
            assert np.array_equal(column, csv_values), f"{out}: {var} of cell {cell} differs from trace.csv"
    assert np.ptp(values) > 0, f"{out}: every potential is the same value; nothing was compared"
    print(f"{out.name}: {values.shape[0]} frames x {values.shape[1]} values, SONATA report = CSV")


check_voltage(work / "coba", "coba", 0.1, {"v": 0})

io = with_sonata(experiments / "io_all2all10.toml", "io_sonata.toml",
                 ['variables = ["v_axon", "ca", "v_dend"]', "cells = [7, 2]", "every = 3", "spikes = true"])
run(io, work / "io", "--steps", "600")
check_voltage(work / "io", "io_all2all10", 0.05, {"v_dend": 0, "v_soma": 1, "v_axon": 2})

adex = with_sonata(experiments / "neofytou_savings.toml", "adex_sonata.toml",
                   ['variables = ["V", "x"]', "cells = [0]", "every = 2"])
run(adex, work / "adex", "--steps", "2000")
check_voltage(work / "adex", "neofytou_savings", 1.0, {"V": 0})

for source, name, record in [(coba, "coba_ge", ['variables = ["ge"]', "neurons = [1]"]),
                             (experiments / "galbraith_gb1_ring.toml", "galbraith",
                              ['variables = ["V"]', "cells = [0, 1]", "spikes = false"])]:
    experiment = with_sonata(source, f"{name}.toml", record)
    run(experiment, work / name, "--steps", "200")
    assert (work / name / "trace.csv").exists(), f"{name}: no trace.csv"
    assert not (work / name / "voltage.h5").exists(), f"{name}: a voltage.h5 without a potential in mV"
    print(f"{name}: trace.csv without voltage.h5, as it should be")
