# CMake toolchain for Linux on aarch64 with Debian's cross compiler (g++-aarch64-linux-gnu)
# and its multiarch arm64 libraries (ocl-icd-opencl-dev:arm64 in /usr/lib/aarch64-linux-gnu):
# used by scripts/build_aarch64_runner.sh to build liftc-runner.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Headers and libraries of the target only (the OpenCL headers are architecture-free, in /usr/include);
# programs (cmake's own tools) of the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
