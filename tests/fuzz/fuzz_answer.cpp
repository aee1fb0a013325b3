// libFuzzer target for parse_runner_answer (src/explore/evaluation/answer.cpp): any text a runner
// prints must give a checked answer or a one-line liftc::Error (never a crash or another
// exception: issue 20's nlohmann type_error ended the whole exploration), and what it
// gives must be what the evaluator may trust: a machine name, the protocol's statuses,
// times finite and >= 0, an ok with samples, the device's limits whole numbers it can
// read as int64.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "liftc/explore/evaluation/answer.hpp"
#include "liftc/support/diagnostic.hpp"

namespace {

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_answer: %s\n", why.c_str());
  std::abort();
}

bool time_ok(double t) { return std::isfinite(t) && t >= 0; }

// The device's fields as the evaluator reads them (evaluate.cpp's DeviceReport).
void read_device(const nlohmann::json& d) {
  for (const char* key : {"name", "vendor", "version", "driver"}) (void)d.at(key).get<std::string>();
  for (const char* key : {"compute_units", "max_work_group_size", "local_mem_bytes", "global_mem_bytes", "max_alloc_bytes",
                          "preferred_vector_width"})
    if (!d.at(key).is_number_integer() || d.at(key).get<std::int64_t>() < 0) fail(std::string("device.") + key);
  const auto& sizes = d.at("max_work_item_sizes");
  if (sizes.size() != 3) fail("max_work_item_sizes");
  for (const auto& s : sizes)
    if (s.get<std::int64_t>() < 0) fail("a negative max_work_item_sizes");
  (void)d.value("local_mem_global", false);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  liftc::explore::RunnerAnswer a;
  try {
    a = liftc::explore::parse_runner_answer(text);
  } catch (const liftc::Error& e) {
    if (e.message().find('\n') != std::string::npos) fail("a message of more than one line: " + e.message());
    return 0;
  } catch (const std::exception& e) {
    fail(std::string("escaped as an internal error: ") + e.what());
  }
  try {
    // The machine is stored with every row and shown in tables: a name of uname -m's kind.
    if (a.machine.empty() || a.machine.size() > 64 ||
        a.machine.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != std::string::npos)
      fail("machine " + a.machine);
    const char* statuses[] = {"ok", "wrong", "unwritten", "canary", "build", "run", "runner"};
    if (std::find(std::begin(statuses), std::end(statuses), a.status) == std::end(statuses)) fail("status " + a.status);
    if (a.status != "ok" && a.reason.empty()) fail("a failure without a reason");
    if (a.status == "ok" && !a.probe && a.samples_ms.empty()) fail("ok without samples");
    for (double t : a.samples_ms)
      if (!time_ok(t)) fail("a sample");
    if (!time_ok(a.median_ms) || !time_ok(a.min_ms) || !time_ok(a.max_ms) || a.min_ms > a.median_ms || a.median_ms > a.max_ms)
      fail("median, min, max");
    if (a.cut && a.samples_ms.size() != 1) fail("a cut answer with other than one sample");
    for (const auto& [phase, ms] : a.phases_ms)
      if (!time_ok(ms)) fail("phase " + phase);
    if (!time_ok(a.lock_wait_ms)) fail("lock_wait_ms");
    for (const auto& [from, to] : a.locked_ms)
      if (!time_ok(from) || !time_ok(to) || to < from) fail("locked_ms");
    if (a.pid < 0) fail("pid");
    if (!a.device.is_null()) read_device(a.device);
    if (a.probe && a.status == "ok" && a.device.is_null()) fail("an ok probe without a device");
  } catch (const std::exception& e) {
    fail(std::string("the answer cannot be read as the evaluator reads it: ") + e.what());
  }
  return 0;
}
