#!/usr/bin/env bash
# The main job: builds everything, then runs the streams example (compiled
# by qdc) on the best available backend: CUDA, then AMD, then the CPU
# (QD_ARCH=cuda|amdgpu|cpu chooses).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${QDC_BUILD_DIR:-$root/build}
# The build's progress goes to stderr (the first build takes minutes), so
# that stdout holds the stream plan and the example's output alone.
echo "qdc: building in $build (up to date after the first time)" >&2
"$root/utils/build.sh" >&2
"$build/bin/qdc" --emit=stream-plan "$root/docs/examples/streams/streams.qd"
exec "$build/bin/streams-example"
