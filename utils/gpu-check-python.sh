#!/usr/bin/env bash
# The Python modules on an NVIDIA GPU, in two steps, since the GPU machine
# has no LLVM (no qdc) and its own Python:
#
#   utils/gpu-check-python.sh prepare <dir> [build-dir]   # here, with qdc
#   <dir>/run.sh                                          # there
#
# prepare compiles test/python/pykernels.qd and test/bench/bench_py.qd for
# sm_80 and sm_90 (objects, headers, nanobind sources), builds the C++ side
# of the benchmark, and copies libqdrt, the headers, nanobind's sources
# (from the .venv of utils/deps.sh) and the test scripts into <dir>.
# run.sh builds the two modules with that machine's python3 and nanobind,
# runs test_gpu.py (PyTorch tensors), test_module.py on the CPU backend,
# and bench_python.py.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ "${1:-}" = prepare ] || { echo "usage: $0 prepare <dir> [build-dir]" >&2; exit 2; }
out=$2
build=${3:-${QDC_BUILD_DIR:-$root/build}}
venv=${QDC_VENV:-$root/.venv}
rm -rf "$out"
mkdir -p "$out/src" "$out/lib" "$out/bin"
for qd in "$root/test/python/pykernels.qd" "$root/test/bench/bench_py.qd"; do
  stem=$(basename "$qd" .qd)
  "$build/bin/qdc" "$qd" --offload-arch=sm_80,sm_90 -o "$out/src/$stem.o" \
    -H "$out/src/$stem.qd.h" --emit-python="$out/src/$stem.qd.python.cpp"
done
cp -a "$build"/lib/libqdrt.so* "$out/lib/"
# libqdrt finds oneTBB beside it (lib/tbb: runtime/CMakeLists.txt).
cp -a "$build/lib/tbb" "$out/lib/"
cp -r "$build/include" "$out/include"
nanobind=$("$venv/bin/python3" -c 'import nanobind, os; print(os.path.dirname(nanobind.__file__))')
cp -r "$nanobind" "$out/nanobind"
rm -rf "$out/nanobind/__pycache__"
c++ -std=c++17 -O2 -I "$out/src" -I "$out/include" "$root/test/bench/bench_py_cxx.cpp" \
  "$out/src/bench_py.o" -L "$out/lib" -lqdrt -Wl,-rpath,'$ORIGIN/../lib' \
  -o "$out/bin/bench-py-cxx"
cp "$root/test/bench/bench_py_cxx.h" "$root/test/bench/bench_py_module.cpp" "$out/src/"
cp "$root/test/python/gpu/CMakeLists.txt" "$out/"
cp "$root/test/python/test_gpu.py" "$root/test/python/test_module.py" \
  "$root/test/bench/bench_python.py" "$out/"
cat >"$out/run.sh" <<'RUN'
#!/usr/bin/env bash
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=$(command -v python3)
cmake -S "$here" -B "$here/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPython_EXECUTABLE="$python" -Dnanobind_DIR="$here/nanobind/cmake" >/dev/null
ninja -C "$here/build" >/dev/null
export PYTHONPATH=$here/build
status=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
echo "== test_gpu.py"
"$python" "$here/test_gpu.py" || status=1
echo "== test_module.py (CPU backend)"
QD_ARCH=cpu "$python" "$here/test_module.py" || status=1
echo "== bench_python.py"
"$python" "$here/bench_python.py" "$here/bin/bench-py-cxx" || status=1
exit $status
RUN
chmod +x "$out/run.sh"
echo "prepared $out ($(du -sh "$out" | cut -f1))"
