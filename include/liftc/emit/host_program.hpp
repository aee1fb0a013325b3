#pragma once
// A standalone host program for a Module: C++ on the plain OpenCL C API, with its own
// CMakeLists.txt, that reads each input from INPUT_DIR/<name>.npy, runs the kernels in
// order on an OpenCL device (the first GPU, else the first device, or the index given),
// prints each kernel's time, and writes each definition to OUTPUT_DIR/<name>.npy.
// What a user copies to a board with a Mali or Adreno GPU. Sizes must be bound. Made from
// templates/host/main.cpp and CMakeLists.txt; `program_name` is outside text (a file name):
// a comment's text in main.cpp, and the executable's name as cmake_name() makes it.

#include <string>

#include "liftc/codegen/module.hpp"

namespace liftc::emit {

/// The host program's main.cpp (kernels embedded; buffers, sizes and NDRanges from `m`).
std::string host_program(const codegen::Module& m, const std::string& program_name = "liftc_program");

/// The CMakeLists.txt building host_program's main.cpp into executable cmake_name(program_name).
std::string host_cmake(const std::string& program_name = "liftc_program");

/// Writes main.cpp, CMakeLists.txt, kernels.cl and plan.json (the host plan, host_plan.hpp)
/// into `dir` (created if missing).
void write_host_project(const codegen::Module& m, const std::string& dir, const std::string& program_name = "liftc_program");

}  // namespace liftc::emit
