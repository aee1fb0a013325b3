#!/usr/bin/env bash
# Builds liftc-runner (src/runner: OpenCL's C API and the C++ standard library only) for
# aarch64 on its own, outside the liftc build, and prints the binary's path:
#   (default)              Linux aarch64, with Debian's cross compiler (g++-aarch64-linux-gnu)
#                          and the arm64 OpenCL ICD loader of Debian's multiarch packages
#                          (ocl-icd-opencl-dev:arm64), into build-aarch64/; installs them
#                          itself. scripts/qemu_runner.sh runs this build under qemu-aarch64.
#   --ndk DIR --opencl-lib LIB
#                          Android (arm64-v8a, android-28), with the Android NDK in DIR,
#                          against a phone's own libOpenCL.so (`adb pull
#                          /vendor/lib64/libOpenCL.so`), into build-android/; for
#                          scripts/adb_runner.sh (src/runner/README.md, "On a phone").
# -o DIR puts the build elsewhere. Rebuilding an up-to-date build costs a fraction of a second.
#
# Usage: scripts/build_aarch64_runner.sh [--ndk DIR --opencl-lib LIB] [-o BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/lib/debian_packages.sh
source "$root/scripts/lib/debian_packages.sh"
ndk="" lib="" out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ndk) ndk="${2:?--ndk needs a folder}"; shift 2 ;;
    --opencl-lib) lib="${2:?--opencl-lib needs a libOpenCL.so}"; shift 2 ;;
    -o) out="${2:?-o needs a folder}"; shift 2 ;;
    *) echo "error: build_aarch64_runner.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done

if [[ -n "$ndk" ]]; then
  [[ -f "$ndk/build/cmake/android.toolchain.cmake" ]] ||
    { echo "error: build_aarch64_runner.sh: $ndk is not an Android NDK (no build/cmake/android.toolchain.cmake)" >&2; exit 1; }
  [[ -n "$lib" && -f "$lib" ]] ||
    { echo "error: build_aarch64_runner.sh: --ndk needs the phone's libOpenCL.so (--opencl-lib PATH)" >&2; exit 1; }
  ensure_debian_packages build_aarch64_runner cmake opencl-c-headers
  out="${out:-$root/build-android}"
  config=(-DCMAKE_TOOLCHAIN_FILE="$ndk/build/cmake/android.toolchain.cmake" -DANDROID_ABI=arm64-v8a
          -DANDROID_PLATFORM=android-28 -DOpenCL_INCLUDE_DIR=/usr/include -DOpenCL_LIBRARY="$lib")
else
  [[ -z "$lib" ]] || { echo "error: build_aarch64_runner.sh: --opencl-lib goes with --ndk" >&2; exit 1; }
  ensure_debian_architecture arm64
  ensure_debian_packages build_aarch64_runner cmake make g++-aarch64-linux-gnu opencl-c-headers ocl-icd-opencl-dev:arm64
  out="${out:-$root/build-aarch64}"
  config=(-DCMAKE_TOOLCHAIN_FILE="$root/scripts/cross/aarch64-linux-gnu.cmake")
fi
# The compiler cache of the liftc build, when it uses one.
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [[ ! -f "$out/CMakeCache.txt" ]]; then
  cmake -S "$root/src/runner" -B "$out" "${config[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release > /dev/null
fi
cmake --build "$out" --target liftc-runner > /dev/null
echo "$out/liftc-runner"
