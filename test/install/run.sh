#!/usr/bin/env bash
# Installs qdc from a build tree into a fresh prefix, builds a separate CMake
# project against it with find_package(qdc) and qdc_add_kernels, runs it,
# then checks that touching a header one .qd includes rebuilds exactly that
# kernel's object.
#
#   test/install/run.sh <qdc-build-dir> <scratch-dir>
set -euo pipefail
build=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cp -r "$here/project" "$work/src"
cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
ninja -C "$work/build" >/dev/null
QD_ARCH=cpu LD_LIBRARY_PATH="$work/prefix/lib" "$work/build/app"

# Nothing to do right after a build.
if ninja -C "$work/build" -n | grep -q 'qdc '; then
  echo "FAIL: a second build would run qdc again"; exit 1
fi
sleep 1
touch "$work/src/common.h"
plan=$(ninja -C "$work/build" -n -d explain 2>&1)
echo "$plan" | grep 'qdc ' || true
if ! echo "$plan" | grep -q 'qdc fill.qd'; then
  echo "FAIL: touching common.h does not rebuild fill.o"; exit 1
fi
if echo "$plan" | grep -q 'qdc scale.qd'; then
  echo "FAIL: touching common.h rebuilds scale.o too"; exit 1
fi
ninja -C "$work/build" >/dev/null
QD_ARCH=cpu LD_LIBRARY_PATH="$work/prefix/lib" "$work/build/app"
echo "install tree: ok"
