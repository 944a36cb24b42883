#!/usr/bin/env bash
# The libFuzzer target for the frontend and code generation.
#   utils/fuzz.sh [seconds]   fuzz for that long (default 60), starting from
#                             the regression corpus and every test input;
#                             new crashing inputs go to <build>/findings/
#   utils/fuzz.sh --regress   run every input of test/fuzz/corpus once
#   QDC_FUZZ_BUILD_DIR        build folder (default: build-fuzz)
#   QDC_FUZZ_FULL=1           also compile images and objects per input
#   QDC_FUZZ_SEED             libFuzzer's seed (default 0: a random one)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${QDC_FUZZ_BUILD_DIR:-$root/build-fuzz}
"$root/utils/deps.sh"

launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DQDC_BUILD_FUZZER=ON -DBUILD_TESTING=OFF "${launcher[@]}" >/dev/null
fi
ninja -C "$build" -j"${QDC_JOBS:-2}" qdc-fuzz

fuzzer=$build/bin/qdc-fuzz
# Diagnostics are expected output, not findings: keep stderr quiet.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
if [ "${1:-}" = "--regress" ]; then
  "$fuzzer" -close_fd_mask=2 -rss_limit_mb=4096 "$root"/test/fuzz/corpus/*
  echo "qdc-fuzz: regression corpus: ok"
  exit 0
fi
seconds=${1:-60}
work=$build/corpus
mkdir -p "$work" "$build/findings"
seeds=("$root/test/fuzz/corpus")
while IFS= read -r -d '' f; do seeds+=("$f"); done < <(
  find "$root/test/qdc" "$root/test/e2e" "$root/docs/examples" -name '*.qd' -print0)
mkdir -p "$build/seeds"
for s in "${seeds[@]}"; do
  if [ -d "$s" ]; then cp "$s"/* "$build/seeds/"; else cp "$s" "$build/seeds/"; fi
done
"$fuzzer" -max_total_time="$seconds" -seed="${QDC_FUZZ_SEED:-0}" -timeout=30 -rss_limit_mb=4096 \
  -max_len=8192 -close_fd_mask=2 -artifact_prefix="$build/findings/" \
  -print_final_stats=1 "$work" "$build/seeds"
