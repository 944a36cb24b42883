#!/usr/bin/env bash
# Writes what a qdc binary generates for every .qd file of the repository
# into OUT: device source, launcher source, header, PTX, HSACO and the
# object, for NVIDIA, AMD, both, and the CPU alone, with each command's
# exit status and diagnostics. Two snapshots taken before and after a
# refactoring compare with `diff -r`: the outputs must be byte-identical.
#
#   utils/snapshot-outputs.sh QDC OUT
set -u
QDC=$(realpath "$1")
OUT=$2
PREFIX=$(dirname "$(dirname "$QDC")")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
cd "$ROOT"
git ls-files '*.qd' | while read -r F; do
  D="$OUT/${F//\//_}"
  mkdir -p "$D"
  run() { # NAME ARGS...: one output, its status and messages
    local Name=$1
    shift
    "$QDC" "$@" "$F" -o "$D/$Name" >"$D/$Name.log" 2>&1
    echo "rc=$?" >>"$D/$Name.log"
    # The messages name neither temporary files nor where qdc is.
    sed -i -E -e 's#/tmp/qdc-[A-Za-z0-9]+#/tmp/qdc-X#g' -e "s#$PREFIX#<qdc>#g" \
      "$D/$Name.log"
  }
  run device-src --emit=device-src --offload-arch=sm_80,gfx90a
  run device-src-amd --emit=device-src --offload-arch=gfx90a
  run launcher-src --emit=launcher-src --offload-arch=sm_80,sm_90a,gfx90a
  run launcher-src-cpu --emit=launcher-src --offload-arch=none
  run header --emit=header
  run ptx --emit=ptx --offload-arch=sm_90
  run hsaco --emit=hsaco --offload-arch=gfx90a
  run obj.o --offload-arch=sm_80
  run obj-cpu.o --offload-arch=none
done

# The driver's own messages: option errors and architecture checks, on one
# input.
F=test/qdc/Driver/Inputs/valid.qd
D="$OUT/_driver"
mkdir -p "$D"
I=0
while read -r ARGS; do
  I=$((I + 1))
  # shellcheck disable=SC2086 # ARGS is a list of options
  "$QDC" -I test/qdc/Driver/Inputs/include $ARGS "$F" -o "$D/out" >"$D/$I.log" 2>&1
  echo "rc=$? for: $ARGS" >>"$D/$I.log"
  sed -i -E -e 's#/tmp/qdc-[A-Za-z0-9]+#/tmp/qdc-X#g' -e "s#$PREFIX#<qdc>#g" "$D/$I.log"
done <<'CASES'
--offload-arch=sm_35
--offload-arch=sm_50
--offload-arch=sm_101
--offload-arch=sm_999
--offload-arch=compute_90 --emit=ptx
-gencode arch=compute_90,code=sm_90 --emit=ptx
-gencode bad
--offload-arch=sm_80,none
--offload-arch=native
--emit=ptx --offload-arch=gfx90a
--emit=llvm --offload-arch=none
--emit=hsaco --offload-arch=sm_80
--emit=bogus
-verify
-ccbin
--offload-arch=
-fsyntax-only --emit=ptx
-fsyntax-only --offload-arch=sm_80,gfx90a
--help
CASES
