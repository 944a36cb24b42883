#!/usr/bin/env bash
# Packs qdc, its Clang and LLVM libraries, Clang's resource headers, the qd
# headers and libqdrt into one relocatable folder, so that the differential
# tester can run the CPU backend on a machine without LLVM (a many-core
# GPU machine, say). Usage:
#
#   utils/difftest/bundle.sh OUT.tar.xz [BUILD_DIR]
#
# On the other machine:
#
#   tar xf OUT.tar.xz -C /tmp     # gives /tmp/qdc-bundle
#   utils/difftest/pack.py --qdc /tmp/qdc-bundle/bin/qdc \
#     --include-dir /tmp/qdc-bundle/include --lib-dir /tmp/qdc-bundle/lib \
#     run --seconds 600 --jobs "$(nproc)"
#
# bin/qdc is a script that puts lib/llvm (the libraries qdc needs beyond
# the C and C++ runtimes) on the loader's path for qdc alone; nothing else
# run there sees them.
set -euo pipefail
out=${1:?usage: bundle.sh OUT.tar.xz [BUILD_DIR]}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${2:-$root/build}
qdc=$build/bin/qdc
[ -x "$qdc" ] || { echo "bundle.sh: no qdc in $build/bin (build first)" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
b=$stage/qdc-bundle
mkdir -p "$b/bin" "$b/lib/llvm"
cp "$qdc" "$b/bin/qdc.bin"
cat > "$b/bin/qdc" <<'SH'
#!/usr/bin/env bash
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/../lib/llvm${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/qdc.bin" "$@"
SH
chmod +x "$b/bin/qdc"
cp -r "$build/include" "$b/include"
cp "$build/lib/libqdrt.so" "$b/lib/"

# Every library qdc loads except the C and C++ runtimes the other machine
# has (a newer glibc and libstdc++ run what was built against older ones).
ldd "$qdc" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | while read -r lib; do
  case $(basename "$lib") in
    libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|ld-linux*|libpthread.so*|libdl.so*|librt.so*) ;;
    *) cp -L "$lib" "$b/lib/llvm/" ;;
  esac
done

# Clang's resource headers, where qdc looks first: <prefix>/lib/clang/<major>.
clang_lib=$(ldd "$qdc" | awk '$1 ~ /^libclang-cpp/ {print $3}')
major=$(basename "$(readlink -f "$clang_lib")" | sed -E 's/.*\.so\.([0-9]+).*/\1/')
resource=$(dirname "$clang_lib")/clang/$major
mkdir -p "$b/lib/clang/$major"
cp -r "$resource/include" "$b/lib/clang/$major/"

tar -C "$stage" -cf - qdc-bundle | xz -T"$(nproc)" -9 > "$out"
echo "bundle.sh: $(du -h "$out" | cut -f1) in $out"
