#pragma once
// The fixture of the command-line tests of `liftc explore` and `liftc results`: a fresh
// folder per test, liftc run in it (to the end, in the background, under a file-size limit
// or as another user), and a store read or edited with SQLite directly, as a user could.

#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <ostream>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_folder.hpp"

namespace liftc::explore::test {

/// How a liftc command ended: its exit code (-1 when a signal ended it) and its output.
struct Result {
  int exit_code = -1;
  std::string output;
};

inline const std::string kStencil = std::string(LIFTC_SOURCE_DIR) + "/examples/stencil2d.sr";
inline const std::string kMatmul = std::string(LIFTC_SOURCE_DIR) + "/examples/matmul.sr";

class ExploreCli : public ::testing::Test {
 public:
  void SetUp() override {
    dir_ = fresh_test_folder("liftc_explore_cli");
    setenv("LIFTC_RUNNER_BIN", LIFTC_RUNNER_PATH, 1);  // for runner scripts
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(dir_);
  }

  /// Runs `liftc ARGS` (shell words) in the test's folder.
  Result run(const std::string& args) { return run_in(".", args); }

  /// Runs `liftc ARGS` in the folder `sub` of the test's folder.
  Result run_in(const std::string& sub, const std::string& args) {
    return run_child(fmt::format("cd '{}' && exec '{}' {}", (dir_ / sub).string(), LIFTC_BINARY, args), [] {});
  }

  /// Runs `liftc ARGS` in the test's folder with no file larger than `bytes` (`ulimit -f`).
  Result run_with_file_limit(const std::string& args, rlim_t bytes) {
    return run_child(fmt::format("cd '{}' && exec '{}' {}", dir_.string(), LIFTC_BINARY, args), [bytes] {
      rlimit limit{bytes, bytes};
      setrlimit(RLIMIT_FSIZE, &limit);
    });
  }

  /// Runs `liftc ARGS` in the test's folder as a user who owns none of it (`nobody` when
  /// the tests run as root, else this user).
  Result run_as_other_user(const std::string& args) {
    return run_child(fmt::format("cd '{}' && exec '{}' {}", dir_.string(), LIFTC_BINARY, args), [] {
      if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(126);
    });
  }

  void expect(const std::string& args, int code, const std::string& message) {
    Result r = run(args);
    EXPECT_EQ(r.exit_code, code) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }

  /// Waits for `pid` (of start) and says whether `signal` ended it.
  static bool ended_by(pid_t pid, int signal) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == signal;
  }

  /// Starts `liftc ARGS` in the test's folder in the background, its temporary folder
  /// (TMPDIR) the test's folder and its output in `log`; returns its process id (liftc's
  /// own: the shell execs it).
  pid_t start(const std::string& args, const std::string& log) {
    std::string command = fmt::format("cd '{}' && exec '{}' {} > '{}' 2>&1", dir_.string(), LIFTC_BINARY, args,
                                      (dir_ / log).string());
    pid_t pid = fork();
    if (pid == 0) {
      setenv("TMPDIR", dir_.c_str(), 1);
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    return pid;
  }

  /// Waits until the store `db` holds at least `n` evaluations (at most two minutes).
  static bool wait_for_rows(const std::filesystem::path& db, int n) {
    auto begin = std::chrono::steady_clock::now();
    while (rows(db) < n) {
      if (std::chrono::steady_clock::now() - begin > std::chrono::minutes(2)) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  /// Number of evaluation rows in a store (read with SQLite directly, as a user could).
  static int rows(const std::filesystem::path& db, const char* where = "1") {
    sqlite3* h = nullptr;
    if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      sqlite3_close(h);
      return -1;
    }
    sqlite3_busy_timeout(h, 2000);
    std::string sql = fmt::format("SELECT count(*) FROM evaluations WHERE {}", where);
    sqlite3_stmt* s = nullptr;
    int n = -1;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
      n = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(h);
    return n;
  }

  /// The rows `select` reads from a store (SQLite directly), each column as text ("" for NULL).
  static std::vector<std::vector<std::string>> query(const std::filesystem::path& db, const std::string& select) {
    std::vector<std::vector<std::string>> out;
    sqlite3* h = nullptr;
    if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      sqlite3_busy_timeout(h, 2000);
      sqlite3_stmt* s = nullptr;
      if (sqlite3_prepare_v2(h, select.c_str(), -1, &s, nullptr) == SQLITE_OK)
        while (sqlite3_step(s) == SQLITE_ROW) {
          std::vector<std::string>& row = out.emplace_back();
          for (int c = 0; c < sqlite3_column_count(s); ++c) {
            const unsigned char* text = sqlite3_column_text(s, c);
            row.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
          }
        }
      sqlite3_finalize(s);
    }
    sqlite3_close(h);
    return out;
  }

  /// Runs `sql` on a store with SQLite directly (a user editing it, a damaged disk).
  static void sql(const std::filesystem::path& db, const std::string& statements) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    sqlite3_busy_timeout(h, 2000);
    char* message = nullptr;
    EXPECT_EQ(sqlite3_exec(h, statements.c_str(), nullptr, nullptr, &message), SQLITE_OK)
        << statements << ": " << (message ? message : "");
    sqlite3_free(message);
    sqlite3_close(h);
  }

  /// Runs a shell command (not liftc) in the test's folder; its output and exit code.
  Result run_shell(const std::string& command) {
    return run_child(fmt::format("cd '{}' && {}", dir_.string(), command), [] {});
  }

  const std::filesystem::path& dir() const { return dir_; }
  std::string read(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 protected:
  std::filesystem::path dir_;

 private:
  // Runs `command` with /bin/sh in a child prepared by `prepare`; its output (stdout and stderr).
  static Result run_child(const std::string& command, const std::function<void()>& prepare) {
    int out[2];
    if (pipe(out) != 0) return {};
    pid_t pid = fork();
    if (pid == 0) {
      dup2(out[1], 1);
      dup2(out[1], 2);
      close(out[0]);
      close(out[1]);
      prepare();
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    Result r;
    char buffer[4096];
    for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      r.output.append(buffer, static_cast<std::size_t>(n));
    }
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  }
};

// Builds the cmake project in `project` (into project/build, its log in project/log.txt):
// whether it built.
inline bool build_project(const std::filesystem::path& project) {
  std::string build = fmt::format("cmake -S '{0}' -B '{0}/build' > '{0}/log.txt' 2>&1 && cmake --build '{0}/build' >> "
                                  "'{0}/log.txt' 2>&1",
                                  project.string());
  return std::system(build.c_str()) == 0;
}

// Expects every one of `lines` in `output`.
inline void expect_all_in(const std::string& output, std::initializer_list<const char*> lines) {
  for (const char* line : lines) EXPECT_NE(output.find(line), std::string::npos) << line << "\n" << output;
}

// Expects a host program's `output` to say that each of `layers` matches its expected values.
inline void expect_layers_match(const std::string& output, std::initializer_list<const char*> layers) {
  for (const char* layer : layers)
    EXPECT_NE(output.find(std::string(layer) + ": matches the expected values"), std::string::npos)
        << layer << "\n" << output;
}

// Whether `csv` (the evaluated.csv of a program of one layer: no layer column) has a row by
// `strategy` that ran and matched the interpreter.
inline bool validated_by(const std::string& csv, const std::string& strategy) {
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);)
    if (line.find(",ok,") != std::string::npos && line.find("," + strategy + ",") != std::string::npos) return true;
  return false;
}

// Whether `csv` (the evaluated.csv of a network: each row starts with its layer's label) has a
// row of `layer` by `strategy` that ran and matched the interpreter (ok, or cut: validated,
// then slower).
inline bool layer_validated_by(const std::string& csv, const std::string& layer, const std::string& strategy) {
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(layer + ",", 0) == 0 && line.find("," + strategy + ",") != std::string::npos &&
        (line.find(",ok,") != std::string::npos || line.find(",cut,") != std::string::npos))
      return true;
  return false;
}

// Expects `csv` (an evaluated.csv) to hold, for each of alternatives 1 to `n` of `strategy`, a
// row that ran and matched the interpreter (ok, or cut: validated, then slower).
inline void expect_each_alternative_validated(const std::string& csv, const std::string& strategy, int n) {
  for (int alternative = 1; alternative <= n; ++alternative) {
    const std::string key = fmt::format(",{},{},", strategy, alternative);
    bool validated = false;
    std::istringstream lines(csv);
    for (std::string line; std::getline(lines, line);)
      validated = validated || (line.find(key) != std::string::npos &&
                                (line.find(",ok,") != std::string::npos || line.find(",cut,") != std::string::npos));
    EXPECT_TRUE(validated) << key << "\n" << csv;
  }
}

// The host program of front point `point` of out/ (the first by default), built with cmake
// and run on the network's inputs with every layer's expected values (and the point's
// allowance/, where explore wrote one), its own values written to values/POINT (exit code -1
// when it does not build). `flags` go after the others.
inline Result run_front_point(ExploreCli& cli, const std::string& program, const std::string& point = "1",
                              const std::string& flags = "") {
  const std::filesystem::path& dir = cli.dir();
  std::string project = (dir / "out/front" / point).string();
  if (!build_project(project)) return {-1, "the host program did not build: see " + project + "/log.txt"};
  std::filesystem::path values = dir / "values" / point;
  std::filesystem::create_directories(values);
  std::string allowance = std::filesystem::is_directory(project + "/allowance")
                              ? fmt::format(" --allowance '{}/allowance'", project)
                              : std::string();
  return cli.run_shell(fmt::format("'{0}/build/{2}' '{1}/out/inputs' '{3}' --expected '{1}/out/expected'{4} {5}",
                                   project, dir.string(), program, values.string(), allowance, flags));
}

// The host program of every front point of out/ (whichever variant it runs) built and run:
// each exits 0 (every layer it runs within the tolerance) and prints `expected` (a layer's
// "NAME: matches the expected values"); there is at least one point.
inline void expect_every_front_point_matches(ExploreCli& cli, const std::string& program, const std::string& expected) {
  int points = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cli.dir() / "out/front")) {
    Result host = run_front_point(cli, program, entry.path().filename().string());
    ASSERT_EQ(host.exit_code, 0) << host.output;
    EXPECT_NE(host.output.find(expected), std::string::npos) << host.output;
    ++points;
  }
  EXPECT_GE(points, 1);
}

// A form of examples/conv/forms/ and the strategies of its kind it must take: each explored
// alone (--evals 2), no refusal of code generation, a point of it validated. The test is
// FormStrategiesCli.TakesItsKindsStrategiesAndValidates (cli_chw_rows_test.cpp); each file
// instantiates it with its forms.
struct FormCase {
  const char* form;
  std::vector<const char*> strategies;
};

inline void PrintTo(const FormCase& c, std::ostream* os) { *os << c.form; }

class FormStrategiesCli : public ExploreCli, public ::testing::WithParamInterface<FormCase> {};

}  // namespace liftc::explore::test
