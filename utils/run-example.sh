#!/usr/bin/env bash
# The main job: builds qdc and runs it on the streams example.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${QDC_BUILD_DIR:-$root/build}
"$root/utils/build.sh" >/dev/null
"$build/bin/qdc" --emit=stream-plan "$root/docs/examples/streams/streams.qd"
