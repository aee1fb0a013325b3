#pragma once
// A fresh folder for one test: under the system's temporary folder, named after the test
// and the process (ctest runs the cases of a binary in parallel processes), emptied first.

#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace liftc::explore::test {

inline std::filesystem::path fresh_test_folder(const std::string& prefix) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      fmt::format("{}_{}_{}", prefix, ::testing::UnitTest::GetInstance()->current_test_info()->name(), getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace liftc::explore::test
