#!/usr/bin/env bash
# Benchmarks on a machine with two GPUs (DESIGN section 3.3), three rounds
# each, side by side: qd::copy_async between the GPUs with peer access
# against cudaMemcpyPeerAsync (GB/s), and axpy over the halves of an array
# on two GPUs against the whole on one (test/e2e/devices' timing line).
#
#   utils/bench-multi-gpu.sh [build-dir]
#
# Needs the build's bench-peer, e2e-devices and libqdrt, and nvcc here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${QDC_BUILD_DIR:-$root/build}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" -O3 -o "$work/peer_baseline" "$root/test/bench/peer_baseline.cu"
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || true
for r in 1 2 3; do
  "$build/bin/bench-peer"
  "$work/peer_baseline"
  QD_ARCH=cuda "$build/bin/e2e-devices" | grep '^axpy'
done
