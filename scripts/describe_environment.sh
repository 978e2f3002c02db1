#!/usr/bin/env bash
# Prints where and from what a measurement script ran: date (UTC), commit (and whether the tree had uncommitted
# changes), host, cores and CPU model, and the GPUs nvidia-smi sees. Usage: scripts/describe_environment.sh
# KBRAIN_COMMIT, when set, names the commit (as for kbrain's own reports): a copied tree's git metadata can be stale.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
if [ -n "${KBRAIN_COMMIT:-}" ]; then
  echo "commit: $KBRAIN_COMMIT (from KBRAIN_COMMIT)"
else
  echo "commit: $(git -C "$here" rev-parse --short=10 HEAD 2>/dev/null)" \
    "$(git -C "$here" status --porcelain 2>/dev/null | grep -q . && echo '(+ uncommitted changes)')"
fi
echo "host: $(hostname) $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
nvidia-smi -L 2>/dev/null
exit 0
