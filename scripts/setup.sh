#!/usr/bin/env bash
# Installs liftc's build and run dependencies from Debian packages.
# Quick when everything is present: it only calls apt-get for what is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libboost-dev libboost-graph-dev          # Spirit X3 (header-only), Boost.Graph
  libz3-dev                                # constraint solving
  libfmt-dev libcli11-dev nlohmann-json3-dev libsqlite3-dev
  libpqxx-dev postgresql                   # the PostgreSQL results store, and the server its tests start
  opencl-headers opencl-clhpp-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo
  libgtest-dev
  libxgboost-dev                           # XGBoost's C API: the model-guided search's ranking model
  libclblast-dev                           # CLBlast 1.5.3: clblast- candidates (optional; CMake finds it)
  python3-matplotlib                       # scripts/plot_pareto.py (the demo's plot)
)

# shellcheck source=scripts/lib/debian_packages.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/debian_packages.sh"
ensure_debian_packages setup "${packages[@]}"
# initdb refuses root: the PostgreSQL store's tests (tests/explore/postgres_server.hpp) run
# their throwaway server as this user when they run as root.
if [ "$(id -u)" = 0 ] && ! id liftc-pg >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin liftc-pg
  echo "setup: made the user liftc-pg (the PostgreSQL tests' server runs as it)"
fi
echo "setup: all ${#packages[@]} packages present"
