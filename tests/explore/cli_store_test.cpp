// `liftc explore` and `liftc results` against what issue 20's hostile user did to a store:
// results served under other tolerances, inputs or runners (item 3), an ok without a time
// (4), failures of one try served forever (5), damaged stores (8), a file-size limit (11,
// 12), two explorations on one -o folder or one run at once (13, 16), an export over the
// store (14), --resume of another program or other rules (15), a store in a read-only
// folder (21), SIGINT and SIGTERM (23). Each ends with a right result or one error line.

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace {

namespace fs = std::filesystem;
using liftc::explore::test::build_project;
using liftc::explore::test::ExploreCli;
using liftc::explore::test::kMatmul;
using liftc::explore::test::kStencil;
using liftc::explore::test::Result;

// An executable script in `dir`.
void script(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  fs::permissions(path, fs::perms::owner_all);
}

// The stencil's space, three candidates (the same three for the same seed), into `db`. The
// random search: the model search's candidates depend on measured times (the store's earlier
// rows, of other settings, train it as a tuning database before the first measurement), so a
// later run under the same settings asked other points and found 2 of 3 in the store, now and
// then, under load.
std::string explore3(const std::string& db, const std::string& flags = "") {
  return fmt::format("explore {} -s stencil-parametric --search random --evals 3 --runs 2 --db {} -q {}", kStencil, db,
                     flags);
}

struct ServeCase {
  const char* flags;
  int served;  // of the three candidates
};

// Item 3: a row is served only under the tolerances, inputs and runner it was checked with.
TEST_F(ExploreCli, ResultsAreServedOnlyUnderTheSettingsTheyWereCheckedWith) {
  script(dir_ / "wrapper.sh", "#!/bin/sh\nexec \"$LIFTC_RUNNER_BIN\" \"$1\"\n");
  const ServeCase cases[] = {
      {"--atol 10", 0},
      {"", 0},                        // found ok with --atol 10: not served at the default tolerance
      {"--atol 10", 3},               // the same settings: served
      {"--rtol 0.5", 0},
      {"--input-seed 1", 0},          // other inputs, another reference
      {"--runner ./wrapper.sh", 0},   // another runner
      {"--runner ./wrapper.sh", 3},
      {"", 3},
  };
  for (const auto& c : cases) {
    Result r = run(explore3("s.db", c.flags));
    ASSERT_EQ(r.exit_code, 0) << c.flags << "\n" << r.output;
    EXPECT_NE(r.output.find("3 candidates in"), std::string::npos) << c.flags << "\n" << r.output;
    EXPECT_NE(r.output.find(fmt::format("; {} served from the store", c.served)), std::string::npos)
        << c.flags << "\n" << r.output;
  }
}

// Item 5: a crash, a runner error and a timeout are that try's; the candidate is tried
// again (a timeout stays served under a watchdog no more patient than its own).
TEST_F(ExploreCli, FailuresOfOneTryAreTriedAgain) {
  script(dir_ / "flaky.sh", fmt::format("#!/bin/sh\n"
                                        "case \"$1\" in\n"
                                        "  */probe) ;;\n"
                                        "  *) [ -e '{0}/crash' ] && kill -SEGV $$\n"
                                        "     [ -e '{0}/garbage' ] && {{ echo 'no answer'; exit 0; }}\n"
                                        "     [ -e '{0}/hang' ] && sleep 30 ;;\n"
                                        "esac\n"
                                        "exec \"$LIFTC_RUNNER_BIN\" \"$1\"\n",
                                        dir_.string()));
  // A crash, and a runner error (an answer that is no answer): both that try's.
  for (const char* failure : {"crash", "runner"}) {
    const std::string flag = std::string(failure) == "crash" ? "crash" : "garbage", db = flag + ".db";
    std::ofstream(dir_ / flag);
    Result r = run(explore3(db, "--runner ./flaky.sh"));
    ASSERT_EQ(r.exit_code, 1) << r.output;  // no candidate validated: no front, an error
    EXPECT_NE(r.output.find(fmt::format("(3 {}); 0 served from the store", failure)), std::string::npos) << r.output;
    fs::remove(dir_ / flag);
    r = run(explore3(db, "--runner ./flaky.sh"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("; 0 served from the store"), std::string::npos) << r.output;
    for (const char* after : {")", ","})  // no "(N crash)" or "(N crash, M ok)" among the statuses
      EXPECT_EQ(r.output.find(fmt::format(" {}{}", failure, after)), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("fastest:"), std::string::npos) << r.output;
  }

  std::ofstream(dir_ / "hang");
  // Watchdogs of 2 s and 1.5 s: the runner's device probe runs under --timeout too, and took
  // over 0.5 s on a loaded 2-core machine.
  Result r = run(explore3("t.db", "--runner ./flaky.sh --timeout 2"));
  ASSERT_EQ(r.exit_code, 1) << r.output;  // no front
  EXPECT_NE(r.output.find("(3 timeout); 0 served from the store"), std::string::npos) << r.output;
  r = run(explore3("t.db", "--runner ./flaky.sh --timeout 1.5"));  // would time out again
  EXPECT_NE(r.output.find("(3 timeout); 3 served from the store"), std::string::npos) << r.output;
  fs::remove(dir_ / "hang");
  r = run(explore3("t.db", "--runner ./flaky.sh --timeout 60"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("; 0 served from the store"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fastest:"), std::string::npos) << r.output;
}

// Items 4, 14 and 21 on one store: a stored ok without a usable time is on no front and is
// run again; an export never overwrites the store; a store in a folder nobody may write is
// listed.
TEST_F(ExploreCli, RowsWithoutATimeExportsAndReadOnlyFolders) {
  Result r = run(explore3("s.db"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Every row an ok one (a cut row is served only where a valid point cuts it again, and the
  // two spoiled rows may be the ones that cut it: not what this tests).
  sql(dir_ / "s.db",
      "UPDATE evaluations SET status = 'ok', reason = ''; UPDATE evaluations SET time_ms = NULL WHERE id = 1; "
      "UPDATE evaluations SET time_ms = -1 WHERE id = 2");
  expect("results s.db --pareto", 0, "Pareto front of 1 validated point(s)");
  r = run(explore3("s.db"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("; 1 served from the store"), std::string::npos) << r.output;
  expect("results s.db --pareto", 0, "Pareto front of 3 validated point(s)");

  fs::create_symlink("s.db", dir_ / "link.db");
  const std::pair<const char*, const char*> exports[] = {
      {"results s.db --csv s.db --force", "error: s.db is the results store s.db; give another file to export to"},
      {"results s.db --json ./s.db --force", "error: ./s.db is the results store s.db; give another file"},
      {"results s.db --csv link.db --force", "error: link.db is the results store s.db; give another file"},
      {"results ./s.db --csv s.db-wal --force", "error: s.db-wal is the results store ./s.db-wal"},
      {"results s.db --csv out.txt --json out.txt", "error: --csv and --json both name out.txt; give two files"},
  };
  for (const auto& [args, message] : exports) {
    if (std::string(args).find("-wal") != std::string::npos) std::ofstream(dir_ / "s.db-wal");  // as while a run is on
    expect(args, 1, message);
  }
  fs::remove(dir_ / "s.db-wal");
  expect("results s.db", 0, "5 evaluation(s)");

  fs::create_directories(dir_ / "ro");
  fs::copy_file(dir_ / "s.db", dir_ / "ro/s.db");
  fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                   fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(dir_, fs::perms::others_read | fs::perms::others_exec, fs::perm_options::add);
  r = run_as_other_user("results ro/s.db");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("5 evaluation(s)"), std::string::npos) << r.output;
  r = run_as_other_user("results ro/s.db --csv - --pareto");
  EXPECT_NE(r.output.find("Pareto front"), std::string::npos) << r.output;
}

// A cut row cut by a point validated while it ran was recorded after that point but may be
// asked before it by a later run: it is served on that point of its own run, which joins
// the later run's results (its front would lack it otherwise); a cut row no stored point
// cuts is timed again. Run 1's first row is made the cut one and renumbered after the
// others, as the live cut-off records it.
TEST_F(ExploreCli, ACutRowIsServedOnThePointOfItsRunThatCutItEvenWhenAskedFirst) {
  for (bool reason_servable : {true, false}) {
    const std::string db = reason_servable ? "cut.db" : "spoiled.db";
    Result r = run(explore3(db, "--jobs 1"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    sql(dir_ / db,
        "UPDATE evaluations SET status = 'ok', reason = ''; "
        "UPDATE evaluations SET id = 4, status = 'cut', reason = 'stopped: over 5x the best point using no more memory', "
        "time_ms = 1 + 100 * (SELECT time_ms FROM evaluations WHERE id = 2), "
        "memory_bytes = max(memory_bytes, (SELECT memory_bytes FROM evaluations WHERE id = 2)) WHERE id = 1");
    if (!reason_servable) sql(dir_ / db, "UPDATE evaluations SET time_ms = NULL WHERE id IN (2, 3)");
    r = run(fmt::format("explore {} -s stencil-parametric --search random --evals 1 --runs 2 --db {} -q --jobs 1",
                        kStencil, db));  // run 1's first candidate, alone
    if (reason_servable) {
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_NE(r.output.find("2 candidates in"), std::string::npos) << r.output;
      EXPECT_NE(r.output.find("(1 cut, 1 ok); 2 served from the store (1 of them the points cut rows were served on, "
                              "not asked here)"),
                std::string::npos)
          << r.output;
      EXPECT_NE(r.output.find("fastest:"), std::string::npos) << r.output;
    } else {
      EXPECT_NE(r.output.find("1 candidates in"), std::string::npos) << r.output;
      EXPECT_NE(r.output.find("; 0 served from the store"), std::string::npos) << r.output;
    }
  }
}

struct DamageCase {
  const char* what;
  const char* sql;      // run on a copy of a store of one finished run of two candidates
  const char* command;  // {0}: the copy
  const char* message;  // the error line (a part of it)
};

// Item 8: a damaged store is "error: STORE: ... is damaged (...)" and exit 1, whichever
// command reads it.
TEST_F(ExploreCli, DamagedStoresAreClearErrors) {
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals 2 --runs 2 --db good.db -q", kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string replay = fmt::format("explore {} -s stencil-parametric --evals 2 -q --replay {{0}}", kStencil);
  const std::string again = fmt::format("explore {} -s stencil-parametric --evals 2 -q --db {{0}}", kStencil);
  const DamageCase cases[] = {
      {"samples not JSON", "UPDATE evaluations SET samples_ms = 'fast' WHERE id = 1", "results {0}",
       "error: {0}: evaluation 1 is damaged (its samples_ms is not a JSON list of numbers)"},
      // Every row is damaged: which one replay reads first is the search's business.
      {"samples not JSON, replayed", "UPDATE evaluations SET samples_ms = 'fast'", replay.c_str(),
       " is damaged (its samples_ms is not a JSON list of numbers)"},
      {"memory as text", "UPDATE evaluations SET memory_bytes = 'lots' WHERE id = 2", "results {0} --json -",
       "error: {0}: evaluation 2 is damaged (its memory_bytes is not an integer)"},
      {"config not JSON", "UPDATE runs SET config = '{'; DELETE FROM run_ends", "explore --resume --db {0}",
       "error: {0}: run 1 is damaged (its config is not a JSON object)"},
      {"config without strategies", "UPDATE runs SET config = json_remove(config, '$.strategies'); DELETE FROM run_ends",
       "explore --resume --db {0}", "error: {0}: run 1 is damaged (its config: key 'strategies' not found)"},
      {"config with a tolerance of text", "UPDATE runs SET config = json_set(config, '$.atol', 'tight'); DELETE FROM run_ends",
       "explore --resume --db {0}", "error: {0}: run 1 is damaged (its config: type must be number, but is string)"},
      {"config not JSON, replayed", "UPDATE runs SET config = '{'", replay.c_str(),
       "error: {0}: run 1 is damaged (its config is not a JSON object)"},
      {"no target, replayed", "UPDATE runs SET config = json_remove(config, '$.target_profile')", replay.c_str(),
       "error: {0}: run 1 is damaged (its config: key 'target_profile' not found)"},
      {"reference meta garbage", "UPDATE refs SET meta = 'garbage'", again.c_str(),
       "is damaged (its meta is not a JSON list)"},
      {"reference of shape 2^62", "UPDATE refs SET meta = json_set(meta, '$[0].shape', json('[4611686018427387904]'))",
       again.c_str(), "is damaged (its data is shorter than the shape of 'stencil' needs)"},
      {"reference of another shape", "UPDATE refs SET meta = json_set(meta, '$[0].shape', json('[1536]'))", again.c_str(),
       "is damaged (its output 'stencil' is [1536], the program's is [32x48])"},
  };
  for (const auto& c : cases) {
    fs::copy_file(dir_ / "good.db", dir_ / "bad.db", fs::copy_options::overwrite_existing);
    sql(dir_ / "bad.db", c.sql);
    std::string command = fmt::format(fmt::runtime(c.command), "bad.db");
    std::string message = fmt::format(fmt::runtime(c.message), "bad.db");
    Result r = run(command);
    EXPECT_EQ(r.exit_code, 1) << c.what << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << c.what << "\n" << r.output;
    EXPECT_EQ(r.output.find("internal error"), std::string::npos) << c.what << "\n" << r.output;
  }
}

// Items 11 and 12: under a file-size limit an exploration ends with one error line, leaves
// no work folder and a store that opens; a file it cannot write whole is an error, never
// "wrote" (the front's host program, an export).
TEST_F(ExploreCli, AFileSizeLimitIsAClearErrorAndNeverWrote) {
  setenv("TMPDIR", dir_.c_str(), 1);  // the work folder, which must be gone
  auto work_folders = [&] {
    int n = 0;
    for (const auto& entry : fs::directory_iterator(dir_)) n += entry.path().filename().string().rfind("liftc-explore-", 0) == 0;
    return n;
  };
  Result r = run_with_file_limit(explore3("tiny.db"), 4096);  // the store cannot be made
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: results store tiny.db: "), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "tiny.db"));
  EXPECT_EQ(work_folders(), 0);

  r = run_with_file_limit(fmt::format("explore {} -s stencil-parametric --evals 40 --runs 2 -o full -q", kStencil),
                          200 * 1024);  // the store fills up (a new store of format 3 takes over 100 KiB with its WAL)
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: results store full/results.db: "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("wrote"), std::string::npos) << r.output;
  EXPECT_EQ(work_folders(), 0);
  Result list = run("results full/results.db");
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find(" evaluation(s)"), std::string::npos) << list.output;

  // The front's host program over the limit: the store is kept open meanwhile (as by
  // another reader), so that liftc's own writes to it stay small and the outputs are
  // what the limit stops.
  r = run(fmt::format("explore {} -s stencil-parametric --evals 3 --runs 2 -o out -q", kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto host_program = static_cast<rlim_t>(fs::file_size(dir_ / "out/front/1/main.cpp"));
  ASSERT_GT(host_program, 13000u) << "the host program is too small to be over a limit the store's writes fit under";
  sqlite3* reader = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ / "out/results.db").c_str(), &reader), SQLITE_OK);
  sqlite3_exec(reader, "SELECT count(*) FROM evaluations", nullptr, nullptr, nullptr);
  r = run_with_file_limit(fmt::format("explore {} -s stencil-parametric --evals 3 --runs 2 -o out --force -q", kStencil),
                          host_program - 1);
  sqlite3_close(reader);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: cannot write out/front/1/main.cpp: File too large"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("wrote"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out/front/1/main.cpp"));  // no short file left
  // Nor a part of the outputs: the earlier run's tables beside this run's front, or a
  // front/ that a run without --force would take for a user's.
  for (const char* name : {"front", "pareto.csv", "pareto.json", "evaluated.csv"})
    EXPECT_FALSE(fs::exists(dir_ / "out" / name)) << name;
  EXPECT_EQ(work_folders(), 0);
  expect(fmt::format("explore {} -s stencil-parametric --evals 3 --runs 2 -o out -q", kStencil), 0, "wrote out");

  // An export larger than the limit (the store's rows copied to make one).
  sql(dir_ / "out/results.db",
      "INSERT INTO evaluations SELECT NULL, run, key, program, file, strategy, alternative, point, "
      "status, reason, time_ms, spread_ms, samples_ms, memory_bytes, device, driver, shapes, "
      "liftc_version, created, timeout_s, machine, seconds FROM evaluations");
  for (int i = 0; i < 6; ++i)
    sql(dir_ / "out/results.db",
        "INSERT INTO evaluations SELECT NULL, run, key, program, file, strategy, alternative, "
        "point, status, reason, time_ms, spread_ms, samples_ms, memory_bytes, device, driver, "
        "shapes, liftc_version, created, timeout_s, machine, seconds FROM evaluations");
  r = run_with_file_limit("results out/results.db --csv big.csv", 40 * 1024);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: cannot write big.csv: File too large"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("wrote"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "big.csv"));
  expect("results out/results.db --csv big.csv", 0, "wrote big.csv");
  EXPECT_GT(fs::file_size(dir_ / "big.csv"), 40u * 1024);
  unsetenv("TMPDIR");
}

// Items 13, 16 and 23: while an exploration runs, another one with its -o folder and a
// --resume of its run are refused; SIGINT or SIGTERM end it without its work folder and
// with a line saying how to resume it, and --resume then goes on where it stopped.
TEST_F(ExploreCli, OneExplorationPerFolderAndRunAndSignalsLeaveNoWorkFolder) {
  const fs::path db = dir_ / "out/results.db";
  pid_t first = start(fmt::format("explore {} -s stencil-parametric --evals 30 --runs 2 -j 1 -o out -q", kStencil), "first.log");
  ASSERT_TRUE(wait_for_rows(db, 1)) << read(dir_ / "first.log");
  expect(fmt::format("explore {} -s stencil-parametric --evals 1 -o out", kStencil), 1,
         "error: -o out: another liftc explore or deploy is writing into this folder; wait for it to end, or give "
         "another folder");
  expect("explore --resume --db out/results.db", 1,
         "error: --resume: run 1 of out/results.db is being explored by another liftc process right now");
  kill(first, SIGINT);
  EXPECT_TRUE(ended_by(first, SIGINT)) << read(dir_ / "first.log");
  EXPECT_FALSE(fs::exists(dir_ / fmt::format("liftc-explore-{}", first)));
  // The interrupted run says how to go on.
  EXPECT_NE(read(dir_ / "first.log")
                .find("liftc explore: interrupted; `liftc explore --resume --db out/results.db --jobs 1 -o out` continues run 1"),
            std::string::npos)
      << read(dir_ / "first.log");

  const int before = rows(db);
  pid_t second = start("explore --resume --db out/results.db -o out -j 1 -q", "second.log");
  ASSERT_TRUE(wait_for_rows(db, before + 1)) << read(dir_ / "second.log");
  kill(second, SIGTERM);
  EXPECT_TRUE(ended_by(second, SIGTERM)) << read(dir_ / "second.log");
  EXPECT_FALSE(fs::exists(dir_ / fmt::format("liftc-explore-{}", second)));

  Result r = run("explore --resume --db out/results.db -o out -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("resuming run 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("wrote out"), std::string::npos) << r.output;
  EXPECT_EQ(rows(db, "run = 1"), 30);
}

// Item 15: --resume explores the run's own program (found from any folder) with the run's
// own rules, and refuses a program or rules that changed, or a run of an earlier liftc
// that did not record them.
TEST_F(ExploreCli, ResumeExploresTheRunsOwnProgramAndRules) {
  fs::create_directories(dir_ / "rules");
  for (const auto& entry : fs::directory_iterator(fs::path(LIFTC_SOURCE_DIR) / "rules"))
    if (entry.path().extension() == ".rules") fs::copy_file(entry.path(), dir_ / "rules" / entry.path().filename());
  fs::copy_file(kStencil, dir_ / "prog.sr");
  fs::create_directories(dir_ / "other");
  fs::copy_file(kMatmul, dir_ / "other/prog.sr");  // another program of the same name
  Result r = run("explore prog.sr -s stencil-parametric --evals 2 --runs 2 --rules rules --db r.db -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto unfinish = [&] { sql(dir_ / "r.db", "DELETE FROM run_ends"); };

  unfinish();
  r = run_in("other", "explore --resume --db ../r.db -q");  // from another folder: the run's program
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("resuming run 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2 served from the store"), std::string::npos) << r.output;
  unfinish();
  r = run_in("other", "explore prog.sr --resume --db ../r.db -q");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(fmt::format("error: --resume: the run in ../r.db explores {}, not prog.sr",
                                      (dir_ / "prog.sr").string())),
            std::string::npos)
      << r.output;
  // The same rules elsewhere are the same rules.
  r = run(fmt::format("explore --resume --db r.db --rules {}/rules -q", LIFTC_SOURCE_DIR));
  EXPECT_EQ(r.exit_code, 0) << r.output;

  unfinish();
  std::ofstream(dir_ / "rules/fusion.rules", std::ios::app) << "\n// edited\n";
  expect("explore --resume --db r.db -q", 1,
         fmt::format("error: --resume: the rules in {} are not those run 1 of r.db started with", (dir_ / "rules").string()));
  expect(fmt::format("explore --resume --db r.db --rules {}/rules -q", LIFTC_SOURCE_DIR), 0, "resuming run 1");

  unfinish();
  std::ofstream(dir_ / "prog.sr", std::ios::app) << "\n// edited\n";
  expect(fmt::format("explore --resume --db r.db --rules {}/rules -q", LIFTC_SOURCE_DIR), 1,
         fmt::format("error: --resume: {} has changed since run 1 of r.db started", (dir_ / "prog.sr").string()));

  sql(dir_ / "r.db", "UPDATE runs SET config = json_remove(config, '$.rules')");
  expect("explore --resume --db r.db -q", 1,
         "error: --resume: run 1 of r.db was started by an earlier liftc, which did not record what identifies its "
         "program and rules; start a new run");
}

namespace issue36 {

// The names in a folder, sorted.
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Items 14, 22 and 26 of issue 36: a single program's -o folder has its inputs/ and
// expected/ (as a network's), with which its front's host program validates a point; its
// tables carry the liftc version, the time and the machine of every row.
TEST_F(ExploreCli, ASingleProgramsFrontHasItsInputsAndExpectedValues) {
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals 3 --runs 2 --pareto -o out -q", kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("inputs/ and expected/ (the program's inputs and the interpreter's outputs: PROGRAM "
                          "out/inputs OUT --expected out/expected validates a point)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(names_in(dir_ / "out/inputs"), std::vector<std::string>{"grid.npy"});
  EXPECT_EQ(names_in(dir_ / "out/expected"), (std::vector<std::string>{"stencil.npy", "sums.npy"}));

  nlohmann::json front = nlohmann::json::parse(read(dir_ / "out/pareto.json"));
  ASSERT_FALSE(front.empty());
  for (const auto& row : front) {
    EXPECT_EQ(row.at("liftc_version").get<std::string>().rfind("0.1", 0), 0u) << row.dump();
    EXPECT_EQ(row.at("created").get<std::string>().size(), std::string("2026-01-01T00:00:00Z").size()) << row.dump();
    EXPECT_FALSE(row.at("machine").get<std::string>().empty()) << row.dump();
  }
  std::string evaluated = read(dir_ / "out/evaluated.csv");
  EXPECT_EQ(evaluated.substr(0, evaluated.find('\n')),
            "id,run,status,time_ms,spread_ms,memory_bytes,strategy,alternative,point,reason,device,driver,machine,"
            "shapes,key,liftc_version,created");
  EXPECT_EQ(evaluated.find(",,,\n"), std::string::npos) << evaluated;  // never an empty version and time

  // The front's first point, built and run on those inputs, matches the expected values.
  std::string project = (dir_ / "out/front/1").string();
  ASSERT_TRUE(build_project(project)) << read(project + "/log.txt");
  fs::create_directories(dir_ / "values");
  Result host = run_shell(fmt::format("'{}/build/stencil2d' out/inputs values --expected out/expected", project));
  EXPECT_EQ(host.exit_code, 0) << host.output;
  EXPECT_NE(host.output.find("stencil: matches the expected values (1536 values)"), std::string::npos) << host.output;
}

// Item 17 of issue 36: --force over an earlier network's folder leaves none of its files
// (its inputs/ and expected/ beside the new front); without --force they are refused.
TEST_F(ExploreCli, ForceOverANetworksFolderLeavesNoneOfItsFiles) {
  for (const char* f : {"out/inputs/image.npy", "out/inputs/w2.npy", "out/expected/conv1.npy", "out/expected/pooled.npy"}) {
    fs::create_directories((dir_ / f).parent_path());
    std::ofstream(dir_ / f) << "an earlier network's";
  }
  expect(fmt::format("explore {} -s stencil-parametric --evals 2 --runs 2 -o out -q", kStencil), 1,
         "error: -o out: out/inputs exists; pass --force to overwrite the exploration's files");
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals 2 --runs 2 -o out --force -q", kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(names_in(dir_ / "out/inputs"), std::vector<std::string>{"grid.npy"});
  EXPECT_EQ(names_in(dir_ / "out/expected"), (std::vector<std::string>{"stencil.npy", "sums.npy"}));
}

// Item 14 of issue 36: a store of today's format written before the format was kept
// (user_version 0) opens and its run resumes; a store of a later format is refused by
// every command with one message, and left as it was.
TEST_F(ExploreCli, AStoreWithoutAFormatResumesAndALaterOneIsRefused) {
  ASSERT_EQ(run(explore3("old.db")).exit_code, 0);
  sql(dir_ / "old.db", "PRAGMA user_version = 0; DELETE FROM run_ends");
  Result r = run("explore --resume --db old.db -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("resuming run 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3 served from the store"), std::string::npos) << r.output;

  ASSERT_EQ(run(explore3("later.db")).exit_code, 0);
  sql(dir_ / "later.db", "PRAGMA user_version = 99; CREATE TABLE future(x); DELETE FROM run_ends");
  const int before = rows(dir_ / "later.db");
  for (const std::string& command : {explore3("later.db"), std::string("explore --resume --db later.db"),
                                     std::string("results later.db"), std::string("deploy --db later.db --run 1 -o d")}) {
    Result refused = run(command);
    EXPECT_EQ(refused.exit_code, 1) << command << "\n" << refused.output;
    EXPECT_NE(refused.output.find("error: later.db is a results store of format 99, later than this liftc's (3, "
                                  "liftc 0.1"),
              std::string::npos)
        << command << "\n" << refused.output;
  }
  EXPECT_EQ(rows(dir_ / "later.db"), before);
  EXPECT_FALSE(fs::exists(dir_ / "d"));
}

// Item 13 of issue 36: a --db that is a symbolic link to nothing is refused, and the link
// is the user's: it is kept.
TEST_F(ExploreCli, ADbLinkToNothingIsRefusedAndKept) {
  fs::create_symlink("gone/results.db", dir_ / "link.db");
  expect(explore3("link.db"), 1,
         "error: results store link.db: a symbolic link to gone/results.db, which does not exist; give the store's "
         "own path, or make the link point at one");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "link.db")));
}

// Item 19 of issue 36: work folders of a run killed with -9 (their owner file unlocked,
// naming this store) are removed when an exploration of the store starts; a live one's,
// another store's and a folder that is not liftc's are kept.
TEST_F(ExploreCli, AKilledRunsWorkFolderIsRemovedByTheNextRunOfItsStore) {
  setenv("TMPDIR", dir_.c_str(), 1);
  std::string store = (fs::canonical(dir_) / "w.db").string();
  auto work_folder = [&](const std::string& name, const std::string& owner) {
    fs::create_directories(dir_ / name / "candidate-1");
    if (!owner.empty()) std::ofstream(dir_ / name / "owner") << owner << "\n";
  };
  work_folder("liftc-explore-999991", store);             // killed: removed
  work_folder("liftc-explore-999992", store);             // alive (its owner locked): kept
  work_folder("liftc-explore-999993", store + "-other");  // another store's: kept
  work_folder("liftc-explore-999994", "");                // no owner file (not liftc's, or an older one's): kept
  work_folder("liftc-explore-x", store);                  // not a process id: kept
  int alive = ::open((dir_ / "liftc-explore-999992/owner").c_str(), O_RDONLY);
  ASSERT_GE(alive, 0);
  ASSERT_EQ(::flock(alive, LOCK_EX), 0);
  Result r = run(explore3("w.db"));
  ::close(alive);
  unsetenv("TMPDIR");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "liftc-explore-999991"));
  for (const char* kept : {"liftc-explore-999992", "liftc-explore-999993", "liftc-explore-999994", "liftc-explore-x"})
    EXPECT_TRUE(fs::exists(dir_ / kept / "candidate-1")) << kept;
}

}  // namespace issue36

}  // namespace
