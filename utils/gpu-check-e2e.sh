#!/usr/bin/env bash
# Runs the end-to-end programs (test/e2e) on an NVIDIA GPU, then again under
# compute-sanitizer (memcheck, racecheck, synccheck) when it is there.
#
#   utils/gpu-check-e2e.sh [build-dir]
#
# The programs are built with the rest of the project (they need only
# libqdrt and the CUDA driver at run time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${QDC_BUILD_DIR:-$root/build}}
shopt -s nullglob
programs=("$build"/bin/e2e-*)
if [ ${#programs[@]} -eq 0 ]; then
  echo "qdc: no end-to-end programs in $build/bin; build them first" >&2
  exit 1
fi
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
fi
export QD_ARCH=cuda
status=0
for p in "${programs[@]}"; do
  echo "== $(basename "$p")"
  "$p" || status=1
done
if command -v compute-sanitizer >/dev/null 2>&1; then
  for tool in memcheck racecheck synccheck; do
    for p in "${programs[@]}"; do
      echo "== compute-sanitizer --tool $tool $(basename "$p")"
      compute-sanitizer --tool "$tool" --error-exitcode 3 "$p" || status=1
    done
  done
fi
exit $status
