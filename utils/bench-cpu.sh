#!/usr/bin/env bash
# CPU stream benchmarks on this machine (no GPU needed): a stream-parallel
# kernel of two equal compute-bound groups against the same loops run one
# after the other, and a one-task kernel call's host cost. With a second
# argument, the lib/ directory of another build's libqdrt (an earlier
# commit's, say): the same benchmark binary runs with each library in turn,
# three rounds, and the ratios of the call costs are printed last.
#
#   utils/bench-cpu.sh [build-dir] [baseline-lib-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${QDC_BUILD_DIR:-$root/build}}
base=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bench=$build/bin/bench-cpu
[ -x "$bench" ] || ninja -C "$build" bench-cpu >/dev/null

echo "cores: $(nproc)   QD_CPU_THREADS: ${QD_CPU_THREADS:-(all)}"
rounds=${QDC_BENCH_ROUNDS:-3}
for r in $(seq 1 "$rounds"); do
  echo "== round $r: this build"
  QD_ARCH=cpu "$bench" | tee "$work/new.$r.txt"
  if [ -n "$base" ]; then
    echo "== round $r: libqdrt of $base"
    LD_LIBRARY_PATH="$base" QD_ARCH=cpu "$bench" | tee "$work/base.$r.txt"
  fi
done

# Medians of the rounds' medians.
med() { awk -v k="$1" '$1 == k {print $2}' "$2".*.txt | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
echo "== summary (medians over rounds)"
printf '%-28s %10s\n' "groups vs serial speedup" \
  "$(awk -v s="$(med serial_ms "$work/new")" -v g="$(med groups_ms "$work/new")" 'BEGIN {printf "%.2fx", s/g}')"
if [ -n "$base" ]; then
  printf '%-28s %10s\n' "  (baseline library)" \
    "$(awk -v s="$(med serial_ms "$work/base")" -v g="$(med groups_ms "$work/base")" 'BEGIN {printf "%.2fx", s/g}')"
  for k in call_us call_wait_us; do
    printf '%-28s %10s   (%s vs %s us)\n' "$k new/base" \
      "$(awk -v n="$(med $k "$work/new")" -v b="$(med $k "$work/base")" 'BEGIN {printf "%.2f", n/b}')" \
      "$(med $k "$work/new")" "$(med $k "$work/base")"
  done
fi
