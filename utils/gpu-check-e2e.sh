#!/usr/bin/env bash
# Runs the end-to-end programs (test/e2e) and the examples on an NVIDIA GPU,
# then the programs again under compute-sanitizer (memcheck, racecheck,
# synccheck) when it is there.
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
# The examples: mpm88 (Quadrants' regression values), and PyTorch tensors
# through qdc kernels by DLPack where PyTorch is installed.
if [ -x "$build/bin/mpm88-example" ]; then
  echo "== mpm88-example"
  "$build/bin/mpm88-example" || status=1
fi
if [ -f "$build/lib/libqd-torch-example.so" ] &&
  python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  echo "== docs/examples/torch/roundtrip.py"
  python3 "$root/docs/examples/torch/roundtrip.py" \
    "$build/lib/libqd-torch-example.so" || status=1
fi
if command -v compute-sanitizer >/dev/null 2>&1; then
  for tool in memcheck racecheck synccheck; do
    for p in "${programs[@]}"; do
      echo "== compute-sanitizer --tool $tool $(basename "$p")"
      compute-sanitizer --tool "$tool" --error-exitcode 3 "$p" || status=1
    done
  done
fi
exit $status
