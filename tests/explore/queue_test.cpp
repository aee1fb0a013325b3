// The work queue (queue.hpp) against a throwaway PostgreSQL server (postgres_server.hpp),
// and a bundle packed for it and unpacked on a worker (bundle_pack.hpp): claims are
// exclusive and by device kind, a lease that expires puts the candidate back and after
// kMaxTries of them it is lost, a lease given back is not counted, an outcome written after
// the lease expired is not written; a pack holds the bundle's own files and names its
// shared ones by content, and a damaged pack writes nothing outside its folder.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "liftc/explore/evaluation/bundle_pack.hpp"
#include "liftc/explore/evaluation/queue_worker.hpp"
#include "liftc/explore/store/queue.hpp"
#include "liftc/support/diagnostic.hpp"
#include "postgres_server.hpp"
#include "test_folder.hpp"

namespace liftc::explore::test {
namespace {

namespace fs = std::filesystem;

bool fails_with(const std::function<void()>& f, const std::string& message) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), message);
    return e.message() == message;
  }
  ADD_FAILURE() << "no error; expected: " << message;
  return false;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

class QueueTest : public WithPostgresServer<::testing::Test> {
 protected:
  void SetUp() override {
    ASSERT_EQ(error_, "") << "no PostgreSQL server for the test";
    server_->create_database("q");
    dir_ = fresh_test_folder("liftc_queue_test");
  }
  void TearDown() override {
    if (server_ && error_.empty()) server_->admin("DROP DATABASE IF EXISTS q WITH (FORCE)");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static std::string url() { return server_->url("q"); }
  // A bundle of one own file and one shared one.
  static PackedBundle bundle(const std::string& text) {
    PackedBundle b;
    b.own = "liftc-pack 1\nbundle.txt " + std::to_string(text.size()) + "\n" + text;
    b.shared = {{"inputs/a.bin", "00ff-4"}};
    b.contents = {{"00ff-4", "abcd"}};
    return b;
  }

  fs::path dir_;
};


const DeviceKind kGpu{"gpu", "1.0"}, kPhone{"Mali-G78", "r32"};

TEST_F(QueueTest, ClaimsAreExclusiveAndByDeviceKind) {
  auto explorer = Queue::open(url(), "test");
  std::set<std::int64_t> gpu;
  for (int i = 0; i < 20; ++i) gpu.insert(explorer->put(1, "k" + std::to_string(i), kGpu, 60, bundle("b")));
  std::int64_t phone = explorer->put(1, "p", kPhone, 60, bundle("p"));
  EXPECT_EQ(gpu.size(), 20u);
  // The same candidate of the same run again (a resumed run): the one queued.
  EXPECT_EQ(explorer->put(1, "k0", kGpu, 60, bundle("b")), *gpu.begin());
  EXPECT_EQ(server_->value("q", "SELECT count(*) FROM queue_files"), "1");  // stored once

  // Four workers on their own connections claim at once: each candidate once.
  std::vector<std::vector<std::int64_t>> claimed(4);
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w)
    threads.emplace_back([&, w] {
      auto queue = Queue::open(url(), "test");
      while (auto c = queue->claim(kGpu, "worker" + std::to_string(w), 30)) {
        EXPECT_EQ(c->tries, 1);
        EXPECT_EQ(c->bundle.shared, (std::vector<std::pair<std::string, std::string>>{{"inputs/a.bin", "00ff-4"}}));
        EXPECT_EQ(queue->file("00ff-4"), "abcd");
        claimed[w].push_back(c->id);
      }
    });
  for (auto& t : threads) t.join();
  std::multiset<std::int64_t> all;
  for (const auto& ids : claimed) all.insert(ids.begin(), ids.end());
  EXPECT_EQ(std::set<std::int64_t>(all.begin(), all.end()), gpu);
  EXPECT_EQ(all.size(), gpu.size());
  auto worker = Queue::open(url(), "test");
  auto c = worker->claim(kPhone, "phone", 30);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->id, phone);
  EXPECT_FALSE(worker->claim(kPhone, "phone", 30));
}

TEST_F(QueueTest, AnExpiredLeaseRequeuesAndAfterThreeTheCandidateIsLost) {
  auto explorer = Queue::open(url(), "test");
  std::int64_t id = explorer->put(1, "k", kGpu, 60, bundle("b"));
  auto worker = Queue::open(url(), "test");
  for (int tries = 1; tries <= kMaxTries; ++tries) {
    auto c = worker->claim(kGpu, fmt::format("worker{}", tries), 0.2);
    ASSERT_TRUE(c) << tries;
    EXPECT_EQ(c->id, id);
    EXPECT_EQ(c->tries, tries);
    EXPECT_FALSE(explorer->outcome(id));
    std::this_thread::sleep_for(std::chrono::milliseconds(400));  // the worker killed: no heartbeat
  }
  EXPECT_FALSE(worker->claim(kGpu, "worker4", 0.2));  // lost, not queued again
  auto o = explorer->outcome(id);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->ended, "lost");
  EXPECT_EQ(o->tries, kMaxTries);
  EXPECT_EQ(server_->value("q", fmt::format("SELECT state FROM queue WHERE id = {}", id)), "crash");
  explorer->take(id);
  EXPECT_EQ(server_->value("q", "SELECT count(*) FROM queue"), "0");
}

TEST_F(QueueTest, AGivenBackLeaseIsNotATryAndALostLeaseWritesNoOutcome) {
  auto explorer = Queue::open(url(), "test");
  std::int64_t id = explorer->put(1, "k", kGpu, 60, bundle("b"));
  auto worker = Queue::open(url(), "test");
  auto c = worker->claim(kGpu, "a", 30);
  ASSERT_TRUE(c);
  EXPECT_TRUE(worker->heartbeat(id, "a", 30));
  EXPECT_FALSE(worker->heartbeat(id, "b", 30));  // not b's lease
  worker->give_back(id, "a");                    // a stopping worker
  c = worker->claim(kGpu, "b", 0.2);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->tries, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  c = worker->claim(kGpu, "c", 30);  // b's lease expired: c has it
  ASSERT_TRUE(c);
  EXPECT_EQ(c->tries, 2);
  QueueOutcome late{"exited", 0, 1.5, "{\"late\": true}", "", 1};
  EXPECT_FALSE(worker->finish(id, "b", late));
  EXPECT_FALSE(explorer->outcome(id));
  QueueOutcome done{"signaled", 11, 0.25, "", "segfault\n", 2};
  EXPECT_TRUE(worker->finish(id, "c", done));
  auto o = explorer->outcome(id);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->ended, "signaled");
  EXPECT_EQ(o->code, 11);
  EXPECT_EQ(o->seconds, 0.25);
  EXPECT_EQ(o->err, "segfault\n");
  EXPECT_EQ(o->tries, 2);
}

// Item 2 of the workers' follow-up: a run's end removes its queue rows and the shared files
// only it used; a file another run's candidates use stays until that run ends too. Before,
// queue_files kept every run's inputs for ever.
TEST_F(QueueTest, ARunsEndRemovesItsRowsAndTheFilesOnlyItUsed) {
  auto explorer = Queue::open(url(), "test");
  PackedBundle own = bundle("a");
  own.shared.push_back({"expected/out.bin", "11ee-4"});
  own.contents.push_back({"11ee-4", "efgh"});
  explorer->put(1, "a", kGpu, 60, own);
  explorer->put(1, "b", kGpu, 60, bundle("b"));
  auto other = Queue::open(url(), "test");  // another exploration, of the same inputs
  std::int64_t kept = other->put(2, "c", kGpu, 60, bundle("c"));
  EXPECT_EQ(server_->value("q", "SELECT count(*) FROM queue_files"), "2");
  explorer->end_run(1);
  EXPECT_EQ(server_->value("q", "SELECT count(*) FROM queue WHERE run = 1"), "0");
  EXPECT_EQ(server_->value("q", "SELECT string_agg(hash, ',') FROM queue_files"), "00ff-4");  // run 2's
  auto worker = Queue::open(url(), "test");
  auto c = worker->claim(kGpu, "w", 30);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->id, kept);
  EXPECT_EQ(worker->file("00ff-4"), "abcd");
  // Run 1 again (resumed): its files are stored again, not taken for sent.
  explorer->put(1, "a", kGpu, 60, own);
  EXPECT_EQ(server_->value("q", "SELECT count(*) FROM queue_files"), "2");
  explorer->end_run(1);
  other->end_run(2);
  for (const char* table : {"queue", "queue_files", "queue_run_files"})
    EXPECT_EQ(server_->value("q", fmt::format("SELECT count(*) FROM {}", table)), "0") << table;
  EXPECT_FALSE(worker->finish(kept, "w", QueueOutcome{"exited", 0, 1, "", "", 1}));  // its run ended: dropped
}

// Item 2: every worker registers; its heartbeat, candidate and count are kept, a clean stop
// says when, and a worker whose heartbeat is older than its lease is listed as lost.
TEST_F(QueueTest, WorkersRegisterAndAreListedWithWhatTheyDo) {
  auto explorer = Queue::open(url(), "test");
  std::int64_t id = explorer->put(7, "k", kGpu, 60, bundle("b"));
  auto queue = Queue::open(url(), "test");
  WorkerRecord gpu{0, "node1", 101, "gpu", "1.0", "liftc-runner", 30};
  WorkerRecord phone{0, "host", 202, "Mali-G78", "r32", "scripts/adb_runner.sh R58", 0.2};
  WorkerRecord stopping{0, "node2", 303, "gpu", "1.0", "liftc-runner", 30};
  std::int64_t a = queue->join(gpu), b = queue->join(phone), c = queue->join(stopping);
  ASSERT_TRUE(queue->claim(kGpu, "node1:101", 30));
  queue->beat(a, id, 4);
  queue->leave(c, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // the phone's worker: no heartbeat
  std::vector<WorkerRecord> workers = queue->workers();
  ASSERT_EQ(workers.size(), 3u);
  EXPECT_EQ(workers[0].id, a);
  EXPECT_EQ(workers[0].host, "node1");
  EXPECT_EQ(workers[0].pid, 101);
  EXPECT_EQ(workers[0].done, 4);
  EXPECT_EQ(workers[0].current, id);
  EXPECT_EQ(workers[0].current_run, 7);
  EXPECT_LT(workers[0].silent_s, 30);
  EXPECT_EQ(workers[1].id, b);
  EXPECT_GT(workers[1].silent_s, 0.2);
  EXPECT_EQ(workers[2].done, 2);
  EXPECT_FALSE(workers[2].stopped.empty());
  std::string table = workers_table(workers);
  std::istringstream lines(table);
  std::string header, first, second, third, last;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  std::getline(lines, third);
  std::getline(lines, last);
  EXPECT_NE(first.find("node1:101"), std::string::npos) << table;
  EXPECT_NE(first.find("gpu (1.0)"), std::string::npos) << table;
  EXPECT_NE(first.find(fmt::format("    4  running candidate {} of run 7", id)), std::string::npos) << table;
  EXPECT_NE(second.find("lost: no heartbeat for 0 s (killed, or its machine lost) [--runner scripts/adb_runner.sh R58]"),
            std::string::npos)
      << table;
  EXPECT_NE(third.find("    2  stopped 20"), std::string::npos) << table;
  EXPECT_EQ(last, "1 worker(s) working now, of 3 registered");
}

TEST_F(QueueTest, ASqliteStoreHasNoQueue) {
  EXPECT_TRUE(fails_with([] { Queue::open("results.db", "--workers 3"); },
                         "--workers 3: the work queue needs a PostgreSQL store (--db postgresql://USER@HOST/DATABASE), "
                         "which workers on other processes and machines reach; results.db is a SQLite file"));
}

TEST_F(QueueTest, APackedBundleUnpacksAsItWasWithItsSharedFilesOnce) {
  fs::path bundle_dir = dir_ / "candidate-0", shared = dir_ / "shared";
  write(bundle_dir / "bundle.txt", "liftc-bundle 1\ndevice \nlock /explorer/device.lock\nruns 5\n");
  write(bundle_dir / "kernels.cl", std::string("kernel void k() {}\0\n", 20));
  write(bundle_dir / "inputs" / "image.bin", std::string(4096, '\x01'));
  write(bundle_dir / "expected" / "out.bin", std::string(64, '\x02'));
  PackedBundle packed = pack_bundle(bundle_dir.string());
  ASSERT_EQ(packed.shared.size(), 2u);
  EXPECT_EQ(packed.shared[0].first, "expected/out.bin");
  EXPECT_EQ(packed.shared[1].first, "inputs/image.bin");
  EXPECT_EQ(packed.own.find(std::string(4096, '\x01')), std::string::npos);  // not in the pack itself
  std::map<std::string, std::string> contents(packed.contents.begin(), packed.contents.end());
  int fetched = 0;
  auto fetch = [&](const std::string& hash) {
    ++fetched;
    return contents.at(hash);
  };
  for (const char* to : {"w/a", "w/b"}) {
    unpack_bundle((dir_ / to).string(), packed, (dir_ / "w" / "cache").string(), fetch);
    for (const char* f : {"bundle.txt", "kernels.cl", "inputs/image.bin", "expected/out.bin"})
      EXPECT_EQ(read(dir_ / to / f), read(bundle_dir / f)) << to << " " << f;
  }
  EXPECT_EQ(fetched, 2);  // the second bundle found them in the cache
  retarget_bundle((dir_ / "w/a").string(), "Mali");
  EXPECT_EQ(read(dir_ / "w/a/bundle.txt"), "liftc-bundle 1\ndevice Mali\nruns 5\n");
}

TEST_F(QueueTest, ADamagedPackIsOneErrorAndWritesNothingOutsideItsFolder) {
  const struct {
    std::string own;
    std::vector<std::pair<std::string, std::string>> shared;
    std::string message;
  } cases[] = {
      {"not a pack", {}, "a queued bundle is damaged: it is no liftc pack"},
      {"liftc-pack 1\n../escape 2\nhi", {}, "a queued bundle is damaged: a file name '../escape' that is not plain"},
      {"liftc-pack 1\n/tmp/escape 2\nhi", {}, "a queued bundle is damaged: a file name '/tmp/escape' that is not plain"},
      {"liftc-pack 1\nbundle.txt 99\nhi", {}, "a queued bundle is damaged: the size of 'bundle.txt'"},
      {"liftc-pack 1\nbundle.txt", {}, "a queued bundle is damaged: a file line is cut short"},
      {"liftc-pack 1\n", {{"inputs/../../x", "00-1"}}, "a queued bundle is damaged: a file name 'inputs/../../x' that is not plain"},
      {"liftc-pack 1\n", {{"inputs/a.bin", "../../x"}}, "a queued bundle is damaged: the content hash '../../x'"},
  };
  for (const auto& c : cases) {
    PackedBundle b;
    b.own = c.own;
    b.shared = c.shared;
    EXPECT_TRUE(fails_with(
        [&] { unpack_bundle((dir_ / "w/b").string(), b, (dir_ / "w/cache").string(), [](const std::string&) { return std::string("x"); }); },
        c.message))
        << c.own;
  }
  EXPECT_FALSE(fs::exists(dir_ / "escape"));
  EXPECT_FALSE(fs::exists(dir_ / "x"));
  EXPECT_FALSE(fs::exists(dir_ / "w/x"));
}

}  // namespace
}  // namespace liftc::explore::test
