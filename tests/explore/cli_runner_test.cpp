// `liftc explore --runner CMD` with runners that misbehave (issue 20), as a user meets
// them: answers that break the protocol are rows with status `runner` naming the field,
// never points on the front; a mistyped device probe ends explore with one error line; a
// runner that floods its stdout is a `runner` row and the exploration goes on; a runner
// that waits for the device lock for ever is killed; SIGINT or SIGTERM takes a runner
// script's own children along. Each stand-in runner answers the device probe (a bundle
// with no kernel line) through the real liftc-runner unless the case is the probe.

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_folder.hpp"

namespace {

namespace fs = std::filesystem;

const std::string kStencil = std::string(LIFTC_SOURCE_DIR) + "/examples/stencil2d.sr";

// The start of every stand-in: the probe goes to the real runner.
const std::string kProbeToRealRunner = fmt::format(
    "#!/bin/sh\ngrep -q '^kernel' \"$1/bundle.txt\" || exec '{}' \"$1\"\n", LIFTC_RUNNER_PATH);

// This machine's architecture (uname -m), which the real runner answers the probe with.
std::string this_machine() {
  struct utsname u {};
  uname(&u);
  return u.machine;
}

// `answer` ({"protocol":1,...}) as a runner on this machine answers: with its "machine".
std::string from_here(const std::string& answer) {
  const std::string start = R"({"protocol":1,)";
  if (answer.compare(0, start.size(), start) != 0) return answer;
  return fmt::format(R"({}"machine":"{}",{})", start, this_machine(), answer.substr(start.size()));
}

struct Result {
  int exit_code = -1;
  std::string output;
};

class ExploreRunnerCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = liftc::explore::test::fresh_test_folder("liftc_explore_runner"); }
  void TearDown() override { fs::remove_all(dir_); }

  // liftc ARGS in the test's folder; its output (stdout and stderr) and exit code.
  Result run(const std::string& args) {
    std::string command = fmt::format("cd '{}' && '{}' {} 2>&1", dir_.string(), LIFTC_BINARY, args);
    Result r;
    FILE* pipe = popen(command.c_str(), "r");
    char buffer[4096];
    while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) r.output.append(buffer, n);
    int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  }
  // An executable script `name` in the test's folder.
  void script(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    fs::permissions(dir_ / name, fs::perms::owner_all);
  }
  // Evaluation rows of results.db with `status` whose reason contains `part` ("" = any).
  int rows(const std::string& status, const std::string& part = "") {
    sqlite3* h = nullptr;
    int n = -1;
    if (sqlite3_open_v2((dir_ / "results.db").c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      sqlite3_stmt* s = nullptr;
      if (sqlite3_prepare_v2(h, "SELECT count(*) FROM evaluations WHERE status = ?1 AND instr(reason, ?2) > 0", -1, &s,
                             nullptr) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, status.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 2, part.c_str(), -1, SQLITE_TRANSIENT);
        if (sqlite3_step(s) == SQLITE_ROW) n = sqlite3_column_int(s, 0);
      }
      sqlite3_finalize(s);
    }
    sqlite3_close(h);
    return n;
  }
  // The machines of results.db's evaluation rows, each once, in order.
  std::vector<std::string> machines() {
    sqlite3* h = nullptr;
    std::vector<std::string> out;
    if (sqlite3_open_v2((dir_ / "results.db").c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      sqlite3_stmt* s = nullptr;
      if (sqlite3_prepare_v2(h, "SELECT DISTINCT machine FROM evaluations ORDER BY machine", -1, &s, nullptr) == SQLITE_OK)
        while (sqlite3_step(s) == SQLITE_ROW) out.push_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
      sqlite3_finalize(s);
    }
    sqlite3_close(h);
    return out;
  }
  std::string read(const std::string& name) {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

// Whether process `pid` is gone (no such process, or a zombie nobody reaps), waiting up to 10 s.
bool gone(pid_t pid) {
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
    std::ifstream in(fmt::format("/proc/{}/stat", pid));
    std::string stat;
    if (!std::getline(in, stat)) return true;
    std::istringstream rest(stat.substr(stat.rfind(')') + 1));
    char state = '?';
    rest >> state;
    if (state == 'Z' || state == 'X') return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

struct AnswerCase {
  const char* answer;  // the candidate's answer line
  const char* reason;  // part of its row's reason
};

// Issue 20 items 4 and 6: each answer a row with status runner (the exploration goes on to
// the end); only the valid answer at the end is a point.
TEST_F(ExploreRunnerCli, AnswersThatBreakTheProtocolAreRunnerRowsNeverPoints) {
  const AnswerCase cases[] = {
      {R"({"protocol":1,"status":"ok","samples_ms":[-5],"median_ms":-5,"min_ms":-5,"max_ms":-5})",
       R"(the runner's answer has an invalid "samples_ms[0]": expected a finite number >= 0, got -5)"},
      {R"({"protocol":1,"status":"ok","samples_ms":[1],"median_ms":-5})",
       R"(the runner's answer has an invalid "median_ms": expected a finite number >= 0, got -5)"},
      {R"({"protocol":1,"status":"ok"})", R"(the runner's answer has an invalid "samples_ms": status ok needs at least one sample)"},
      {R"({"protocol":1,"status":"cut","samples_ms":[1]})",
       R"(the runner's answer has an invalid "status": "cut" is not one of ok, wrong, unwritten, canary, build, run, runner)"},
      {R"({"protocol":1,"status":"great"})",
       R"(the runner's answer has an invalid "status": "great" is not one of ok, wrong, unwritten, canary, build, run, runner)"},
      {R"({"protocol":1,"status":"wrong","reason":5})", R"(the runner's answer has an invalid "reason": expected a string, got 5)"},
      {R"({"protocol":1,"status":5})", R"(the runner's answer has an invalid "status": expected a string, got 5)"},
      {R"({"protocol":1,"status":"ok","samples_ms":[1],"cut":"yes"})",
       R"(the runner's answer has an invalid "cut": expected true or false, got "yes")"},
      {R"({"protocol":"1","status":"ok","samples_ms":[1]})",
       R"(the runner's answer is not liftc-runner protocol 1 ("protocol": "1"))"},
      {R"({"protocol":1,"status":"ok","samples_ms":[1],"reused_context":1})",
       R"(the runner's answer has an invalid "reused_context": expected true or false, got 1)"},
  };
  const char* valid = R"({"protocol":1,"status":"ok","reason":"","samples_ms":[2,2,2]})";
  std::string answers;
  for (const auto& c : cases) answers += from_here(c.answer) + "\n";
  answers += from_here(valid) + "\n";
  std::ofstream(dir_ / "answers.txt") << answers;
  const int kinds = static_cast<int>(std::size(cases)) + 1;
  // Candidate N answers line N mod `kinds` (one job: one runner at a time).
  script("runner.sh", kProbeToRealRunner + fmt::format("n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count\n"
                                                       "sed -n \"$((n % {} + 1))p\" answers.txt\n",
                                                       kinds));
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals {} --jobs 1 --runner ./runner.sh --db results.db",
                             kStencil, 2 * kinds));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const auto& c : cases)
    EXPECT_GE(rows("runner", fmt::format("the runner exited with code 0: {}", c.reason)), 1) << c.answer << "\n" << r.output;
  // The valid answer's rows are the only points, at its time; nothing else is valid.
  EXPECT_GE(rows("ok"), 1) << r.output;
  EXPECT_EQ(rows("cut"), 0);
  EXPECT_EQ(rows("ok") + rows("runner"), 2 * kinds) << r.output;
  EXPECT_NE(r.output.find("2.0000"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("-5.0000"), std::string::npos) << r.output;
}

// A runner that answers a candidate's bundle as if it were a probe ("probe": true, ok, no
// samples) ran no kernel: a `runner` row, never a point at 0 ms.
TEST_F(ExploreRunnerCli, AProbeAnswerToACandidateIsARunnerRowNotAPoint) {
  std::string device = R"({"name":"gpu","vendor":"v","version":"OpenCL 3.0","driver":"1","compute_units":2,)"
                       R"("max_work_group_size":1024,"max_work_item_sizes":[1024,1024,64],"local_mem_bytes":65536,)"
                       R"("local_mem_global":false,"global_mem_bytes":8000000000,"max_alloc_bytes":2000000000,)"
                       R"("preferred_vector_width":4})";
  std::ofstream(dir_ / "answers.txt") << from_here(R"({"protocol":1,"status":"ok","reason":"","probe":true,"device":)" +
                                                device + "}")
                                      << "\n"
                                      << from_here(R"({"protocol":1,"status":"ok","reason":"","samples_ms":[2,2,2]})") << "\n";
  script("runner.sh", kProbeToRealRunner + std::string("n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count\n"
                                                       "sed -n \"$((n % 2 + 1))p\" answers.txt\n"));
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals 4 --jobs 1 --runner ./runner.sh --db results.db",
                             kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GE(rows("runner", "the runner answered the candidate's bundle as a probe (no kernel run, no time)"), 1) << r.output;
  EXPECT_EQ(rows("ok"), 2) << r.output;  // the valid answers, at 2 ms; the probe answers are no point
  EXPECT_EQ(rows("runner"), 2) << r.output;
}

// Every row says where its runner ran; an answer from another machine than the probe's (the
// row's device and driver would be another's) or from a runner that does not say is a
// `runner` row, never a point.
TEST_F(ExploreRunnerCli, RowsSayTheRunnersMachineAndAnotherMachinesAnswerIsARunnerRow) {
  std::ofstream(dir_ / "answers.txt")
      << from_here(R"({"protocol":1,"status":"ok","reason":"","samples_ms":[2,2,2]})") << "\n"
      << R"({"protocol":1,"machine":"armv7l","status":"ok","reason":"","samples_ms":[1,1,1]})" "\n"
      << R"({"protocol":1,"status":"ok","reason":"","samples_ms":[1,1,1]})" "\n";
  script("runner.sh", kProbeToRealRunner + std::string("n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) > count\n"
                                                       "sed -n \"$((n % 3 + 1))p\" answers.txt\n"));
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals 3 --jobs 1 --runner ./runner.sh --db results.db",
                             kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(rows("ok"), 1) << r.output;
  EXPECT_EQ(rows("runner", fmt::format("the runner answered from machine armv7l, its device probe from {}", this_machine())),
            1)
      << r.output;
  EXPECT_EQ(rows("runner", R"(the runner's answer has an invalid "machine": missing)"), 1) << r.output;
  // A row says the machine its runner answered from; one whose answer was not understood,
  // the probe's (as its device and driver).
  std::vector<std::string> want = {"armv7l", this_machine()};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(machines(), want);
  Result list = run("results results.db");
  EXPECT_NE(list.output.find(fmt::format("  {:<8} ok", this_machine())), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("  armv7l   runner"), std::string::npos) << list.output;
}

struct ProbeCase {
  const char* what;
  std::string answer;  // the probe's answer line
  const char* message;
};

// Issue 20 item 6: a probe answer of the wrong type ended liftc with an internal error.
TEST_F(ExploreRunnerCli, AProbeAnswerOfTheWrongTypeIsOneErrorNamingTheField) {
  std::string device = R"({"name":"gpu","vendor":"v","version":"OpenCL 3.0","driver":"1","compute_units":2,)"
                       R"("max_work_group_size":1024,"max_work_item_sizes":["a","b","c"],"local_mem_bytes":65536,)"
                       R"("local_mem_global":false,"global_mem_bytes":8000000000,"max_alloc_bytes":2000000000,)"
                       R"("preferred_vector_width":4})";
  const ProbeCase cases[] = {
      {"device \"cpu\"", R"({"protocol":1,"status":"ok","probe":true,"device":"cpu"})",
       R"(the runner's answer has an invalid "device": expected an object or null, got "cpu")"},
      {"max_work_item_sizes of strings", R"({"protocol":1,"status":"ok","probe":true,"device":)" + device + "}",
       R"(the runner's answer has an invalid "device.max_work_item_sizes[0]": expected a whole number >= 0, got "a")"},
  };
  for (const auto& c : cases) {
    script("probe.sh", fmt::format("#!/bin/sh\necho '{}'\n", from_here(c.answer)));
    Result r = run(fmt::format("explore {} -s stencil-parametric --evals 2 --runner ./probe.sh --db results.db", kStencil));
    EXPECT_EQ(r.exit_code, 1) << c.what << "\n" << r.output;
    EXPECT_NE(r.output.find(fmt::format("error: the runner './probe.sh' exited with code 0 and gave no usable answer when "
                                        "asked for its device ({})",
                                        c.message)),
              std::string::npos)
        << c.what << "\n" << r.output;
    EXPECT_EQ(r.output.find("internal error"), std::string::npos) << c.what << "\n" << r.output;
  }
}

// Issue 20 item 7: a runner printing without end made liftc run out of memory.
TEST_F(ExploreRunnerCli, ARunnerFloodingItsStdoutIsARunnerRow) {
  script("runner.sh", kProbeToRealRunner + "yes\n");
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals 2 --jobs 1 --runner ./runner.sh --db results.db", kStencil));
  ASSERT_EQ(r.exit_code, 1) << r.output;  // no front (issue 36 item 20)
  EXPECT_EQ(rows("runner", "the runner printed more than 1 MiB on stdout (killed)"), 2)
      << r.output;
}

// Issue 20 item 19: the lock line, then a hang, was never killed and outlived liftc. It is
// killed after the timeout plus at most timeout x the runners at once (1 here), with the
// children of the script.
TEST_F(ExploreRunnerCli, ARunnerWaitingForTheLockForEverIsKilledWithItsChildren) {
  script("runner.sh", kProbeToRealRunner +
                          "echo 'liftc-runner: waiting for the device lock' >&2\n"
                          "sleep 1000 & echo $! > sleep.pid\nwait\n");
  auto start = std::chrono::steady_clock::now();
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals 1 --timeout 1 --runner ./runner.sh --db results.db", kStencil));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 1) << r.output;  // no front (issue 36 item 20)
  EXPECT_EQ(rows("timeout", "timed out after 1 s (killed by the watchdog; 1.0 s waiting for the device lock not counted)"), 1)
      << r.output;
  EXPECT_LT(seconds, 60);
  EXPECT_TRUE(gone(std::stoi(read("sleep.pid")))) << "the runner's child outlived it";
}

// Issue 20 items 19 and 23: SIGINT or SIGTERM to liftc kills the runner's process group,
// so a runner script's own child does not survive liftc.
TEST_F(ExploreRunnerCli, SigintOrSigtermTakesTheRunnersChildrenAlong) {
  script("runner.sh", kProbeToRealRunner + "echo $$ > script.pid\nsleep 1000 & echo $! > sleep.pid\nwait\n");
  for (int sig : {SIGINT, SIGTERM}) {
    fs::remove(dir_ / "sleep.pid");
    fs::remove(dir_ / "results.db");
    pid_t pid = fork();
    if (pid == 0) {
      fs::current_path(dir_);
      int null = open("/dev/null", O_WRONLY);
      dup2(null, 1), dup2(null, 2);
      execl(LIFTC_BINARY, LIFTC_BINARY, "explore", kStencil.c_str(), "-s", "stencil-parametric", "--evals", "3", "--timeout",
            "600", "--runner", "./runner.sh", "--db", "results.db", static_cast<char*>(nullptr));
      _exit(127);
    }
    auto start = std::chrono::steady_clock::now();
    while (!fs::exists(dir_ / "sleep.pid") && std::chrono::steady_clock::now() - start < std::chrono::seconds(120))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the pid is written in full
    ASSERT_TRUE(fs::exists(dir_ / "sleep.pid")) << strsignal(sig) << ": the runner never started";
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << strsignal(sig) << ": liftc did not end by it";
    EXPECT_TRUE(gone(std::stoi(read("script.pid")))) << strsignal(sig) << ": the runner script outlived liftc";
    EXPECT_TRUE(gone(std::stoi(read("sleep.pid")))) << strsignal(sig) << ": the runner's child outlived liftc";
  }
}

}  // namespace
