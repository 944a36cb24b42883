#!/usr/bin/env bash
# Installs missing dependencies, then configures and builds qdc with Ninja.
#   QDC_BUILD_DIR   build folder (default: build)
#   QDC_BUILD_TYPE  CMake build type (default: Release)
#   QDC_JOBS        parallel jobs (default: 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${QDC_BUILD_DIR:-$root/build}

"$root/utils/deps.sh"

launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE="${QDC_BUILD_TYPE:-Release}" "${launcher[@]}" >/dev/null
fi
ninja -C "$build" -j"${QDC_JOBS:-2}"
