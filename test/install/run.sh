#!/usr/bin/env bash
# Installs qdc from a build tree into a fresh prefix, builds a separate CMake
# project against it with find_package(qdc) and qdc_add_kernels, runs it,
# then checks that touching a header one .qd includes rebuilds exactly that
# kernel's object. Last, moves the prefix to another folder and builds and
# runs the project again with the moved qdc, through CMake and by hand: an
# installed qdc finds its headers and tools at run time, never at paths of
# the build tree.
#
#   test/install/run.sh <qdc-build-dir> <scratch-dir>
set -euo pipefail
# A step that fails says which (ctest shows it with --output-on-failure).
trap 'echo "FAIL: run.sh line $LINENO: $BASH_COMMAND" >&2' ERR
build=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null

# A read-only source tree configures and builds, and nothing is written into
# it (the listing is compared: root may write into a read-only folder).
cp -r "$here/project" "$work/ro-src"
chmod -R a-w "$work/ro-src"
before=$(cd "$work/ro-src" && find . -printf '%p %s %T@\n' | sort)
cmake -S "$work/ro-src" -B "$work/ro-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
ninja -C "$work/ro-build" >/dev/null
after=$(cd "$work/ro-src" && find . -printf '%p %s %T@\n' | sort)
if [ "$before" != "$after" ]; then
  echo "FAIL: the build wrote into the source tree:"
  diff <(echo "$before") <(echo "$after") || true
  exit 1
fi
chmod -R u+w "$work/ro-src"

cp -r "$here/project" "$work/src"
cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DQDC_WRITE_CLANGD=ON >/dev/null
ninja -C "$work/build" >/dev/null
QD_ARCH=cpu LD_LIBRARY_PATH="$work/prefix/lib" "$work/build/app"
# CMAKE_CUDA_ARCHITECTURES reached qdc; the two kern.qd have their own
# objects and namespaces.
commands=$(ninja -C "$work/build" -t commands)
for want in "--offload-arch=sm_80,sm_90" "qdc/app/a/kern.o" "--namespace=a::kern" \
            "qdc/app/b/kern.o" "--namespace=b::kern"; do
  if ! echo "$commands" | grep -q -e "$want"; then
    echo "FAIL: no qdc command has $want"; exit 1
  fi
done

# clangd reads the .qd files through the .clangd qdc_add_kernels wrote when
# asked (QDC_WRITE_CLANGD),
# with the compile commands of the project's C++ files: no error in them,
# an error in a broken one.
if ! head -1 "$work/src/.clangd" | grep -q '^# Written by qdc'; then
  echo "FAIL: qdc_add_kernels wrote no .clangd"; exit 1
fi
if command -v clangd >/dev/null 2>&1; then
  for f in fill.qd scale.qd a/kern.qd; do
    if ! clangd --compile-commands-dir="$work/build" --check="$work/src/$f" 2>&1 |
        grep -q 'All checks completed, 0 errors'; then
      echo "FAIL: clangd reports errors in $f"; exit 1
    fi
  done
  printf '#include <qd/qd.h>\nQD_KERNEL void k() { undeclared_name = 1; }\n' > "$work/src/broken.qd"
  if clangd --compile-commands-dir="$work/build" --check="$work/src/broken.qd" 2>&1 |
      grep -q 'All checks completed, 0 errors'; then
    echo "FAIL: clangd finds no error in broken.qd"; exit 1
  fi
  rm "$work/src/broken.qd"
  # The installed qdc-lsp (with the qdc beside it) sends go-to-definition
  # on main.cpp's call of fill::fill to the kernel in fill.qd.
  def=$(cd "$work/src" && python3 "$here/../qdc/Driver/Inputs/lsp_client.py" main.cpp 6:10 -- \
    "$work/prefix/bin/qdc-lsp" --compile-commands-dir="$work/build" --log=error 2>/dev/null)
  if [ "$def" != "def $work/src/fill.qd:3" ]; then
    echo "FAIL: qdc-lsp's definition of fill::fill is '$def'"; exit 1
  fi
  echo "clangd: ok"
fi

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

# The prefix, moved.
build_tree=$(cd "$build" && pwd)
source_tree=$(cd "$here/../.." && pwd)
mv "$work/prefix" "$work/moved"
moved=$work/moved
for f in "$moved/bin/qdc" "$moved"/lib/libqdrt*; do
  if grep -q -a -e "$build_tree" -e "$source_tree" "$f"; then
    echo "FAIL: $f names the build or source tree"; exit 1
  fi
done
if [ "$("$moved/bin/qdc" --print-include-dir)" != "$moved/include" ]; then
  echo "FAIL: the moved qdc looks for its headers elsewhere"; exit 1
fi
# This build runs qdc through a launcher (QDC_COMPILER_LAUNCHER), which
# logs each command and runs it.
printf '#!/bin/sh\necho "$@" >> "%s"\nexec "$@"\n' "$work/launched.txt" > "$work/launcher.sh"
chmod +x "$work/launcher.sh"
cmake -S "$work/src" -B "$work/build-moved" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$moved" -DQDC_COMPILER_LAUNCHER="$work/launcher.sh" >/dev/null
ninja -C "$work/build-moved" >/dev/null
QD_ARCH=cpu LD_LIBRARY_PATH="$moved/lib" "$work/build-moved/app"
if [ "$(grep -c "^$moved/bin/qdc .*\.qd -o " "$work/launched.txt")" != 4 ]; then
  echo "FAIL: the launcher did not run the 4 qdc compiles:"; cat "$work/launched.txt"; exit 1
fi
# QDC_CACHE_DIR: a second build from a clean build folder takes all four
# objects from qdc's compile cache, and the program still runs.
cmake -S "$work/src" -B "$work/build-cached" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$moved" -DQDC_CACHE_DIR="$work/qdc-cache" >/dev/null
ninja -C "$work/build-cached" >/dev/null
ninja -C "$work/build-cached" -t clean >/dev/null
ninja -C "$work/build-cached" >/dev/null
QD_ARCH=cpu LD_LIBRARY_PATH="$moved/lib" "$work/build-cached/app"
if [ "$(grep -c '^stored ' "$work/qdc-cache/log")" != 4 ] ||
   [ "$(grep -c '^hit ' "$work/qdc-cache/log")" != 4 ]; then
  echo "FAIL: the second build did not take its 4 objects from the cache:"
  cat "$work/qdc-cache/log"; exit 1
fi
mkdir -p "$work/by-hand/a" "$work/by-hand/b"
(cd "$work/src" && "$moved/bin/qdc" fill.qd -o "$work/by-hand/fill.o" --offload-arch=sm_80,gfx90a \
  && "$moved/bin/qdc" -I include -DAPP_BIAS=0.5f scale.qd -o "$work/by-hand/scale.o" \
  && "$moved/bin/qdc" a/kern.qd --namespace=a::kern -o "$work/by-hand/a/kern.o" \
  && "$moved/bin/qdc" b/kern.qd --namespace=b::kern -o "$work/by-hand/b/kern.o")
c++ -std=c++17 -I "$moved/include" -I "$work/by-hand" "$work/src/main.cpp" \
  "$work/by-hand/fill.o" "$work/by-hand/scale.o" "$work/by-hand/a/kern.o" \
  "$work/by-hand/b/kern.o" -L "$moved/lib" -lqdrt -o "$work/by-hand/app"
QD_ARCH=cpu LD_LIBRARY_PATH="$moved/lib" "$work/by-hand/app"
echo "moved prefix: ok"
echo "install tree: ok"
