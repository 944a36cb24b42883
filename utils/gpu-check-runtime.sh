#!/usr/bin/env bash
# Runs libqdrt's own GPU tests on a machine with an NVIDIA GPU: streams,
# events, fork/join results, the pool's no-creation-after-warm-up promise,
# driver errors, and overlap of stream-parallel groups. Then runs them again
# under compute-sanitizer (memcheck, racecheck, synccheck) when it is there.
#
#   utils/gpu-check-runtime.sh [build-dir]
#
# The test binary (build/bin/qdrt-gpu-tests) is built with the rest of the
# project and needs only the CUDA driver at run time, so it can be built on
# one machine and run on another.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${QDC_BUILD_DIR:-$root/build}}
bin=$build/bin/qdrt-gpu-tests
if [ ! -x "$bin" ]; then
  echo "qdc: $bin is missing; build it with: ninja -C $build qdrt-gpu-tests" >&2
  exit 1
fi
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
fi
export QD_ARCH=
"$bin"
if command -v compute-sanitizer >/dev/null 2>&1; then
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool"
    # Timing checks are meaningless under the sanitizer's instrumentation,
    # and the bad-PTX test makes a driver call fail on purpose.
    compute-sanitizer --tool "$tool" --error-exitcode 3 "$bin" \
      --gtest_brief=1 \
      --gtest_filter='-*Overlap*:*EventsOrderStreamsAndTime*:*BadPtx*'
  done
fi
