// liftc-runner's live cut-off (src/runner/live_cutoff.hpp): the bundle's cut-off, lowered by
// the explorer's file of validated points as they are written.
#include "live_cutoff.hpp"

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

namespace liftc_runner {
namespace {

namespace fs = std::filesystem;
constexpr double kNone = std::numeric_limits<double>::infinity();

class LiveCutoff : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("liftc-live-cutoff-" + std::to_string(::getpid()));
    fs::remove(path_);
  }
  void TearDown() override { fs::remove(path_); }
  void write(const std::string& text) {
    fs::path tmp = path_;
    tmp += ".new";
    std::ofstream(tmp) << text;
    fs::rename(tmp, path_);
  }
  // Past the refresh interval, so the next now() reads the file again.
  static void wait_refresh() {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(Cutoff::kRefreshMs + 5));
  }
  fs::path path_;
};

TEST_F(LiveCutoff, WithoutAFileItIsTheBundles) {
  EXPECT_EQ(Cutoff(0, 5, 100, "").now(), kNone);
  EXPECT_EQ(Cutoff(2.5, 5, 100, "").now(), 2.5);
  EXPECT_FALSE(Cutoff(2.5, 5, 100, "").live());
  Cutoff missing(2.5, 5, 100, path_.string());  // named, not written yet (or another machine's)
  EXPECT_TRUE(missing.live());
  EXPECT_EQ(missing.now(), 2.5);
}

// FACTOR x the fastest point of at most the candidate's memory; a point that uses more, and a
// line that is not two numbers (or a time that is not > 0), count for nothing; the bundle's
// cut-off wins where it is lower.
TEST_F(LiveCutoff, TheFastestPointOfNoMoreMemoryTimesTheFactor) {
  write("100 4\n200 1\n50 9\n# a comment\n300 x\n80 -1\n80 2 3\n\n");
  EXPECT_EQ(Cutoff(0, 5, 100, path_.string()).now(), 20);   // 100 4
  EXPECT_EQ(Cutoff(0, 5, 250, path_.string()).now(), 5);    // 200 1
  EXPECT_EQ(Cutoff(0, 5, 60, path_.string()).now(), 45);    // 50 9
  EXPECT_EQ(Cutoff(0, 5, 10, path_.string()).now(), kNone);  // every point uses more
  EXPECT_EQ(Cutoff(3, 5, 250, path_.string()).now(), 3);
}

// A point validated while the candidate runs lowers its cut-off at the next reading (at most
// every kRefreshMs); a file that loses its points (rewritten by mistake) never raises it.
TEST_F(LiveCutoff, APointWrittenWhileItRunsLowersItAtTheNextReading) {
  Cutoff c(0, 5, 100, path_.string());
  EXPECT_EQ(c.now(), kNone);
  write("100 4\n");
  wait_refresh();
  EXPECT_EQ(c.now(), 20);
  write("90 2\n");
  EXPECT_EQ(c.now(), 20) << "read again before kRefreshMs passed";
  wait_refresh();
  EXPECT_EQ(c.now(), 10);
  write("");
  wait_refresh();
  EXPECT_EQ(c.now(), 10);
}

}  // namespace
}  // namespace liftc_runner
