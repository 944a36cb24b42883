#!/usr/bin/env bash
# The whole test suite: builds qdc and libqdrt, runs the runtime's tests
# under ThreadSanitizer and under AddressSanitizer + UBSan, the fuzzer's
# regression corpus and a one-minute fuzzing run, then every test (lit +
# FileCheck, gtest) through ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${QDC_BUILD_DIR:-$root/build}
jobs=${QDC_JOBS:-2}
"$root/utils/build.sh"

launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
for sanitizer in tsan asan; do
  dir="$build-$sanitizer"
  flag=-DQDRT_TSAN=ON
  [ "$sanitizer" = asan ] && flag=-DQDRT_SANITIZE=ON
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "$flag" "${launcher[@]}" >/dev/null
  fi
  ninja -C "$dir" -j"$jobs" qdrt-unittests
  echo "== libqdrt tests under $sanitizer"
  QD_ARCH= TSAN_OPTIONS="halt_on_error=1 suppressions=$root/utils/tsan.supp" \
    "$dir/bin/qdrt-unittests" --gtest_brief=1
done

# The fuzzer: its regression corpus, then a one-minute smoke run.
echo "== qdc-fuzz"
"$root/utils/fuzz.sh" --regress
QDC_FUZZ_SMOKE_DIR=$(mktemp -d)
# A fixed seed, so that a failure in CI can be replayed (QDC_FUZZ_SEED=1).
QDC_FUZZ_SEED=1 "$root/utils/fuzz.sh" 60 >"$QDC_FUZZ_SMOKE_DIR/log" 2>&1 || {
  tail -50 "$QDC_FUZZ_SMOKE_DIR/log"; exit 1; }
grep -E '^(Done|stat::number_of_executed_units)' "$QDC_FUZZ_SMOKE_DIR/log" || true
rm -rf "$QDC_FUZZ_SMOKE_DIR"

cd "$build"
ctest --output-on-failure -j"$jobs"
