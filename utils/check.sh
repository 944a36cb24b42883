#!/usr/bin/env bash
# The whole test suite: builds qdc, then runs every test (lit + FileCheck, gtest) through ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${QDC_BUILD_DIR:-$root/build}
"$root/utils/build.sh"
cd "$build"
ctest --output-on-failure -j"${QDC_JOBS:-2}"
