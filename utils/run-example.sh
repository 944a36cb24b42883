#!/usr/bin/env bash
# The main job: builds everything, then runs the streams example (compiled
# by qdc) on the best available backend: CUDA, then AMD, then the CPU
# (QD_ARCH=cuda|amdgpu|cpu chooses).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${QDC_BUILD_DIR:-$root/build}
"$root/utils/build.sh" >/dev/null
"$build/bin/qdc" --emit=stream-plan "$root/docs/examples/streams/streams.qd"
exec "$build/bin/streams-example"
