#!/usr/bin/env bash
# A runner for `liftc explore --runner scripts/adb_runner.sh`: runs one candidate bundle
# on an Android phone (Mali, Adreno) over adb and prints the phone runner's JSON answer.
#
# Setup, once: build liftc-runner for the phone with the Android NDK (it needs only
# OpenCL's C API and the C++ standard library) against the phone's libOpenCL.so, e.g.
#   adb pull /vendor/lib64/libOpenCL.so /tmp/phone/
#   cmake -S src/runner -B build-android \
#         -DCMAKE_TOOLCHAIN_FILE=$ANDROID_NDK/build/cmake/android.toolchain.cmake \
#         -DANDROID_ABI=arm64-v8a -DANDROID_PLATFORM=android-28 \
#         -DOpenCL_INCLUDE_DIR=/usr/include -DOpenCL_LIBRARY=/tmp/phone/libOpenCL.so
#   cmake --build build-android
#   adb push build-android/liftc-runner /data/local/tmp/liftc/liftc-runner
# then explore with the phone's limits, e.g.
#   liftc explore examples/vgg16/conv_reduced.sr --pareto --target mali-g72 \
#         --runner scripts/adb_runner.sh --timeout 120
#
# Environment: ADB (default adb), ANDROID_SERIAL (which phone, read by adb itself),
# LIFTC_PHONE_DIR (default /data/local/tmp/liftc).
set -euo pipefail
bundle="${1:?usage: adb_runner.sh BUNDLE_DIR}"
adb="${ADB:-adb}"
phone_dir="${LIFTC_PHONE_DIR:-/data/local/tmp/liftc}"
remote="$phone_dir/bundle"
"$adb" shell "rm -rf '$remote' && mkdir -p '$remote'" >&2
# adb push copies the folder's contents into $remote (bundle.txt, kernels.cl, inputs/, expected/).
"$adb" push "$bundle/." "$remote" >&2
# The phone runner's stdout is the answer; its exit status is passed on.
"$adb" shell "cd '$phone_dir' && LD_LIBRARY_PATH=/vendor/lib64:/system/vendor/lib64 ./liftc-runner '$remote'"
