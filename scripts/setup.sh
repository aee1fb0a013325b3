#!/usr/bin/env bash
# Installs liftc's build and run dependencies from Debian packages.
# Quick when everything is present: it only calls apt-get for what is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libboost-dev libboost-graph-dev          # Spirit X3 (header-only), Boost.Graph
  libz3-dev                                # constraint solving
  libfmt-dev libcli11-dev nlohmann-json3-dev libsqlite3-dev
  opencl-headers opencl-clhpp-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo
  libgtest-dev
  python3-matplotlib                       # scripts/plot_pareto.py (the demo's plot)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
