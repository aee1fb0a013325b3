// parse_runner_answer: what a runner prints is a checked protocol-1 answer or one
// liftc::Error line naming the field. The rows marked "issue 20" are the answers of the
// hostile-user test that were stored (an impossible time on the front, status cut, an
// unknown status) or ended the exploration (a wrong type); the last rows are fuzz_answer's.

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "liftc/explore/evaluation/answer.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {
namespace {

// A valid device object, and an answer line around it.
const std::string kDevice =
    R"({"name":"gpu","vendor":"v","version":"OpenCL 3.0","driver":"1","compute_units":2,"max_work_group_size":1024,)"
    R"("max_work_item_sizes":[1024,1024,64],"local_mem_bytes":65536,"local_mem_global":false,)"
    R"("global_mem_bytes":8000000000,"max_alloc_bytes":2000000000,"preferred_vector_width":4})";

std::string ok_with(const std::string& fields) {
  return R"({"protocol":1,"machine":"x86_64","status":"ok","reason":"","samples_ms":[1,2,3],"median_ms":2,"min_ms":1,"max_ms":3)" +
         (fields.empty() ? "" : "," + fields) + "}\n";
}

// kDevice with `key`'s value replaced by `value`.
std::string device_with(const std::string& key, const std::string& value) {
  std::string d = kDevice;
  std::size_t at = d.find("\"" + key + "\":") + key.size() + 3;
  std::size_t end = at;
  int depth = 0;
  while (end < d.size() && (depth > 0 || (d[end] != ',' && d[end] != '}'))) {
    if (d[end] == '[') ++depth;
    if (d[end] == ']') --depth;
    ++end;
  }
  return d.replace(at, end - at, value);
}

struct BadAnswer {
  const char* what;
  std::string text;
  std::string message;
};

TEST(RunnerAnswer, AnswersThatBreakTheProtocolAreErrorsNamingTheField) {
  const std::string p = R"({"protocol":1,"machine":"aarch64",)";
  const BadAnswer cases[] = {
      {"nothing", "nothing here\n", "the runner printed no JSON answer"},
      {"an array", "[1,2]\n", "the runner printed no JSON answer"},
      {"protocol 2", R"({"protocol": 2, "status": "ok"})", R"(the runner's answer is not liftc-runner protocol 1 ("protocol": 2))"},
      {"protocol \"1\" (issue 20)", R"({"protocol":"1","status":"ok","samples_ms":[1]})",
       R"(the runner's answer is not liftc-runner protocol 1 ("protocol": "1"))"},
      {"protocol 1.0", R"({"protocol":1.0,"status":"ok","samples_ms":[1]})",
       R"(the runner's answer is not liftc-runner protocol 1 ("protocol": 1.0))"},
      {"no protocol", R"({"status":"ok"})", R"(the runner's answer is not liftc-runner protocol 1 (it has no "protocol"))"},
      {"no machine (a runner built before it named its machine)", R"({"protocol":1,"status":"ok","samples_ms":[1]})",
       R"(the runner's answer has an invalid "machine": missing (a liftc-runner built before answers named their )"
       R"(machine? Rebuild it))"},
      {"machine 64", R"({"protocol":1,"machine":64})", R"(the runner's answer has an invalid "machine": expected a string, got 64)"},
      {"machine \"\"", R"({"protocol":1,"machine":""})",
       R"(the runner's answer has an invalid "machine": expected an architecture as uname -m names it (1 to 64 letters, )"
       R"(digits, '_', '-', '.'), got "")"},
      {"machine with a space", R"({"protocol":1,"machine":"arm 64"})",
       R"(the runner's answer has an invalid "machine": expected an architecture as uname -m names it (1 to 64 letters, )"
       R"(digits, '_', '-', '.'), got "arm 64")"},
      {"machine with a line break", R"({"protocol":1,"machine":"arm\n64"})",
       R"(the runner's answer has an invalid "machine": expected an architecture as uname -m names it (1 to 64 letters, )"
       R"(digits, '_', '-', '.'), got "arm\n64")"},
      {"machine of 65 letters", R"({"protocol":1,"machine":")" + std::string(65, 'a') + "\"}",
       R"(the runner's answer has an invalid "machine": expected an architecture as uname -m names it (1 to 64 letters, )"
       R"(digits, '_', '-', '.'), got ")" + std::string(56, 'a') + "..."},
      {"no status", p.substr(0, p.size() - 1) + "}", R"(the runner's answer has an invalid "status": missing)"},
      {"status 5 (issue 20)", p + R"("status":5})", R"(the runner's answer has an invalid "status": expected a string, got 5)"},
      {"status cut (issue 20)", p + R"("status":"cut","samples_ms":[1]})",
       R"(the runner's answer has an invalid "status": "cut" is not one of ok, wrong, unwritten, canary, build, run, runner)"},
      {"status unknown (issue 20)", p + R"("status":"fine"})",
       R"(the runner's answer has an invalid "status": "fine" is not one of ok, wrong, unwritten, canary, build, run, runner)"},
      {"reason 5 (issue 20)", p + R"("status":"wrong","reason":5})",
       R"(the runner's answer has an invalid "reason": expected a string, got 5)"},
      {"a failure without a reason", p + R"("status":"build"})",
       R"(the runner's answer has an invalid "reason": status build needs a reason)"},
      {"ok without samples (issue 20)", p + R"("status":"ok"})",
       R"(the runner's answer has an invalid "samples_ms": status ok needs at least one sample)"},
      {"ok with empty samples", p + R"("status":"ok","samples_ms":[]})",
       R"(the runner's answer has an invalid "samples_ms": status ok needs at least one sample)"},
      {"median -5 (issue 20)", p + R"("status":"ok","samples_ms":[1],"median_ms":-5})",
       R"(the runner's answer has an invalid "median_ms": expected a finite number >= 0, got -5)"},
      {"a negative sample", p + R"("status":"ok","samples_ms":[1,-2]})",
       R"(the runner's answer has an invalid "samples_ms[1]": expected a finite number >= 0, got -2)"},
      {"a sample 1e999 (not JSON nlohmann reads)", p + R"("status":"ok","samples_ms":[1e999]})", "the runner printed no JSON answer"},
      {"a string sample", p + R"("status":"ok","samples_ms":["1"]})",
       R"(the runner's answer has an invalid "samples_ms[0]": expected a number >= 0, got "1")"},
      {"samples not an array", p + R"("status":"ok","samples_ms":1})",
       R"(the runner's answer has an invalid "samples_ms": expected an array, got 1)"},
      {"median not the samples'", p + R"("status":"ok","samples_ms":[1,2,3],"median_ms":2.5})",
       R"(the runner's answer has an invalid "median_ms": 2.5 is not the median of samples_ms (2))"},
      {"min not the samples'", p + R"("status":"ok","samples_ms":[1,2,3],"min_ms":0})",
       R"(the runner's answer has an invalid "min_ms": 0 is not the minimum of samples_ms (1))"},
      {"max not the samples'", p + R"("status":"ok","samples_ms":[1,2,3],"max_ms":4})",
       R"(the runner's answer has an invalid "max_ms": 4 is not the maximum of samples_ms (3))"},
      {"a median without samples", p + R"("status":"run","reason":"r","median_ms":0})",
       R"(the runner's answer has an invalid "median_ms": 0 without samples)"},
      {"cut \"yes\" (issue 20)", ok_with(R"("cut":"yes")"), R"(the runner's answer has an invalid "cut": expected true or false, got "yes")"},
      {"cut with three samples", ok_with(R"("cut":true)"), R"(the runner's answer has an invalid "cut": a cut answer has one sample, not 3)"},
      {"stopped 1", ok_with(R"("stopped":1)"), R"(the runner's answer has an invalid "stopped": expected true or false, got 1)"},
      {"stopped, not cut", ok_with(R"("stopped":true)"), R"(the runner's answer has an invalid "stopped": a stopped answer is cut)"},
      {"reused_context 1 (issue 20)", ok_with(R"("reused_context":1)"),
       R"(the runner's answer has an invalid "reused_context": expected true or false, got 1)"},
      {"pid -3", ok_with(R"("pid":-3)"), R"(the runner's answer has an invalid "pid": expected a whole number >= 0, got -3)"},
      {"pid 0", ok_with(R"("pid":0)"), R"(the runner's answer has an invalid "pid": expected a process id, got 0)"},
      {"mismatches 1.5", ok_with(R"("mismatches":1.5)"),
       R"(the runner's answer has an invalid "mismatches": expected a whole number >= 0, got 1.5)"},
      {"workspace_bytes -1", ok_with(R"("workspace_bytes":-1)"),
       R"(the runner's answer has an invalid "workspace_bytes": expected a whole number >= 0, got -1)"},
      {"a phase -1", ok_with(R"("phases_ms":{"build":1,"upload":-1})"),
       R"(the runner's answer has an invalid "phases_ms.upload": expected a finite number >= 0, got -1)"},
      {"phases an array", ok_with(R"("phases_ms":[1])"), R"(the runner's answer has an invalid "phases_ms": expected an object, got [1])"},
      {"locked_ms backwards", ok_with(R"("locked_ms":[[5,4]])"),
       R"(the runner's answer has an invalid "locked_ms[0]": released before acquired: [5,4])"},
      {"locked_ms a triple", ok_with(R"("locked_ms":[[1,2,3]])"),
       R"(the runner's answer has an invalid "locked_ms[0]": expected [acquired, released], got [1,2,3])"},
      {"kernel medians of strings", ok_with(R"("kernel_median_ms":["a"])"),
       R"(the runner's answer has an invalid "kernel_median_ms[0]": expected a number >= 0, got "a")"},
      {"device \"cpu\" (issue 20)", ok_with(R"("device":"cpu")"),
       R"(the runner's answer has an invalid "device": expected an object or null, got "cpu")"},
      {"max_work_item_sizes of strings (issue 20)", ok_with(R"("device":)" + device_with("max_work_item_sizes", R"(["a","b","c"])")),
       R"(the runner's answer has an invalid "device.max_work_item_sizes[0]": expected a whole number >= 0, got "a")"},
      {"max_work_item_sizes of two", ok_with(R"("device":)" + device_with("max_work_item_sizes", "[1,2]")),
       R"(the runner's answer has an invalid "device.max_work_item_sizes": expected 3 whole numbers >= 0, got [1,2])"},
      {"a negative local memory", ok_with(R"("device":)" + device_with("local_mem_bytes", "-1")),
       R"(the runner's answer has an invalid "device.local_mem_bytes": expected a whole number >= 0, got -1)"},
      {"a count past int64", ok_with(R"("device":)" + device_with("global_mem_bytes", "18446744073709551615")),
       R"(the runner's answer has an invalid "device.global_mem_bytes": expected a whole number >= 0, got 18446744073709551615)"},
      {"a float count", ok_with(R"("device":)" + device_with("compute_units", "1e30")),
       R"(the runner's answer has an invalid "device.compute_units": expected a whole number >= 0, got 1e+30)"},
      {"a device name 7", ok_with(R"("device":)" + device_with("name", "7")),
       R"(the runner's answer has an invalid "device.name": expected a string, got 7)"},
      {"local_mem_global 0", ok_with(R"("device":)" + device_with("local_mem_global", "0")),
       R"(the runner's answer has an invalid "device.local_mem_global": expected true or false, got 0)"},
      {"a device without its driver", ok_with(R"("device":{"name":"gpu"})"),
       R"(the runner's answer has an invalid "device.vendor": missing)"},
      {"a probe with samples", ok_with(R"("probe":true,"device":)" + kDevice),
       R"(the runner's answer has an invalid "samples_ms": a probe's answer has no samples)"},
      {"an ok probe without a device", p + R"("status":"ok","probe":true})",
       R"(the runner's answer has an invalid "device": a probe's answer with status ok needs the device)"},
      {"probe \"no\"", p + R"("status":"ok","probe":"no"})", R"(the runner's answer has an invalid "probe": expected true or false, got "no")"},
      {"a long value is cut short in the message", p + R"("status":")" + std::string(100, 'x') + "\"}",
       R"(the runner's answer has an invalid "status": ")" + std::string(56, 'x') +
           "... is not one of ok, wrong, unwritten, canary, build, run, runner"},
      {"the last object is the answer, even if a valid one precedes it", ok_with("") + p + R"("status":"ok"})",
       R"(the runner's answer has an invalid "samples_ms": status ok needs at least one sample)"},
  };
  for (const auto& c : cases) {
    try {
      parse_runner_answer(c.text);
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), c.message) << c.what;
    }
  }
}

TEST(RunnerAnswer, ValidAnswersReadWithTheirSummariesFromTheSamples) {
  RunnerAnswer a = parse_runner_answer("adb: pushing...\n{\"protocol\":1,\"machine\":\"aarch64\",\"status\":\"ok\","
                                       "\"samples_ms\":[3,1,2],"
                                       "\"median_ms\":2,\"min_ms\":1,\"max_ms\":3}\r\nadb: done\n");
  EXPECT_EQ(a.status, "ok");
  EXPECT_EQ(a.machine, "aarch64");
  EXPECT_EQ(a.median_ms, 2);
  EXPECT_EQ(a.min_ms, 1);
  EXPECT_EQ(a.max_ms, 3);
  EXPECT_EQ(a.samples_ms.size(), 3u);
  // Without the summaries they come from the samples; printed to 9 digits they agree.
  a = parse_runner_answer(R"({"protocol":1,"machine":"x86_64","status":"ok","samples_ms":[0.123456789,0.2],"median_ms":0.161728395})");
  EXPECT_DOUBLE_EQ(a.median_ms, 0.5 * (0.123456789 + 0.2));
  // A probe: the device, no samples, null summaries (as liftc-runner prints them).
  a = parse_runner_answer(R"({"protocol":1,"machine":"armv7l","status":"ok","reason":"","probe":true,"device":)" + kDevice +
                          R"(,"samples_ms":[],"median_ms":null,"min_ms":null,"max_ms":null,"cut":false})");
  EXPECT_TRUE(a.probe);
  EXPECT_EQ(a.machine, "armv7l");
  EXPECT_EQ(a.device["max_work_item_sizes"][2], 64);
  // A failure keeps its reason; phases keep their order; a serving runner's fields.
  a = parse_runner_answer(R"({"protocol":1,"machine":"x86_64","status":"canary","reason":"out of bounds","samples_ms":[4],"cut":true,)"
                          R"("phases_ms":{"upload":1,"build":2},"locked_ms":[[1,2]],"pid":42,"reused_context":true})");
  EXPECT_EQ(a.reason, "out of bounds");
  ASSERT_EQ(a.phases_ms.size(), 2u);
  EXPECT_EQ(a.phases_ms[0].first, "upload");
  EXPECT_EQ(a.pid, 42);
  EXPECT_TRUE(a.reused_context);
  EXPECT_TRUE(a.cut);
  EXPECT_EQ(a.workspace_bytes, 0);  // absent: no library call allocated anything
  // A library call's own temporary buffer (CLBlast's GEMM).
  a = parse_runner_answer(ok_with(R"("workspace_bytes":20480)"));
  EXPECT_EQ(a.workspace_bytes, 20480);
  // A run not waited for past the cut-off: cut and stopped, its reason kept.
  a = parse_runner_answer(R"({"protocol":1,"machine":"x86_64","status":"ok","reason":"stopped waiting","samples_ms":[301],)"
                          R"("cut":true,"stopped":true})");
  EXPECT_TRUE(a.cut && a.stopped);
  EXPECT_EQ(a.reason, "stopped waiting");
}

}  // namespace
}  // namespace liftc::explore
