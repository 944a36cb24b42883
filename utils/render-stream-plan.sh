#!/usr/bin/env bash
# Renders the stream plan of the streams example to docs/images/stream-plan.svg.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${QDC_BUILD_DIR:-$root/build}
"$build/bin/qdc" --emit=stream-plan --plan-format=dot \
  "$root/docs/examples/streams/streams.qd" | dot -Tsvg -o "$root/docs/images/stream-plan.svg"
