#!/usr/bin/env bash
# kbrain reproduce on a made-up study of two tiny IO meshes, serial only:
#   - the report sets the study's numbers beside kbrain's (a published size run: study / kbrain), marks the backend
#     it was not asked to run, links the run's compare folder, and reproduce.json holds kbrain's measured values;
#   - bad input (an unknown study, a recipe key, a table line, --scale) exits 2 with one message naming it and
#     leaves nothing behind, and the earlier complete report in the same folder stays as it was.
# Usage: reproduce.sh KBRAIN EXPERIMENTS_DIR WORKDIR
set -uo pipefail
kb="$1"; experiments="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*"; exit 1; }

recipe() {  # $1: extra lines in the table
  cat <<TOML
study = "tiny"
title = "A made-up study"
reference = "none: numbers made up for this test"
published_hardware = "an imaginary GPU"
[[table]]
id = "mesh"
title = "Mesh time per biological second"
unit = "wall s per biological s"
published = "mesh.csv"
size_key = "cells"
measure = "wall_s_per_bio_s"
$1
[[table.column]]
name = "CPU"
experiment = "$experiments/io_du_nguyen_mesh.toml"
backend = "serial"
precision = "double"
[[table.column]]
name = "OpenMP"
experiment = "$experiments/io_du_nguyen_mesh.toml"
backend = "openmp"
precision = "double"
[table.small]
sizes = [8, 16]
steps = 40
[table.full]
sizes = [16]
TOML
}
printf '# made-up numbers for this test\ncells,CPU\n64,1000\n1024,2000\n' > mesh.csv
recipe "" > tiny.toml

"$kb" reproduce tiny.toml --backends serial --scale small -o out --no-plots > log.txt 2>&1 || { cat log.txt; fail "reproduce exit $?"; }
[ -f out/report.md ] || fail "no report.md"
[ -f out/reproduce.json ] || fail "no reproduce.json"
[ -f out/runs/io_du_nguyen_mesh/compare.json ] || fail "no compare folder for the run"
grep -q "| 64 | 1000 |" out/report.md || fail "the study's row is not in the report"
grep -Eq "^\| 64 \| [0-9.e+-]+ \| no openmp \|" out/report.md || fail "kbrain's row at 64 cells (serial measured, openmp absent)"
grep -Eq "^\| 256 \| [0-9.e+-]+ \| no openmp \|" out/report.md || fail "kbrain's row at 256 cells"
grep -Eq "^\| 64 \| 1000 \| [0-9.e+-]+ \| [0-9.e+-]+× \|" out/report.md || fail "no study / kbrain at the published size"
grep -q "runs/io_du_nguyen_mesh/compare.md" out/report.md || fail "the run is not linked"
/usr/bin/python3 - out/reproduce.json <<'PY' || fail "reproduce.json"
import json, math, sys
r = json.load(open(sys.argv[1]))
t = r["tables"][0]
cells = [row["cells"] for row in t["kbrain"]]
assert cells == [64, 256], cells
for row in t["kbrain"]:
    cpu, omp = row["values"]
    assert cpu is not None and cpu > 0 and math.isfinite(cpu), row
    assert omp is None, row
assert t["published"]["rows"] == [[64, 1000], [1024, 2000]], t["published"]
PY
cp out/report.md report.before

# The picture of the table plots kbrain's measured values and the study's (skipped without matplotlib).
if /usr/bin/python3 -c "import matplotlib" 2> /dev/null; then
  "$kb" plot out > plot.txt 2>&1 || { cat plot.txt; fail "kbrain plot of the reproduce folder"; }
  [ -s out/plots/mesh.png ] || fail "no plots/mesh.png"
  /usr/bin/python3 - out <<'PY' || fail "plots.json does not show reproduce.json's numbers"
import json, sys
folder = sys.argv[1]
report = json.load(open(folder + "/reproduce.json"))
plots = {p["name"]: p for p in json.load(open(folder + "/plots/plots.json"))["plots"]}
data = plots["mesh"]["data"]
kbrain = [(r["cells"], r["values"][0]) for r in report["tables"][0]["kbrain"]]
assert [tuple(p) for p in data["kbrain"]["CPU"]] == kbrain, (data["kbrain"], kbrain)
assert [tuple(p) for p in data["study"]["CPU"]] == [(64, 1000), (1024, 2000)], data["study"]
assert "OpenMP" not in data["kbrain"], data["kbrain"]  # not run: not drawn
PY
fi

# --steps: every run takes that many steps, and the report and reproduce.json say so.
"$kb" reproduce tiny.toml --backends serial --scale small --steps 7 -o out_steps --no-plots > steps.txt 2>&1 ||
  { cat steps.txt; fail "reproduce --steps exit $?"; }
grep -q '7 steps (`--steps 7`, in place of' out_steps/report.md || fail "the report does not footnote --steps"
/usr/bin/python3 - out_steps <<'PY' || fail "--steps: steps_override or the runs' steps"
import json, sys
folder = sys.argv[1]
assert json.load(open(folder + "/reproduce.json"))["steps_override"] == 7
rows = json.load(open(folder + "/runs/io_du_nguyen_mesh/compare.json"))["rows"]
assert rows and all(r["steps"] == 7 for r in rows), [r["steps"] for r in rows]
PY

expect_refusal() {  # $1: what must be in the one-line message; the rest: the command's arguments
  local want="$1"; shift
  "$kb" "$@" > err.txt 2>&1; local rc=$?
  [ "$rc" -eq 2 ] || { cat err.txt; fail "exit $rc, not 2, for: $*"; }
  grep -q -- "$want" err.txt || { cat err.txt; fail "message lacks '$want' for: $*"; }
}
expect_refusal 'no study "nosuch"' reproduce nosuch -o out
recipe "measure_typo = 1" > typo.toml
expect_refusal "typo.toml:12: unknown key table\[0\].measure_typo" reproduce typo.toml --backends serial -o out
printf '# made up\ncells,CPU\n64,fast\n' > mesh.csv
expect_refusal 'mesh.csv:3: column "CPU" holds "fast"' reproduce tiny.toml --backends serial -o out
expect_refusal "--scale" reproduce tiny.toml --scale huge -o out
expect_refusal "--steps" reproduce tiny.toml --steps 0 -o out
expect_refusal "--max-slow-cell-steps" reproduce tiny.toml --max-slow-cell-steps 0 -o out
cmp -s out/report.md report.before || fail "a refused command changed the earlier report"
ls -d out.* 2> /dev/null && fail "a refused command left a folder behind"
echo "reproduce: OK"
