#!/usr/bin/env bash
# The savings protocol on Serial in double, dumped every step (spike flags, the neuron, U and A of every synapse),
# then compared with Brian2 (brian2_savings.py). Usage: run_savings.sh DUMPER PYTHON EXPERIMENT.toml (exit 77: no Brian2)
set -euo pipefail
dumper="$1" python="$2" experiment="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$python" -c "import brian2" 2>/dev/null || { echo "brian2 is not importable by $python"; exit 77; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
"$dumper" "$experiment" "$dir" --backend serial --precision double --vars V,VT,x,I,U,A
"$python" "$here/brian2_savings.py" "$dir"
