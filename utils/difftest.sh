#!/usr/bin/env bash
# The differential tester: random race-free kernel programs compiled by qdc
# and by a serial C++ reference, outputs compared (docs/difftest.md).
#   utils/difftest.sh [seconds] [start-seed]   run for that long (default 300)
#   DIFFTEST_JOBS        parallel jobs (default 2)
#   DIFFTEST_OUT         where failing programs go (default difftest-failures)
#   DIFFTEST_FEATURES    generator features (default: default)
# 40 programs a module (utils/difftest/pack.py); one at a time, and gen, check,
# reduce, gpu-batch: utils/difftest/difftest.py --help
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec python3 "$root/utils/difftest/pack.py" --features "${DIFFTEST_FEATURES:-default}" \
  run --seconds "${1:-300}" --seed "${2:-1}" --jobs "${DIFFTEST_JOBS:-2}" \
  --out "${DIFFTEST_OUT:-difftest-failures}"
