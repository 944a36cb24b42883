#!/usr/bin/env bash
# Installs the Debian packages qdc needs (DESIGN section 6), then the Python packages that
# Python modules are built and tested with (nanobind, scikit-build-core, NumPy) into a virtual
# environment, $QDC_VENV (default: .venv in the repository). Idempotent: prints nothing and
# touches nothing when everything is already present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

QDC_DEBIAN_PACKAGES=(
  llvm-19-dev libclang-19-dev libclang-cpp19-dev clang-19 lld-19 llvm-19-tools libclang-rt-19-dev
  libcli11-dev googletest libgtest-dev rocm-device-libs cmake ninja-build ccache python3
  graphviz libdlpack-dev libtbb-dev python3-dev python3-venv clangd-19
)

# PyPI packages of the virtual environment, pinned: the versions CI tests.
QDC_PYTHON_PACKAGES=(nanobind==3.1.0 scikit-build-core==1.1.2 numpy==2.4.6)

install_python_packages() {
  local venv=${QDC_VENV:-$root/.venv}
  local stamp=$venv/qdc-packages.txt
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${QDC_PYTHON_PACKAGES[*]}" ] && return 0
  echo "qdc: installing Python packages into $venv: ${QDC_PYTHON_PACKAGES[*]}"
  [ -x "$venv/bin/python3" ] || python3 -m venv "$venv"
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check "${QDC_PYTHON_PACKAGES[@]}"
  echo "${QDC_PYTHON_PACKAGES[*]}" >"$stamp"
}

missing=()
for pkg in "${QDC_DEBIAN_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  install_python_packages
  exit 0
fi

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
install_python_packages
