#!/usr/bin/env bash
# One reference check: dump an adex_costa case on BACKEND in PRECISION, then compare it with the NumPy reference.
# Usage: run_reference.sh DUMPER PYTHON CASE.toml BACKEND PRECISION   (exit 77: numpy missing)
set -euo pipefail
dumper="$1" python="$2" case_file="$3" backend="$4" precision="$5"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$python" -c "import numpy" 2>/dev/null || { echo "numpy is not importable by $python"; exit 77; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
"$dumper" "$case_file" "$dir" --backend "$backend" --precision "$precision"
"$python" "$here/check_reference.py" "$dir" --precision "$precision"
