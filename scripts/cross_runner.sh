#!/usr/bin/env bash
# Builds liftc-runner (src/runner: OpenCL's C API and the C++ standard library only) for
# an ARM device, on its own, outside the liftc build:
#   --ndk DIR         with the Android NDK in DIR, for a phone (arm64-v8a, android-28);
#   (default)         with Debian's aarch64 cross compiler (g++-aarch64-linux-gnu), for an
#                     ARM Linux board.
# Either way it links against the device's own libOpenCL.so (--opencl-lib, e.g. pulled
# from a phone with `adb pull /vendor/lib64/libOpenCL.so`). With --check BUNDLE_DIR and
# qemu-user installed, the cross-built runner is then run once under qemu-aarch64 on that
# bundle: without an ARM OpenCL driver it must answer the protocol's JSON ("no OpenCL
# platform"), which shows that the binary, its bundle reader and its answer work.
#
# Usage: scripts/cross_runner.sh --opencl-lib PATH [--ndk DIR] [-o BUILD_DIR] [--check BUNDLE_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ndk="" lib="" out="$root/build-runner-aarch64" check=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ndk) ndk="$2"; shift 2 ;;
    --opencl-lib) lib="$2"; shift 2 ;;
    -o) out="$2"; shift 2 ;;
    --check) check="$2"; shift 2 ;;
    *) echo "cross_runner.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[[ -n "$lib" && -f "$lib" ]] || { echo "cross_runner.sh: give the device's libOpenCL.so with --opencl-lib PATH" >&2; exit 1; }
if [[ -n "$ndk" ]]; then
  toolchain=(-DCMAKE_TOOLCHAIN_FILE="$ndk/build/cmake/android.toolchain.cmake" -DANDROID_ABI=arm64-v8a -DANDROID_PLATFORM=android-28)
else
  command -v aarch64-linux-gnu-g++ > /dev/null || { echo "cross_runner.sh: no aarch64-linux-gnu-g++ (apt-get install g++-aarch64-linux-gnu)" >&2; exit 1; }
  toolchain=(-DCMAKE_TOOLCHAIN_FILE="$root/scripts/cross/aarch64-linux-gnu.cmake")
fi
cmake -S "$root/src/runner" -B "$out" "${toolchain[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DOpenCL_INCLUDE_DIR=/usr/include -DOpenCL_LIBRARY="$lib" > /dev/null
cmake --build "$out" > /dev/null
file "$out/liftc-runner" 2> /dev/null || echo "built $out/liftc-runner"
if [[ -n "$check" ]]; then
  [[ -z "$ndk" ]] || { echo "cross_runner.sh: --check runs the Linux build only" >&2; exit 1; }
  answer=$(LD_LIBRARY_PATH="$(dirname "$lib")" qemu-aarch64 -L /usr/aarch64-linux-gnu "$out/liftc-runner" "$check" || true)
  echo "$answer"
  [[ "$answer" == '{"protocol":'* ]] || { echo "cross_runner.sh: the runner gave no protocol answer" >&2; exit 1; }
fi
