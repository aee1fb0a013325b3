// Inputs that must fail, with the message they must produce (STYLE.md habit 11).

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/runtime/cl_error.hpp"
#include "liftc/runtime/run.hpp"
#include "test_session.hpp"

namespace liftc::runtime {
namespace {

using testing::error_of;
using testing::session;

TEST(Errors, ErrorNamesCoverTheStandardCodes) {
  struct Case {
    std::int32_t code;
    const char* name;
  };
  const Case cases[] = {
      {0, "CL_SUCCESS"},
      {-1, "CL_DEVICE_NOT_FOUND"},
      {-5, "CL_OUT_OF_RESOURCES"},
      {-11, "CL_BUILD_PROGRAM_FAILURE"},
      {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
      {-30, "CL_INVALID_VALUE"},
      {-46, "CL_INVALID_KERNEL_NAME"},
      {-54, "CL_INVALID_WORK_GROUP_SIZE"},
      {-55, "CL_INVALID_WORK_ITEM_SIZE"},
      {-61, "CL_INVALID_BUFFER_SIZE"},
      {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
      {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
      {-20, "CL_UNKNOWN_ERROR"},
      {12345, "CL_UNKNOWN_ERROR"},
  };
  for (const Case& c : cases) EXPECT_STREQ(cl_error_name(c.code), c.name) << c.code;
  for (std::int32_t code = -72; code <= -30; ++code) EXPECT_STRNE(cl_error_name(code), "CL_UNKNOWN_ERROR") << code;
  for (std::int32_t code = -19; code <= 0; ++code) EXPECT_STRNE(cl_error_name(code), "CL_UNKNOWN_ERROR") << code;
}

TEST(Errors, BuildFailureNamesTheErrorTheKernelAndTheLog) {
  constexpr const char* src = R"(
kernel void conv(global float* out) {
  out[get_global_id(0)] = undeclared_identifier_xyz;
}
)";
  const std::string msg = error_of([&] { build_program(session(), src, "-DFOO=1"); });
  EXPECT_NE(msg.find("building program for kernel 'conv'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << msg;
  EXPECT_NE(msg.find("-DFOO=1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("build log:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("undeclared_identifier_xyz"), std::string::npos) << msg;  // the compiler's own text
  const std::string with_purpose = error_of([&] { build_program(session(), src, "", "candidate 17 of conv3x3"); });
  EXPECT_NE(with_purpose.find("building program for candidate 17 of conv3x3"), std::string::npos) << with_purpose;
}

TEST(Errors, BadBuildOptions) {
  const std::string msg = error_of([] { build_program(session(), "kernel void k() {}", "-not-an-option-xyz"); });
  EXPECT_NE(msg.find("building program for kernel 'k'"), std::string::npos) << msg;
  EXPECT_TRUE(msg.find("CL_INVALID_BUILD_OPTIONS") != std::string::npos ||
              msg.find("CL_BUILD_PROGRAM_FAILURE") != std::string::npos)
      << msg;
}

constexpr const char* kCopy = "kernel void copy(global const float* a, global float* b) { int i = get_global_id(0); b[i] = a[i]; }";

LaunchPlan copy_plan(std::size_t n, NDRange global, NDRange local) {
  LaunchPlan plan;
  plan.buffers = {BufferSpec::input("a", std::vector<float>(n, 1.0f)), BufferSpec::output("b", n)};
  plan.kernels = {{"copy", std::move(global), std::move(local), {arg_buffer(0), arg_buffer(1)}}};
  return plan;
}

TEST(Errors, WorkGroupLargerThanTheDeviceAllows) {
  const std::size_t n = 100000;
  const std::string msg = error_of([&] { run_source(session(), kCopy, "", copy_plan(n, NDRange(n), NDRange(n))); });
  EXPECT_NE(msg.find("enqueueing kernel 'copy' with global (100000) local (100000)"), std::string::npos) << msg;
  EXPECT_TRUE(msg.find("CL_INVALID_WORK_GROUP_SIZE") != std::string::npos ||
              msg.find("CL_INVALID_WORK_ITEM_SIZE") != std::string::npos)
      << msg;
}

// A launch refused for its work-group size says what the compiled kernel allows: its own
// limit (CL_KERNEL_WORK_GROUP_SIZE, set by its registers and local memory, which on a GPU is
// often below the device's) beside what was asked.
TEST(Errors, AWorkGroupTheKernelRefusesNamesTheKernelsOwnLimit) {
  const std::size_t most = session().device().max_work_group_size;
  const std::size_t n = 2 * most;  // one dimension within the device's limits, twice the work-items
  LaunchPlan plan = copy_plan(n, NDRange(2, n / 2), NDRange(2, most));
  const std::string msg = error_of([&] {
    run_source(session(), "kernel void copy(global const float* a, global float* b) { int i = get_global_id(1) * 2 + "
                          "get_global_id(0); b[i] = a[i]; }",
               "", plan);
  });
  EXPECT_NE(msg.find("CL_INVALID_WORK_GROUP_SIZE"), std::string::npos) << msg;
  EXPECT_NE(msg.find(fmt::format("kernel 'copy' asks for work-groups of {} work-items (local (2, {})); compiled for "
                                 "this device it reports a limit of ",
                                 2 * most, most)),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("(CL_KERNEL_WORK_GROUP_SIZE: its registers and local memory)"), std::string::npos) << msg;
}

TEST(Errors, LocalSizeNotDividingGlobalSize) {
  // OpenCL 1.2 semantics (no -cl-std=CL2.0+ non-uniform groups): 7 does not divide 1024.
  const std::string msg = error_of([] { run_source(session(), kCopy, "", copy_plan(1024, NDRange(1024), NDRange(7))); });
  EXPECT_NE(msg.find("enqueueing kernel 'copy' with global (1024) local (7)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("CL_INVALID_"), std::string::npos) << msg;
}

TEST(Errors, UnknownKernelName) {
  LaunchPlan plan = copy_plan(16, NDRange(16), NDRange());
  plan.kernels[0].kernel = "missing";
  const std::string msg = error_of([&] { run_source(session(), kCopy, "", plan); });
  EXPECT_NE(msg.find("creating kernel 'missing'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("CL_INVALID_KERNEL_NAME"), std::string::npos) << msg;
}

TEST(Errors, WrongArgumentCount) {
  LaunchPlan plan = copy_plan(16, NDRange(16), NDRange());
  plan.kernels[0].args.pop_back();
  const std::string msg = error_of([&] { run_source(session(), kCopy, "", plan); });
  EXPECT_NE(msg.find("kernel 'copy' takes 2 arguments but the plan passes 1"), std::string::npos) << msg;
}

TEST(Errors, InconsistentPlans) {
  struct Case {
    const char* what;
    LaunchPlan plan;
    const char* message;
  };
  LaunchPlan bad_index = copy_plan(16, NDRange(16), NDRange());
  bad_index.kernels[0].args[1] = arg_buffer(5);
  LaunchPlan bad_dims = copy_plan(16, NDRange(4, 4), NDRange(4));
  LaunchPlan four_dims = copy_plan(16, NDRange(), NDRange());
  four_dims.kernels[0].global.sizes = {2, 2, 2, 2};
  LaunchPlan bad_host = copy_plan(16, NDRange(16), NDRange());
  bad_host.buffers[0].bytes = 8;
  LaunchPlan empty = copy_plan(16, NDRange(16), NDRange());
  empty.kernels.clear();
  LaunchPlan library = copy_plan(16, NDRange(16), NDRange());
  library.kernels[0].library = LibraryCall{"clblast-gemm", {4, 4, 1}, {}};
  const Case cases[] = {
      {"buffer index", bad_index, "argument 1 names buffer 5 but the plan has 2 buffers"},
      {"dimensions", bad_dims, "local size (4) and global size (4, 4) differ in dimensions"},
      {"four dims", four_dims, "global size has 4 dimensions (1-3 allowed)"},
      {"host size", bad_host, "has 8 bytes but 64 bytes of host data"},
      {"no kernels", empty, "no kernel to run"},
      {"a library call", library,
       "launch plan: step 0 calls clblast-gemm, a library routine that only liftc-runner runs (liftc explore); this "
       "in-process runtime runs generated kernels only"},
  };
  for (const Case& c : cases) {
    const std::string msg = error_of([&] { run_source(session(), kCopy, "", c.plan); });
    EXPECT_NE(msg.find(c.message), std::string::npos) << c.what << ": " << msg;
  }
  EXPECT_NE(error_of([] { run_source(session(), kCopy, "", copy_plan(16, NDRange(16), NDRange()), {.timed_runs = 0}); })
                .find("timed runs >= 1"),
            std::string::npos);
}

}  // namespace
}  // namespace liftc::runtime
