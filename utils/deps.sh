#!/usr/bin/env bash
# Installs the Debian packages qdc needs (DESIGN section 6). Idempotent: prints nothing and
# touches nothing when every package is already present.
set -euo pipefail

QDC_DEBIAN_PACKAGES=(
  llvm-19-dev libclang-19-dev libclang-cpp19-dev clang-19 lld-19 llvm-19-tools libclang-rt-19-dev
  libcli11-dev googletest libgtest-dev rocm-device-libs cmake ninja-build ccache python3
  graphviz libdlpack-dev
)

missing=()
for pkg in "${QDC_DEBIAN_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "qdc: missing packages (${missing[*]}) and no apt-get to install them" >&2
  exit 1
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "qdc: installing ${missing[*]} needs root" >&2; exit 1; }
  SUDO=sudo
fi
echo "qdc: installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
