#!/usr/bin/env bash
# Installs qdc from a build tree into a fresh prefix, builds the wheel of
# docs/examples/python against it with pip (scikit-build-core, nanobind),
# installs the wheel into a fresh virtual environment that has neither qdc
# nor a compiler's help, and calls its kernels there on the CPU backend.
#
#   test/python/wheel.sh <qdc-build-dir> <scratch-dir> <python>
set -euo pipefail
trap 'echo "FAIL: wheel.sh line $LINENO: $BASH_COMMAND" >&2' ERR
build=$1
work=$2
python=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cp -r "$here/../../docs/examples/python" "$work/src"
CMAKE_PREFIX_PATH="$work/prefix" "$python" -m pip wheel --no-build-isolation \
  --no-deps --disable-pip-version-check -q -w "$work/dist" "$work/src" \
  -Cbuild-dir="$work/wheel-build"
wheel=$(ls "$work"/dist/saxpy-*.whl)
echo "wheel: $(basename "$wheel")"
"$python" -m venv "$work/fresh"
"$work/fresh/bin/python3" -m pip install -q --no-index --no-deps \
  --disable-pip-version-check "$wheel"
# Away from the build and the prefix, which are then removed.
rm -rf "$work/prefix" "$work/wheel-build" "$work/src"
cd "$work"
QD_ARCH=cpu "$work/fresh/bin/python3" - <<'PY'
import array
import saxpy
saxpy.init("cpu")
x = array.array("f", [float(i) for i in range(16)])
y = array.array("f", [1.0] * 16)
saxpy.saxpy(y, x, 2.0)
saxpy.sync()
want = [2.0 * i + 1.0 for i in range(16)]
assert list(y) == want, (list(y), want)
assert saxpy.dot(x, x) == float(sum(i * i for i in range(16)))
print("fresh environment: ok")
PY
